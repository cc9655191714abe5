package io.sluice.receiver.internal;

import io.sluice.Cache;
import io.sluice.EntryProcessorException;
import io.sluice.Receivers;
import io.sluice.binary.internal.ValueCodec;
import io.sluice.cachestore.internal.InPlaceChanges;
import io.sluice.processor.internal.Invocation;
import io.sluice.processor.internal.StoredEntryProcessor;
import io.sluice.protocol.internal.EntryBatch;
import io.sluice.pagestore.internal.BatchApplyException;
import io.sluice.pagestore.internal.PartitionStore;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The transformer receiver ({@link Receivers#transform(String)}): each streamed entry's value is the
 * argument of an entry processor for its key, applied in one sorted pass over the batch's partition.
 * A streamed removal removes the key. Keys whose processor fails keep their values; the batch then
 * fails with an {@link EntryProcessorException} naming them, counting the others as applied.
 */
final class TransformReceiver implements BatchReceiver {

    /** Failed keys named in one batch's error (the count says how many there were). */
    private static final int MAX_NAMED_FAILURES = 8;

    private final String processorName;
    private final StoredEntryProcessor processor;

    TransformReceiver(String processorName, StoredEntryProcessor processor) {
        this.processorName = processorName;
        this.processor = processor;
    }

    @Override
    public int apply(Cache<Object, Object> cache, ValueCodec codec, PartitionStore store, EntryBatch batch) {
        return apply(cache, codec, store, batch, null);
    }

    @Override
    public int apply(Cache<Object, Object> cache, ValueCodec codec, PartitionStore store, EntryBatch batch,
                     InPlaceChanges changes) {
        byte[] data = batch.data();
        int n = batch.size();
        int[] failedCount = {0};
        Map<Object, Throwable> failures = new LinkedHashMap<>();
        Invocation.run(store, (entry, key, keyOffset, keyLength, argument) -> {
            if (argument == REMOVE) {
                entry.remove();
                return null;
            }
            return processor.process(entry, key, keyOffset, keyLength, argument);
        }, new Invocation.Keys() {
            @Override
            public int size() {
                return n;
            }

            @Override
            public byte[] array(int i) {
                return data;
            }

            @Override
            public int offset(int i) {
                return batch.keyOffset(i);
            }

            @Override
            public int length(int i) {
                return batch.keyLength(i);
            }

            @Override
            public Object argument(int i) {
                return batch.isRemoval(i) ? REMOVE
                        : codec.decode(data, batch.valueOffset(i), batch.valueLength(i), true);
            }
        }, new Invocation.Outcomes() {
            @Override
            public void succeeded(int i, Object result) {
            }

            @Override
            public void failed(int i, Throwable cause) {
                if (failedCount[0]++ < MAX_NAMED_FAILURES) {
                    failures.put(codec.decode(data, batch.keyOffset(i), batch.keyLength(i), true), cause);
                }
            }
        }, changes);
        if (failedCount[0] > 0) {
            EntryProcessorException e = new EntryProcessorException(processorName, Map.of(), failures);
            throw new BatchApplyException(n - failedCount[0], failedCount[0], e);
        }
        return n;
    }

    /** Marks a streamed removal among the arguments. */
    private static final Object REMOVE = new Object();

    @Override
    public String toString() {
        return "transformer receiver of processor '" + processorName + "'";
    }
}
