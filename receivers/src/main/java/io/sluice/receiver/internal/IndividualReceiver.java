package io.sluice.receiver.internal;

import io.sluice.Cache;
import io.sluice.binary.internal.ValueCodec;
import io.sluice.protocol.internal.EntryBatch;
import io.sluice.pagestore.internal.BatchApplyException;
import io.sluice.pagestore.internal.PartitionStore;

/**
 * The {@link io.sluice.Receivers#individual()} receiver: each entry in turn as a put (overwriting)
 * or a remove, the same result as {@link Cache#put} and {@link Cache#remove}. Each entry takes the
 * partition's lock on its own, so readers may see a batch part-applied.
 */
public final class IndividualReceiver implements BatchReceiver {

    /** The one instance; it holds no state. */
    public static final IndividualReceiver INSTANCE = new IndividualReceiver();

    private IndividualReceiver() {
    }

    /** @throws BatchApplyException if an entry failed: the entries before it stay applied */
    @Override
    public int apply(Cache<Object, Object> cache, ValueCodec codec, PartitionStore store, EntryBatch batch) {
        byte[] data = batch.data();
        int n = batch.size();
        for (int i = 0; i < n; i++) {
            try {
                if (batch.isRemoval(i)) {
                    store.remove(data, batch.keyOffset(i), batch.keyLength(i));
                } else {
                    store.put(data, batch.keyOffset(i), batch.keyLength(i),
                            data, batch.valueOffset(i), batch.valueLength(i));
                }
            } catch (RuntimeException e) {
                throw new BatchApplyException(i, n - i, e);
            }
        }
        return n;
    }
}
