package io.sluice.cachestore.internal;

import io.sluice.CacheStore;
import io.sluice.CacheStoreException;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Hands changes to a store in calls of at most its {@link CacheStore#maxBatchSize()}: puts through
 * {@code writeBatch}, removals through {@code deleteBatch}. A call that fails stops the rest; the
 * calls before it stay done. Errors become a {@link CacheStoreException} naming the keys of the
 * failing call (a store's own {@code CacheStoreException} passes as it is).
 */
final class StoreWrites {

    private StoreWrites() {
    }

    /** Writes the changes. @throws CacheStoreException if a call failed; earlier calls stay written */
    static void write(CacheStore<Object, Object> store, String label, StoreChanges changes) {
        int max = store.maxBatchSize();
        List<Map.Entry<Object, Object>> puts = changes.puts();
        for (int from = 0; from < puts.size(); from += chunk(max, puts.size())) {
            List<Map.Entry<Object, Object>> part = puts.subList(from, Math.min(puts.size(), from + chunk(max, puts.size())));
            try {
                store.writeBatch(part);
            } catch (CacheStoreException e) {
                throw e;
            } catch (Exception e) {
                List<Object> keys = new ArrayList<>(part.size());
                for (Map.Entry<Object, Object> entry : part) {
                    keys.add(entry.getKey());
                }
                throw new CacheStoreException("writeBatch of " + part.size() + " entries to " + label, keys, e);
            }
        }
        List<Object> removals = changes.removals();
        for (int from = 0; from < removals.size(); from += chunk(max, removals.size())) {
            List<Object> part = removals.subList(from, Math.min(removals.size(), from + chunk(max, removals.size())));
            try {
                store.deleteBatch(part);
            } catch (CacheStoreException e) {
                throw e;
            } catch (Exception e) {
                throw new CacheStoreException("deleteBatch of " + part.size() + " keys from " + label, part, e);
            }
        }
    }

    private static int chunk(int max, int total) {
        return max < 1 ? Math.max(1, total) : max;
    }
}
