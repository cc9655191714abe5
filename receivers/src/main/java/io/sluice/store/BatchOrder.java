package io.sluice.store;

import io.sluice.protocol.EntryBatch;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Sorts a batch's entry indexes by key (unsigned bytes, then length; equal keys by position) with a
 * primitive index sort: no object per entry. Keys are compared by their first 8 bytes as one unsigned
 * long first, which settles most comparisons. Reused across batches; not thread-safe.
 */
final class BatchOrder {

    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final int INSERTION_SORT = 16;

    private int[] order = new int[0];
    private long[] prefix = new long[0];
    private int[] keyOffset = new int[0];
    private int[] keyLength = new int[0];
    private byte[] data;

    /** Entry indexes in key order; valid until the next call. */
    int[] sort(EntryBatch batch) {
        int n = batch.size();
        if (order.length < n) {
            int capacity = Math.max(n, order.length * 2);
            order = new int[capacity];
            prefix = new long[capacity];
            keyOffset = new int[capacity];
            keyLength = new int[capacity];
        }
        data = batch.data();
        boolean sorted = true;
        for (int i = 0; i < n; i++) {
            order[i] = i;
            int ko = batch.keyOffset(i);
            int kl = batch.keyLength(i);
            keyOffset[i] = ko;
            keyLength[i] = kl;
            prefix[i] = prefixOf(data, ko, kl);
            if (sorted && i > 0 && compare(i - 1, i) > 0) {
                sorted = false;
            }
        }
        if (!sorted) {
            quickSort(0, n - 1);
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

    /** True if the two entries have the same key. */
    boolean sameKey(byte[] data, int a, int b) {
        return prefix[a] == prefix[b] && keyLength[a] == keyLength[b]
                && Arrays.equals(data, keyOffset[a], keyOffset[a] + keyLength[a], data, keyOffset[b], keyOffset[b] + keyLength[b]);
    }

    private static long prefixOf(byte[] data, int offset, int length) {
        if (length >= 8) {
            return (long) LONG_BE.get(data, offset);
        }
        long p = 0;
        for (int i = 0; i < 8; i++) {
            p = p << 8 | (i < length ? data[offset + i] & 0xFF : 0);
        }
        return p;
    }

    /** Compares entries a and b: key bytes, then key length, then position (so the sort is total). */
    private int compare(int a, int b) {
        if (prefix[a] != prefix[b]) {
            return Long.compareUnsigned(prefix[a], prefix[b]);
        }
        int la = keyLength[a];
        int lb = keyLength[b];
        if (la > 8 && lb > 8) {
            int c = Arrays.compareUnsigned(data, keyOffset[a] + 8, keyOffset[a] + la, data, keyOffset[b] + 8, keyOffset[b] + lb);
            if (c != 0) {
                return c;
            }
        } else if (la != lb) {
            return Integer.compare(la, lb); // equal zero-padded prefixes: the shorter key is smaller
        }
        return Integer.compare(a, b);
    }

    private void quickSort(int lo, int hi) {
        while (hi - lo > INSERTION_SORT) {
            int mid = (lo + hi) >>> 1;
            if (compare(order[mid], order[lo]) < 0) {
                swap(mid, lo);
            }
            if (compare(order[hi], order[lo]) < 0) {
                swap(hi, lo);
            }
            if (compare(order[hi], order[mid]) < 0) {
                swap(hi, mid);
            }
            int pivot = order[mid];
            int i = lo;
            int j = hi;
            while (i <= j) {
                while (compare(order[i], pivot) < 0) {
                    i++;
                }
                while (compare(order[j], pivot) > 0) {
                    j--;
                }
                if (i <= j) {
                    swap(i, j);
                    i++;
                    j--;
                }
            }
            if (j - lo < hi - i) { // recurse into the smaller side: bounded stack
                quickSort(lo, j);
                lo = i;
            } else {
                quickSort(i, hi);
                hi = j;
            }
        }
        for (int i = lo + 1; i <= hi; i++) {
            int v = order[i];
            int j = i - 1;
            while (j >= lo && compare(order[j], v) > 0) {
                order[j + 1] = order[j];
                j--;
            }
            order[j + 1] = v;
        }
    }

    private void swap(int i, int j) {
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}
