package io.sluice;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;

/**
 * A named key-value cache. Keys and values are any type the binary encoding supports (see
 * {@code docs/binary-format.md}), POJOs and records, or {@link io.sluice.binary.BinaryObject}s.
 *
 * <p>Each single-key operation is atomic. Reads see a streamed batch either wholly before or
 * wholly after it was applied to the key's partition. A {@code put} made after a streamer's
 * batch was applied always wins over that batch.
 *
 * <p><b>What every operation may throw</b>, embedded and remote alike (besides what each method names):
 * <ul>
 *   <li>{@link CacheNotFoundException}, or {@link IllegalStateException} saying so, once the cache was
 *       destroyed ({@link Sluice#destroyCache}); {@link IllegalStateException} once the node or client is
 *       closed;</li>
 *   <li>{@link io.sluice.binary.BinaryFormatException} if a key or value cannot be encoded;</li>
 *   <li>{@link DataRegionFullException} (writes) if the node's data region has no room left;</li>
 *   <li>remote only: {@link NodeUnreachableException} if the node owning a key cannot be reached once
 *       the client's retries ran out ({@code ClientConfig.retryAttempts}), or does not answer within
 *       {@code ClientConfig.requestTimeout}. A write may then have been applied or not; writes are retried,
 *       so a write that did reach the node may have been applied twice (at-least-once, {@code docs/protocol.md}).</li>
 * </ul>
 * {@link CacheStoreException} comes only from a cache in front of a store ({@link CacheConfig#withStore}),
 * as each method says; it is thrown alike embedded and remote (remote, {@link CacheStoreException#keys()}
 * is empty and the message names the keys). An {@code ...Async} method completes its future
 * exceptionally with these instead of throwing them (a null argument, or one it cannot encode, may be
 * thrown at once).
 *
 * @param <K> key type
 * @param <V> value type
 */
public interface Cache<K, V> {

    /** The cache's name. */
    String name();

    /**
     * The value stored for the key, or {@code null}; with read-through, a miss is loaded from the store.
     *
     * @throws NullPointerException if key is null
     * @throws CacheStoreException  if read-through's load failed
     */
    V get(K key);

    /**
     * The values stored for the keys that have one; absent keys are not in the map. With read-through,
     * the misses are loaded with one {@link CacheStore#loadAll} call.
     *
     * @throws NullPointerException if keys is null
     * @throws CacheStoreException  if read-through's load failed
     */
    Map<K, V> getAll(Set<? extends K> keys);

    /**
     * Stores the value, replacing any previous one.
     *
     * @throws NullPointerException if key or value is null
     * @throws CacheStoreException  if write-through's store write failed: memory is unchanged (write-behind
     *                              writes the store later and does not throw it here)
     */
    void put(K key, V value);

    /**
     * Stores every entry, replacing previous values.
     *
     * @throws NullPointerException if entries is null
     * @throws CacheStoreException  if write-through's store write failed: the failing partition's entries are
     *                              not in memory; entries of other partitions may be (see {@code docs/cache-store.md})
     */
    void putAll(Map<? extends K, ? extends V> entries);

    /**
     * Stores the value only if the key has none.
     *
     * @return true if it was stored
     * @throws NullPointerException if key or value is null
     * @throws CacheStoreException  if write-through's store write failed: memory is unchanged
     */
    boolean putIfAbsent(K key, V value);

    /**
     * Removes the key.
     *
     * @return true if it was present
     * @throws NullPointerException if key is null
     * @throws CacheStoreException  if write-through's store delete failed: memory is unchanged
     */
    boolean remove(K key);

    /**
     * Removes every key of the collection.
     *
     * @throws NullPointerException if keys is null
     * @throws CacheStoreException  as {@link #putAll} does, for the store's deletes
     */
    void removeAll(Collection<? extends K> keys);

    /** The number of entries (in memory; a cache store is not asked). */
    long size();

    /**
     * Every entry, partition by partition and in key order within a partition. The stream reads
     * the store lazily; close it (try-with-resources) if it is not consumed to the end. It reads memory
     * only (a cache store is not asked); remote, {@link NodeUnreachableException} may come from the
     * stream's traversal, page by page. Remote, the stream reads ahead of its consumer: the next page of
     * the partition it is in, and the first pages of the four partitions after it (at most six pages of
     * up to 1,024 entries held).
     */
    Stream<Map.Entry<K, V>> scan();

