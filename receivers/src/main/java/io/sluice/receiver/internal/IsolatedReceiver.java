package io.sluice.receiver.internal;

import io.sluice.Cache;
import io.sluice.binary.internal.ValueCodec;
import io.sluice.protocol.internal.EntryBatch;
import io.sluice.pagestore.internal.BatchMode;
import io.sluice.pagestore.internal.PartitionStore;

/**
 * The {@link io.sluice.Receivers#isolated()} receiver, for initial loads: the whole batch goes to
 * the store in one {@link BatchMode#INSERT_IF_ABSENT} pass (one batch page write, one sorted index
 * pass). A key already present keeps its value, so a {@code put} made after the batch was applied
 * always wins, and one made before it is never overwritten. Entries found present count as applied.
 *
 * <p>No per-entry lock: the node applies a partition's batches on one stripe thread, and the store
 * holds the partition's write lock for the batch against readers and {@code put}s.
 */
public final class IsolatedReceiver implements BatchReceiver {

    /** The one instance; it holds no state. */
    public static final IsolatedReceiver INSTANCE = new IsolatedReceiver();

    private IsolatedReceiver() {
    }

    @Override
    public int apply(Cache<Object, Object> cache, ValueCodec codec, PartitionStore store, EntryBatch batch) {
        store.applyBatch(batch, BatchMode.INSERT_IF_ABSENT);
        return batch.size();
    }
}
