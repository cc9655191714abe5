package io.sluice.samples.load;

import io.sluice.Cache;
import io.sluice.Sluice;

/** Mode {@code put}: one {@code cache.put} per entry. */
final class PutLoad extends CacheLoad {

    PutLoad(Sluice sluice, Cache<Long, Object> cache, KeyPlan plan, ValueKind kind, String pad) {
        super(sluice, cache, plan, kind, pad);
    }

    @Override
    EntrySink sinkFor(int thread) {
        return cache::put;
    }
}