    /**
     * The entries an index finds ({@link IndexQuery}), in index order: by the indexed fields' encoded values, then
     * by the entry's encoded key. The stream reads lazily, a page at a time from each partition (and, remote, from
     * each node, merged by index key), so memory stays bounded whatever the result's size; close it
     * (try-with-resources) if it is not consumed to the end. Each partition's page is read at one moment (a
     * streamed batch wholly before or after it); pages read later see later writes, so an entry changed during
     * the query may be seen in its old place, its new place, both or neither, never half-written.
     *
     * @throws NullPointerException if query is null
     * @throws IndexNotFoundException if the cache has no index on the query's fields
     * @throws IndexValueTypeException if a bound's type is not the type the index's first field holds
     * @throws IndexFieldTypeConflictException if the cache's entries hold the index's first field as different types
     * @throws IllegalStateException if the index is still being built from the cache's entries (added to a cache
     *     that held data); the message says how far the build is
     * <p>These are thrown by this call (it reads the first entry before it returns). Remote, the stream's later reads
     * may throw {@link NodeUnreachableException}, or a {@link SluiceException} if partitions kept moving between
     * nodes for longer than {@code ClientConfig.requestTimeout}.
     */
    Stream<Map.Entry<K, V>> query(IndexQuery query);

    /**
     * Adds an index on these fields (one, or several: composite, in this order) to the cache, as
     * {@link CacheConfig#index} declares one at creation; it is recorded with the cache's options (logged with
     * persistence). The index is built from the cache's entries on a thread of the node, partition by partition
     * (each partition's writers wait while its part is built); until it is complete, queries on it throw
     * {@link IllegalStateException} saying how far the build is, and writes keep the built part exact.
     *
     * @return false if the cache has that index already
     * @throws NullPointerException if fields or one of them is null
     * @throws IllegalArgumentException if no field is given, or one is blank or repeated
     * @throws IllegalStateException on a cluster member: a cluster's caches get their indexes when they are created
     */
    boolean createIndex(String... fields);

    /**
     * Drops the index on these fields (declared with {@link CacheConfig#index} or {@link #createIndex}), its pages
     * going back to the data region; recorded with the cache's options. Queries on it fail with
     * {@link IndexNotFoundException} afterwards; writes stop maintaining it.
     *
     * @return true if the index existed
     * @throws NullPointerException if fields is null
     * @throws IllegalStateException on a cluster member (as {@link #createIndex})
     */
    boolean destroyIndex(String... fields);

    /**
     * Runs the processor on the key's entry, atomically: no other write of the key's partition runs
     * while it does, and a reader sees the entry wholly before or wholly after the change.
     *
     * @return the processor's result (for the built-ins, see {@link Processors})
     * @throws NullPointerException    if key or processor is null
     * @throws EntryProcessorException if the processor is not registered on the node, threw, or did not
     *                                 fit the stored value (the entry keeps its value); also, with the
     *                                 {@link CacheStoreException} as the key's failure, if write-through's
     *                                 store write of the changed value failed (the entry is put back)
     */
    <R> R invoke(K key, ProcessorRef processor);

    /**
     * Runs the processor on each key's entry, each key atomically on its own (as {@link #invoke}); the
     * keys of one partition are processed in one sorted pass.
     *
     * @return each key's result; a key whose result is {@code null} is in the map with a null value
     * @throws EntryProcessorException if some keys failed: they keep their values, every other key was
     *                                 processed, and {@link EntryProcessorException#results()} has their results;
     *                                 a key whose changed value write-through could not store fails with the
     *                                 {@link CacheStoreException} (and is put back)
     */
    <R> Map<K, R> invokeAll(Set<? extends K> keys, ProcessorRef processor);

    /**
     * {@link #get} without waiting: the future completes off the caller's thread (never on a node's
     * apply thread, so a continuation may block or call the cache again).
     */
    CompletableFuture<V> getAsync(K key);

    /** {@link #put} without waiting; completes as {@link #getAsync} does. */
    CompletableFuture<Void> putAsync(K key, V value);

    /**
     * {@link #putAll} without waiting: the caller can prepare its next batch while this one is
     * written. Each partition's entries are written as one batch. Completes as {@link #getAsync} does;
     * on failure, with the cause (entries of other partitions may have been written).
     */
    CompletableFuture<Void> putAllAsync(Map<? extends K, ? extends V> entries);

    /** {@link #removeAll} without waiting; completes as {@link #putAllAsync} does. */
    CompletableFuture<Void> removeAllAsync(Collection<? extends K> keys);

    /** {@link #invokeAll} without waiting; fails with the {@link EntryProcessorException} it would throw. */
    <R> CompletableFuture<Map<K, R>> invokeAllAsync(Set<? extends K> keys, ProcessorRef processor);

    /**
     * A view of this cache whose reads return values as {@link io.sluice.binary.BinaryObject}s
     * instead of deserializing them to their classes.
     */
    <V1> Cache<K, V1> withKeepBinary();
}
