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
 * @param <K> key type
 * @param <V> value type
 */
public interface Cache<K, V> {

    /** The cache's name. */
    String name();

    /** The value stored for the key, or {@code null}. @throws NullPointerException if key is null */
    V get(K key);

    /** The values stored for the keys that have one; absent keys are not in the map. */
    Map<K, V> getAll(Set<? extends K> keys);

    /** Stores the value, replacing any previous one. @throws NullPointerException if key or value is null */
    void put(K key, V value);

    /** Stores every entry, replacing previous values. */
    void putAll(Map<? extends K, ? extends V> entries);

    /** Stores the value only if the key has none. @return true if it was stored */
    boolean putIfAbsent(K key, V value);

    /** Removes the key. @return true if it was present */
    boolean remove(K key);

    /** Removes every key of the collection. */
    void removeAll(Collection<? extends K> keys);

    /** The number of entries. */
    long size();

    /**
     * Every entry, partition by partition and in key order within a partition. The stream reads
     * the store lazily; close it (try-with-resources) if it is not consumed to the end.
     */
    Stream<Map.Entry<K, V>> scan();

    /**
     * Runs the processor on the key's entry, atomically: no other write of the key's partition runs
     * while it does, and a reader sees the entry wholly before or wholly after the change.
     *
     * @return the processor's result (for the built-ins, see {@link Processors})
     * @throws NullPointerException    if key or processor is null
     * @throws EntryProcessorException if the processor is not registered on the node, threw, or did not
     *                                 fit the stored value (the entry keeps its value)
     */
    <R> R invoke(K key, ProcessorRef processor);

    /**
     * Runs the processor on each key's entry, each key atomically on its own (as {@link #invoke}); the
     * keys of one partition are processed in one sorted pass.
     *
     * @return each key's result; a key whose result is {@code null} is in the map with a null value
     * @throws EntryProcessorException if some keys failed: they keep their values, every other key was
     *                                 processed, and {@link EntryProcessorException#results()} has their results
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
