package io.sluice;

import java.util.Collection;
import java.util.Map;
import java.util.Set;
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
     * A view of this cache whose reads return values as {@link io.sluice.binary.BinaryObject}s
     * instead of deserializing them to their classes.
     */
    <V1> Cache<K, V1> withKeepBinary();
}
