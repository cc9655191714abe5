package io.sluice.samples.load;

import io.sluice.Cache;
import io.sluice.Sluice;

import java.util.TreeMap;

/**
 * Mode {@code putAll}: each producer collects its entries into batches sorted by key and stores
 * each with one {@code cache.putAll}.
 */
final class PutAllLoad extends CacheLoad {

    private final int batchSize;

    PutAllLoad(Sluice sluice, Cache<Long, Object> cache, KeyPlan plan, ValueKind kind, String pad, int batchSize) {
        super(sluice, cache, plan, kind, pad);
        this.batchSize = batchSize;
    }

    @Override
    EntrySink sinkFor(int thread) {
        TreeMap<Long, Object> batch = new TreeMap<>();
        return new EntrySink() {
            private int added;

            @Override
            public void write(long key, Object value) {
                batch.put(key, value);
                if (++added == batchSize) {
                    end();
                }
            }

            @Override
            public void end() {
                if (!batch.isEmpty()) {
                    cache.putAll(batch);
                    batch.clear();
                }
                added = 0;
            }
        };
    }
}
