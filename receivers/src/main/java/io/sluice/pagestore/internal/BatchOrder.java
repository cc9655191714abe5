package io.sluice.pagestore.internal;

import io.sluice.protocol.internal.EntryBatch;
import io.sluice.pagestore.internal.tree.TreePageIO;
import java.util.Arrays;

/**
 * Sorts a batch's entry indexes by key (unsigned bytes, then length; equal keys by position), with
 * no object per entry: a stable LSD radix sort over the key's first 12 bytes (zero-padded) and its
 * length, one pass per byte position that is not the same in every key (keys of a batch usually
 * differ in a few low bytes only), then a comparison sort of the rare runs of longer keys that tie on
 * those 12 bytes. The 12-byte prefixes are kept for the tree, which compares them the same way.
 * Reused across batches; not thread-safe.
 */
final class BatchOrder {

    private static final int PREFIX = TreePageIO.PREFIX;
    /** Digit positions: 0 = length (capped at 13), 1..12 = key byte 11..0. */
    private static final int DIGITS = PREFIX + 1;

    private int[] order = new int[0];
    private int[] scratch = new int[0];
    private long[] high = new long[0];
    private int[] low = new int[0];
    private int[] keyOffset = new int[0];
    private int[] keyLength = new int[0];
    private int[] valueLength = new int[0];
    private final int[] histogram = new int[DIGITS * 256];
    private byte[] data;

    /** Entry indexes in key order; valid until the next call. */
    int[] sort(EntryBatch batch) {
        int n = batch.size();
        if (order.length < n) {
            int capacity = Math.max(n, order.length * 2);
            order = new int[capacity];
            scratch = new int[capacity];
            high = new long[capacity];
            low = new int[capacity];
            keyOffset = new int[capacity];
            keyLength = new int[capacity];
            valueLength = new int[capacity];
        }
        data = batch.data();
        boolean sorted = true;
        long highDiff = 0;
        int lowDiff = 0;
        boolean lengthDiff = false;
        for (int i = 0; i < n; i++) {
            order[i] = i;
            int ko = batch.keyOffset(i);
            int kl = batch.keyLength(i);
            keyOffset[i] = ko;
            keyLength[i] = kl;
            valueLength[i] = batch.valueLength(i); // in the entry header, next to the key: read while it is hot
            high[i] = TreePageIO.prefixHigh(data, ko, kl);
            low[i] = TreePageIO.prefixLow(data, ko, kl);
            highDiff |= high[i] ^ high[0];
            lowDiff |= low[i] ^ low[0];
            lengthDiff |= Math.min(kl, PREFIX + 1) != Math.min(keyLength[0], PREFIX + 1);
            if (sorted && i > 0 && compare(i - 1, i) > 0) {
                sorted = false;
            }
        }
        if (!sorted) {
            radixSort(n, highDiff, lowDiff, lengthDiff);
            sortLongKeyTies(n);
        }
        data = null;
        return order;
    }

    int keyOffset(int entry) {
        return keyOffset[entry];
    }

    int keyLength(int entry) {
        return keyLength[entry];
    }

    /** The entry's value length ({@link EntryBatch#REMOVAL} for a removal), read with its key. */
    int valueLength(int entry) {
        return valueLength[entry];
    }

    /** Key bytes 0-7 of the entry, zero-padded, big-endian. */
    long prefixHigh(int entry) {
        return high[entry];
    }

    /** Key bytes 8-11 of the entry, zero-padded, big-endian. */
    int prefixLow(int entry) {
        return low[entry];
    }

    /** True if the two entries have the same key. */
    boolean sameKey(byte[] data, int a, int b) {
        int la = keyLength[a];
        return high[a] == high[b] && low[a] == low[b] && la == keyLength[b]
                && (la <= PREFIX
                || Arrays.equals(data, keyOffset[a], keyOffset[a] + la, data, keyOffset[b], keyOffset[b] + la));
    }

    private static int digit(long high, int low, int length, int d) {
        if (d == 0) {
            return Math.min(length, PREFIX + 1);
        }
        int b = PREFIX - d; // key byte index, 11 down to 0
        return b >= 8 ? (low >>> (8 * (PREFIX - 1 - b))) & 0xFF : (int) (high >>> (8 * (7 - b))) & 0xFF;
    }

    /** Stable LSD passes, least significant digit first, skipping digits all keys share. */
    private void radixSort(int n, long highDiff, int lowDiff, boolean lengthDiff) {
        int[] from = order;
        int[] to = scratch;
        for (int d = 0; d < DIGITS; d++) {
            if (d == 0 ? !lengthDiff : digit(highDiff, lowDiff, 0, d) == 0) {
                continue; // every key has the same byte here
            }
            int base = d << 8;
            Arrays.fill(histogram, base, base + 256, 0);
            for (int i = 0; i < n; i++) {
                histogram[base + digit(high[i], low[i], keyLength[i], d)]++;
            }
            int sum = 0;
            for (int v = 0; v < 256; v++) {
                int c = histogram[base + v];
                histogram[base + v] = sum;
                sum += c;
            }
            for (int i = 0; i < n; i++) {
                int e = from[i];
                to[histogram[base + digit(high[e], low[e], keyLength[e], d)]++] = e;
            }
            int[] t = from;
            from = to;
            to = t;
        }
        if (from != order) {
            System.arraycopy(from, 0, order, 0, n);
        }
    }

    /** Runs of keys longer than 12 bytes with equal 12-byte prefixes: ordered by their remaining bytes. */
    private void sortLongKeyTies(int n) {
        int i = 0;
        while (i < n) {
            int j = i + 1;
            int e = order[i];
            if (keyLength[e] > PREFIX) {
                while (j < n && high[order[j]] == high[e] && low[order[j]] == low[e] && keyLength[order[j]] > PREFIX) {
                    j++;
                }
                for (int k = i + 1; k < j; k++) { // insertion sort: stable, runs are short
                    int v = order[k];
                    int m = k - 1;
                    while (m >= i && compare(order[m], v) > 0) {
                        order[m + 1] = order[m];
                        m--;
                    }
                    order[m + 1] = v;
                }
            }
            i = j;
        }
    }

    /** Compares entries a and b: key bytes, then key length, then position (so the order is total). */
    private int compare(int a, int b) {
        if (high[a] != high[b]) {
            return Long.compareUnsigned(high[a], high[b]);
        }
        if (low[a] != low[b]) {
            return Integer.compareUnsigned(low[a], low[b]);
        }
        int la = keyLength[a];
        int lb = keyLength[b];
        if (la > PREFIX && lb > PREFIX) {
            int c = Arrays.compareUnsigned(data, keyOffset[a] + PREFIX, keyOffset[a] + la, data, keyOffset[b] + PREFIX,
                    keyOffset[b] + lb);
            if (c != 0) {
                return c;
            }
        } else if (la != lb) {
            return Integer.compare(la, lb); // equal zero-padded prefixes: the shorter key is smaller
        }
        return Integer.compare(a, b);
    }
}
