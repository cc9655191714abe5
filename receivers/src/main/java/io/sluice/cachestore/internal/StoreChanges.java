package io.sluice.cachestore.internal;

import io.sluice.binary.internal.ValueCodec;
import io.sluice.protocol.internal.EntryBatch;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The changes of one operation (a streamed batch, a put, a putAll...) as a store sees them: keys and
 * values decoded once, binary objects kept binary, each key once — the last change of a key wins,
 * as it does in memory. A {@code null} value is a removal. Decoded from copies of the entry bytes, so
 * the changes outlive the batch's array (write-behind keeps them). Not thread-safe.
 */
public final class StoreChanges {

    /** key → (partition, value or null). Insertion order is the order keys first appeared. */
    private final LinkedHashMap<Object, Change> changes = new LinkedHashMap<>();
    private final ValueCodec codec;

    /** One key's change. @param value the new value, or null for a removal */
    record Change(int partition, Object value) {
    }

    public StoreChanges(ValueCodec codec) {
        this.codec = codec;
    }

    /** Adds entry {@code i} of a batch of the partition. */
    public void add(int partition, EntryBatch batch, int i) {
        byte[] data = batch.data();
        Object key = decode(data, batch.keyOffset(i), batch.keyLength(i));
        Object value = batch.isRemoval(i) ? null : decode(data, batch.valueOffset(i), batch.valueLength(i));
        add(partition, key, value);
    }

    /** Adds an encoded put or removal of the partition, key and value in one array. */
    public void add(int partition, byte[] data, int keyOffset, int keyLength, int valueOffset, int valueLength,
                    boolean removal) {
        add(partition, data, keyOffset, keyLength, data, valueOffset, valueLength, removal);
    }

    /** Adds an encoded put of the partition, key and value in their own arrays. */
    public void add(int partition, byte[] keyBytes, int keyOffset, int keyLength, byte[] valueBytes, int valueOffset,
                    int valueLength) {
        add(partition, keyBytes, keyOffset, keyLength, valueBytes, valueOffset, valueLength, false);
    }

    /** Adds an encoded put ({@code removal} false) or removal of the partition. */
    public void add(int partition, byte[] keyBytes, int keyOffset, int keyLength, byte[] valueBytes, int valueOffset,
                    int valueLength, boolean removal) {
        Object key = decode(keyBytes, keyOffset, keyLength);
        add(partition, key, removal ? null : decode(valueBytes, valueOffset, valueLength));
    }

    /** Adds a decoded change; the value null is a removal. */
    public void add(int partition, Object key, Object value) {
        // remove-then-put moves a re-changed key to the end, so iteration order is the order of last changes.
        changes.remove(key);
        changes.put(key, new Change(partition, value));
    }

    private Object decode(byte[] data, int offset, int length) {
        return codec.decode(Arrays.copyOfRange(data, offset, offset + length), 0, length, true);
    }

    public boolean isEmpty() {
        return changes.isEmpty();
    }

    public int size() {
        return changes.size();
    }

    /** key → change, in the order of each key's last change. */
    Map<Object, Change> byKey() {
        return changes;
    }

    /** The puts, in order. */
    List<Map.Entry<Object, Object>> puts() {
        List<Map.Entry<Object, Object>> puts = new ArrayList<>(changes.size());
        for (Map.Entry<Object, Change> e : changes.entrySet()) {
            if (e.getValue().value() != null) {
                puts.add(new AbstractMap.SimpleImmutableEntry<>(e.getKey(), e.getValue().value()));
            }
        }
        return puts;
    }

    /** The removed keys, in order. */
    List<Object> removals() {
        List<Object> keys = new ArrayList<>();
        for (Map.Entry<Object, Change> e : changes.entrySet()) {
            if (e.getValue().value() == null) {
                keys.add(e.getKey());
            }
        }
        return keys;
    }
}
