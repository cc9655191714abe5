package io.sluice.receiver.internal;

import io.sluice.Cache;
import io.sluice.binary.internal.ValueCodec;
import io.sluice.cachestore.internal.InPlaceChanges;
import io.sluice.protocol.internal.EntryBatch;
import io.sluice.pagestore.internal.BatchApplyException;
import io.sluice.pagestore.internal.PartitionStore;

/**
 * How the node applies one partition's batch of encoded entries: the built-in receivers write the
 * bytes straight into the partition's store; {@link CustomReceiverAdapter} decodes them for a
 * user's {@link io.sluice.StreamReceiver}.
 *
 * <p>The node calls {@link #apply} on the partition's stripe thread, so no other batch of that
 * partition is applied at the same time; an instance is only ever called by one thread at a time.
 */
public interface BatchReceiver {

    /**
     * Applies the batch.
     *
     * @param cache the cache the batch is for (values decoded to their classes)
     * @param codec decodes the batch's keys and values, for receivers that need objects
     * @param store the batch's partition
     * @param batch the entries, all of that partition, in the order they were added
     * @return the number of entries applied: {@code batch.size()} unless the receiver skipped some on purpose
     * @throws BatchApplyException if the batch failed part way: its counts say how far it got
     * @throws Exception if the batch failed; no entry is counted as applied
     */
    int apply(Cache<Object, Object> cache, ValueCodec codec, PartitionStore store, EntryBatch batch) throws Exception;

    /**
     * Applies the batch as {@link #apply(Cache, ValueCodec, PartitionStore, EntryBatch)} does, recording each key
     * it changed in place (before and after) for the cache's store. Called instead of it, when the cache writes
     * to a store, for the receivers that compute values where they lie ({@link ReceiverRegistry#changesInPlace}).
     */
    default int apply(Cache<Object, Object> cache, ValueCodec codec, PartitionStore store, EntryBatch batch,
                      InPlaceChanges changes) throws Exception {
        return apply(cache, codec, store, batch);
    }
}
