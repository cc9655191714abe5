package io.sluice;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * The database (or any system of record) behind a cache: the node reads from it on a miss
 * (read-through) and writes every change of the cache to it, at once (write-through) or later in
 * batches (write-behind); see {@link CacheStoreConfig}. A store is registered on the node by name
 * ({@code NodeConfig.builder().store("pg", factory)}) and attached to a cache by that name in
 * {@link CacheConfig#withStore(CacheStoreConfig)} — clients never ship code.
 *
 * <p><b>Batches.</b> A streamed batch, a {@code putAll} or a write-behind flush reaches the store as
 * {@link #writeBatch}/{@link #deleteBatch} calls of at most {@link #maxBatchSize()} entries, each
 * key at most once per call (the last write of a key in a batch wins before the store sees it).
 * The defaults loop over {@link #write}/{@link #delete}, for stores that cannot batch.
 *
 * <p><b>Threads.</b> The node makes one instance per cache that names the store and calls it from
 * several threads at once (apply threads, application threads calling the cache, the write-behind
 * flusher): an implementation must be thread-safe. Keys and values are handed over as the node
 * decodes them with binary objects kept binary ({@link io.sluice.binary.BinaryObject}), so a store
 * sees the same form whichever way the entry came in.
 *
 * <p><b>Failures.</b> Whatever a method throws fails the operation that called it: with
 * write-through the streamed batch or cache operation fails with it as the cause and nothing of it is
 * applied in memory; with write-behind the flusher retries and then reports it (see
 * {@link CacheStoreConfig}). A failed {@code writeBatch} may have written part of its entries only if
 * the store says so; the JDBC store writes each call in one transaction.
 *
 * @param <K> key type
 * @param <V> value type
 */
public interface CacheStore<K, V> extends AutoCloseable {

    /**
     * Called once, before any other method, when the cache using this instance is created.
     *
     * @throws Exception if the store cannot start; the cache is then not created
     */
    default void open(CacheStoreContext context) throws Exception {
    }

    /** The value stored for the key, or {@code null} if there is none. */
    V load(K key) throws Exception;

    /** The values stored for the keys that have one; the default loops over {@link #load}. */
    default Map<K, V> loadAll(Collection<? extends K> keys) throws Exception {
        Map<K, V> found = new HashMap<>();
        for (K key : keys) {
            V value = load(key);
            if (value != null) {
                found.put(key, value);
            }
        }
        return found;
    }

    /** Stores the value for the key, replacing any previous one. */
    void write(K key, V value) throws Exception;

    /**
     * Stores each entry, replacing previous values. At most {@link #maxBatchSize()} entries, each key
     * once. The default calls {@link #write} for each entry in order.
     */
    default void writeBatch(Collection<Map.Entry<K, V>> entries) throws Exception {
        for (Map.Entry<K, V> e : entries) {
            write(e.getKey(), e.getValue());
        }
    }

    /** Removes the key; removing an absent key is not an error. */
    void delete(K key) throws Exception;

    /** Removes each key (at most {@link #maxBatchSize()}, each once). The default calls {@link #delete} for each. */
    default void deleteBatch(Collection<? extends K> keys) throws Exception {
        for (K key : keys) {
            delete(key);
        }
    }

    /**
     * The most entries one {@link #writeBatch}/{@link #deleteBatch} call may get; less than 1 means
     * no limit (the default). The node cuts larger batches into calls of this size.
     */
    default int maxBatchSize() {
        return 0;
    }

    /** Called once when the node closes, after write-behind has drained; releases connections. */
    @Override
    default void close() throws Exception {
    }
}
