package io.sluice.cachestore.internal;

import io.sluice.CacheStore;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** A store in a map, recording its calls; it can be told to fail. */
final class MapStore implements CacheStore<Object, Object> {

    final Map<Object, Object> data = new ConcurrentHashMap<>();
    final List<Integer> writeBatchSizes = new CopyOnWriteArrayList<>();
    final List<Integer> deleteBatchSizes = new CopyOnWriteArrayList<>();
    /** Every write in the order the store got it: key=value or key=null for a delete. */
    final List<Map.Entry<Object, Object>> log = new CopyOnWriteArrayList<>();
    final AtomicInteger loads = new AtomicInteger();
    final int maxBatchSize;
    volatile RuntimeException failWith;
    volatile boolean closed;

    MapStore(int maxBatchSize) {
        this.maxBatchSize = maxBatchSize;
    }

    /** Runs before each writeBatch: a test holds the store's writes until something has happened. */
    volatile Runnable beforeWriteBatch = () -> { };

    /** Runs when the node opens the store: a test's slow open. */
    volatile Runnable onOpen = () -> { };

    @Override
    public void open(io.sluice.CacheStoreContext context) {
        onOpen.run();
    }

    private void maybeFail() {
        RuntimeException e = failWith;
        if (e != null) {
            throw e;
        }
    }

    @Override
    public Object load(Object key) {
        loads.incrementAndGet();
        maybeFail();
        return data.get(key);
    }

    /** The keys of each loadAll call. */
    final List<List<Object>> loadAllCalls = new CopyOnWriteArrayList<>();

    @Override
    public Map<Object, Object> loadAll(Collection<?> keys) {
        loadAllCalls.add(List.copyOf(keys));
        maybeFail();
        Map<Object, Object> found = new java.util.HashMap<>();
        for (Object key : keys) {
            Object value = data.get(key);
            if (value != null) {
                found.put(key, value);
            }
        }
        return found;
    }

    @Override
    public void write(Object key, Object value) {
        maybeFail();
        data.put(key, value);
        log.add(new java.util.AbstractMap.SimpleImmutableEntry<>(key, value));
    }

    @Override
    public void writeBatch(Collection<Map.Entry<Object, Object>> entries) throws Exception {
        if (maxBatchSize > 0 && entries.size() > maxBatchSize) {
            throw new AssertionError("writeBatch of " + entries.size() + " > " + maxBatchSize);
        }
        maybeFail();
        beforeWriteBatch.run();
        writeBatchSizes.add(entries.size());
        for (Map.Entry<Object, Object> e : entries) {
            data.put(e.getKey(), e.getValue());
            log.add(new java.util.AbstractMap.SimpleImmutableEntry<>(e.getKey(), e.getValue()));
        }
    }

    @Override
    public void delete(Object key) {
        maybeFail();
        data.remove(key);
        log.add(new java.util.AbstractMap.SimpleImmutableEntry<>(key, null));
    }

    @Override
    public void deleteBatch(Collection<?> keys) throws Exception {
        maybeFail();
        deleteBatchSizes.add(keys.size());
        for (Object key : keys) {
            delete(key);
        }
    }

    @Override
    public int maxBatchSize() {
        return maxBatchSize;
    }

    @Override
    public void close() {
        closed = true;
    }
}
