package io.sluice.receiver.internal;

import io.sluice.Cache;
import io.sluice.binary.internal.ValueCodec;
import io.sluice.protocol.internal.EntryBatch;
import io.sluice.pagestore.internal.BatchMode;
import io.sluice.pagestore.internal.PartitionStore;

/**
 * The {@link io.sluice.Receivers#batched()} receiver: the batch as one putAll/removeAll, applied by
 * the store in one {@link BatchMode#UPSERT} pass with the keys sorted (the store sorts; input order
 * does not matter). Present keys get the batch's value; when a key occurs twice in a batch the
 * later entry wins. Holding one partition lock per batch in key order, concurrent batches cannot
 * deadlock.
 */
public final class BatchedReceiver implements BatchReceiver {

    /** The one instance; it holds no state. */
    public static final BatchedReceiver INSTANCE = new BatchedReceiver();

    private BatchedReceiver() {
    }

    @Override
    public int apply(Cache<Object, Object> cache, ValueCodec codec, PartitionStore store, EntryBatch batch) {
        store.applyBatch(batch, BatchMode.UPSERT);
        return batch.size();
    }
}
