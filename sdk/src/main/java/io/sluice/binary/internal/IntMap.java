package io.sluice.binary.internal;

import java.util.Arrays;

/**
 * An int-keyed map for ids that are registered rarely and looked up on every decode: reads go to
 * an immutable open-addressing snapshot without locking or boxing; writes copy it.
 */
final class IntMap<V> {

    private static final class Table {
        final int[] keys;
        final Object[] values;
        final int size;

        Table(int capacity, int size) {
            this.keys = new int[capacity];
            this.values = new Object[capacity];
            this.size = size;
        }
    }

    private volatile Table table = new Table(8, 0);

    @SuppressWarnings("unchecked")
    V get(int key) {
        Table t = table;
        int mask = t.keys.length - 1;
        for (int i = mix(key) & mask; ; i = (i + 1) & mask) {
            Object v = t.values[i];
            if (v == null) {
                return null;
            }
            if (t.keys[i] == key) {
                return (V) v;
            }
        }
    }

    /** Puts the value unless the key is present; returns the value now mapped. */
    @SuppressWarnings("unchecked")
    synchronized V putIfAbsent(int key, V value) {
        V existing = get(key);
        if (existing != null) {
            return existing;
        }
        Table old = table;
        int capacity = old.keys.length;
        while ((old.size + 1) * 2 > capacity) {
            capacity *= 2;
        }
        Table t = new Table(capacity, old.size + 1);
        for (int i = 0; i < old.keys.length; i++) {
            if (old.values[i] != null) {
                insert(t, old.keys[i], old.values[i]);
            }
        }
        insert(t, key, value);
        table = t;
        return value;
    }

    private static void insert(Table t, int key, Object value) {
        int mask = t.keys.length - 1;
        int i = mix(key) & mask;
        while (t.values[i] != null) {
            i = (i + 1) & mask;
        }
        t.keys[i] = key;
        t.values[i] = value;
    }

    private static int mix(int key) {
        int h = key * 0x9E3779B9;
        return h ^ (h >>> 16);
    }

    @Override
    public String toString() {
        return "IntMap" + Arrays.toString(table.keys);
    }
}
