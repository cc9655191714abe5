package io.sluice.samples.load;

import java.util.Arrays;

/**
 * The raw baseline's index: a primitive open-addressing hash table from a {@code long} key to an
 * {@code int} offset, with linear probing. Sized once for the keys it will hold (load factor at
 * most one half), so it never resizes and allocates nothing per entry. One thread uses it.
 */
final class LongOffsetIndex {

    /** {@link #get} returns this for an absent key. */
    static final int ABSENT = -1;

    private final long[] keys;
    private final int[] offsets;
    private final int mask;
    private int size;

    /** @param expectedKeys keys it will hold at most */
    LongOffsetIndex(long expectedKeys) {
        long capacity = Math.max(16, Long.highestOneBit(Math.max(1, expectedKeys) * 2 - 1) << 1);
        if (capacity > 1 << 30) {
            throw new IllegalArgumentException("a raw index of " + expectedKeys
                    + " keys is too large for one thread; raise --threads");
        }
        keys = new long[(int) capacity];
        offsets = new int[(int) capacity];
        Arrays.fill(offsets, ABSENT);
        mask = (int) capacity - 1;
    }

    /** The key's offset, or {@link #ABSENT}. */
    int get(long key) {
        int slot = slot(key);
        return offsets[slot];
    }

    /**
     * Stores the key's offset.
     *
     * @param offset not negative
     * @throws IllegalStateException if the table is full (more keys than it was sized for)
     */
    void put(long key, int offset) {
        int slot = slot(key);
        if (offsets[slot] == ABSENT) {
            if (size == mask) {
                throw new IllegalStateException("raw index full at " + size + " keys");
            }
            keys[slot] = key;
            size++;
        }
        offsets[slot] = offset;
    }

    /** Keys held. */
    int size() {
        return size;
    }

    /** The slot holding the key, or the empty slot where it would go. */
    private int slot(long key) {
        int slot = (int) mix(key) & mask;
        while (offsets[slot] != ABSENT && keys[slot] != key) {
            slot = (slot + 1) & mask;
        }
        return slot;
    }

    /** Spreads sequential keys over the table (the MurmurHash3 finalizer). */
    private static long mix(long key) {
        key ^= key >>> 33;
        key *= 0xff51afd7ed558ccdL;
        key ^= key >>> 33;
        key *= 0xc4ceb9fe1a85ec53L;
        return key ^ (key >>> 33);
    }
}
