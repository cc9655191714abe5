package io.sluice.pagestore.internal.tree;

import static io.sluice.pagestore.internal.tree.TreePageIO.WIDE_ITEM;
import static io.sluice.pagestore.internal.tree.TreePageIO.WIDE_PREFIX;
import static io.sluice.pagestore.internal.tree.TreePageIO.PREFIX;

import io.sluice.pagestore.internal.page.RowStore;
import java.nio.ByteBuffer;

/**
 * A key against the items of a tree page ({@link TreePageIO}): compared on the items' 12-byte prefixes
 * as two integers, then (wide items) on their next 16 bytes as two more, and with the row's key only when
 * a key longer than what the item carries ties on it. {@code size} is the tree's item size. A key's
 * prefix is passed along as {@code k0} (bytes 0-7) and {@code k1} (bytes 8-11), read once per key.
 * Results of the searches: the index of the equal item, or {@code -(insertion point) - 1}.
 */
final class ItemSearch {

    private ItemSearch() {
    }

    /** Binary search over {@code n} items from {@code base}. */
    static int search(RowStore rows, byte[] key, int keyOffset, int keyLength, long k0, int k1, ByteBuffer b,
                      int base, int n, int size) {
        int lo = 0;
        int hi = n - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = compare(rows, key, keyOffset, keyLength, k0, k1, b, base + mid * size, size);
            if (c > 0) {
                lo = mid + 1;
            } else if (c < 0) {
                hi = mid - 1;
            } else {
                return mid;
            }
        }
        return -(lo + 1);
    }

    /**
     * {@link #search} for a cold leaf: guesses the key's position by interpolating its 12-byte prefix
     * between the first and last item's, then gallops from the guess and finishes with a binary search
     * of the bracket. The first and last item are read independently (their misses overlap) and the
     * guess usually lands within a few items, so a cold leaf costs about two rounds of cache misses
     * instead of one per binary-search probe. Same result as {@link #search}, whatever the keys.
     */
    static int locate(RowStore rows, byte[] key, int keyOffset, int keyLength, long k0, int k1, ByteBuffer b,
                      int base, int n, int size) {
        if (n < 8) {
            return search(rows, key, keyOffset, keyLength, k0, k1, b, base, n, size);
        }
        int last = n - 1;
        int first = base;
        int end = base + last * size;
        long f0 = TreePageIO.prefixHigh(b, first);
        long l0 = TreePageIO.prefixHigh(b, end);
        int f1 = TreePageIO.prefixLow(b, first);
        int l1 = TreePageIO.prefixLow(b, end);
        int c = compare(rows, key, keyOffset, keyLength, k0, k1, b, first, size);
        if (c <= 0) {
            return c == 0 ? 0 : -1;
        }
        c = compare(rows, key, keyOffset, keyLength, k0, k1, b, end, size);
        if (c >= 0) {
            return c == 0 ? last : -(n + 1);
        }
        // first < key < last: their common leading bits are the key's too; interpolate on the next 64
        double fraction;
        if (size == WIDE_ITEM) {
            fraction = wideFraction(key, keyOffset, keyLength, k0, k1, b, first, end);
        } else {
            int shift = f0 != l0 ? Long.numberOfLeadingZeros(f0 ^ l0) : 64;
            long span = window(l0, l1, shift) - window(f0, f1, shift);
            long offset = window(k0, k1, shift) - window(f0, f1, shift);
            fraction = span == 0 ? 0.5 : unsigned(offset) / unsigned(span); // a tie on 12 bytes: from the middle
        }
        int below = 0; // an item known smaller than the key
        int above = last; // an item known greater
        int guess = 1 + (int) (fraction * (last - 1));
        if (guess >= last) {
            guess = last - 1;
        }
        c = compare(rows, key, keyOffset, keyLength, k0, k1, b, base + guess * size, size);
        if (c == 0) {
            return guess;
        }
        if (c > 0) {
            below = guess;
            for (int step = 1; below + step < above; step <<= 1) {
                int i = below + step;
                c = compare(rows, key, keyOffset, keyLength, k0, k1, b, base + i * size, size);
                if (c == 0) {
                    return i;
                }
                if (c < 0) {
                    above = i;
                    break;
                }
                below = i;
            }
        } else {
            above = guess;
            for (int step = 1; above - step > below; step <<= 1) {
                int i = above - step;
                c = compare(rows, key, keyOffset, keyLength, k0, k1, b, base + i * size, size);
                if (c == 0) {
                    return i;
                }
                if (c > 0) {
                    below = i;
                    break;
                }
                above = i;
            }
        }
        int lo = below + 1;
        return absolute(search(rows, key, keyOffset, keyLength, k0, k1, b, base + lo * size, above - lo, size),
                lo);
    }

    /**
     * {@link #search} for a key expected near the first item (a sorted walk moving on to the next child):
     * probes items 0, 1, 3, 7, ... until one is not below the key, then searches the bracket, so a key k
     * items on costs about 2 log2(k + 1) comparisons instead of log2(n). Same result as {@link #search}.
     */
    static int gallop(RowStore rows, byte[] key, int keyOffset, int keyLength, long k0, int k1, ByteBuffer b,
                      int base, int n, int size) {
        int lo = 0; // items before lo are below the key
        int i = 0;
        while (i < n) {
            int c = compare(rows, key, keyOffset, keyLength, k0, k1, b, base + i * size, size);
            if (c == 0) {
                return i;
            }
            if (c < 0) {
                break;
            }
            lo = i + 1;
            i = 2 * i + 1;
        }
        int hi = Math.min(i, n); // item hi (if any) is above the key
        return absolute(search(rows, key, keyOffset, keyLength, k0, k1, b, base + lo * size, hi - lo, size), lo);
    }

    /** A search result over items from index {@code from}, made relative to index 0. */
    static int absolute(int relative, int from) {
        return relative >= 0 ? relative + from : relative - from;
    }

    /** 64 bits of a 96-bit prefix (high 64, low 32) from bit {@code shift} on (0-64). */
    private static long window(long high, int low, int shift) {
        long l = low & 0xFFFF_FFFFL;
        if (shift == 0) {
            return high;
        }
        if (shift == 64) {
            return l;
        }
        return high << shift | (shift <= 32 ? l >>> (32 - shift) : l << (shift - 32));
    }

    /**
     * Where the key lies between a wide leaf's first and last item, 0 to 1: interpolated on the 64 bits of the
     * items' 28 key bytes from the first bit where first and last differ (index keys of one field value tie on
     * their first 12 bytes and differ past them). 0.5 if the two tie on all 28.
     */
    private static double wideFraction(byte[] key, int keyOffset, int keyLength, long k0, int k1, ByteBuffer b,
                                       int first, int last) {
        // the 28 bytes as four big-endian words: bytes 0-7, 8-15, 16-23, 24-27 and four zero bytes
        long f0 = TreePageIO.prefixHigh(b, first);
        long fe0 = TreePageIO.extensionHigh(b, first);
        long fe1 = TreePageIO.extensionLow(b, first);
        long f1 = (TreePageIO.prefixLow(b, first) & 0xFFFF_FFFFL) << 32 | fe0 >>> 32;
        long f2 = fe0 << 32 | fe1 >>> 32;
        long f3 = fe1 << 32;
        long l0 = TreePageIO.prefixHigh(b, last);
        long le0 = TreePageIO.extensionHigh(b, last);
        long le1 = TreePageIO.extensionLow(b, last);
        long l1 = (TreePageIO.prefixLow(b, last) & 0xFFFF_FFFFL) << 32 | le0 >>> 32;
        long l2 = le0 << 32 | le1 >>> 32;
        long l3 = le1 << 32;
        int shift;
        if (f0 != l0) {
            shift = Long.numberOfLeadingZeros(f0 ^ l0);
        } else if (f1 != l1) {
            shift = 64 + Long.numberOfLeadingZeros(f1 ^ l1);
        } else if (f2 != l2) {
            shift = 128 + Long.numberOfLeadingZeros(f2 ^ l2);
        } else if (f3 != l3) {
            shift = 192 + Long.numberOfLeadingZeros(f3 ^ l3);
        } else {
            return 0.5;
        }
        long ke0 = TreePageIO.keyLong(key, keyOffset, keyLength, PREFIX);
        long ke1 = TreePageIO.keyLong(key, keyOffset, keyLength, PREFIX + 8);
        long kk1 = (k1 & 0xFFFF_FFFFL) << 32 | ke0 >>> 32;
        long kk2 = ke0 << 32 | ke1 >>> 32;
        long kk3 = ke1 << 32;
        long from = window(f0, f1, f2, f3, shift);
        long span = window(l0, l1, l2, l3, shift) - from;
        long offset = window(k0, kk1, kk2, kk3, shift) - from;
        return unsigned(offset) / unsigned(span);
    }

    /** 64 bits of a 256-bit value (four words, most significant first) from bit {@code shift} on (0-255). */
    private static long window(long w0, long w1, long w2, long w3, int shift) {
        int q = shift >>> 6;
        int r = shift & 63;
        long hi = q == 0 ? w0 : q == 1 ? w1 : q == 2 ? w2 : w3;
        if (r == 0) {
            return hi;
        }
        long lo = q == 0 ? w1 : q == 1 ? w2 : q == 2 ? w3 : 0;
        return hi << r | lo >>> (64 - r);
    }

    private static double unsigned(long v) {
        return (v >>> 1) * 2.0 + (v & 1);
    }

    /**
     * Compares the key with an item's key, unsigned byte order. Equal padded prefixes with a key of at
     * most 12 bytes (28 for wide items) mean one key starts the other, so lengths decide; only longer keys
     * that tie are compared with the row, in place.
     */
    static int compare(RowStore rows, byte[] key, int keyOffset, int keyLength, long k0, int k1, ByteBuffer b,
                       int item, int size) {
        long s0 = TreePageIO.prefixHigh(b, item);
        if (k0 != s0) {
            return Long.compareUnsigned(k0, s0);
        }
        int s1 = TreePageIO.prefixLow(b, item);
        if (k1 != s1) {
            return Integer.compareUnsigned(k1, s1);
        }
        int stored = TreePageIO.keyLength(b, item);
        if (keyLength <= PREFIX || stored <= PREFIX) {
            return Integer.compare(keyLength, stored);
        }
        if (size == WIDE_ITEM) {
            return compareExtension(rows, key, keyOffset, keyLength, b, item, stored);
        }
        return rows.compareKeyTail(TreePageIO.link(b, item), key, keyOffset, keyLength, PREFIX);
    }

    /** Past a tie on the first 12 bytes of two keys longer than that: a wide item's next 16 bytes, then the row. */
    private static int compareExtension(RowStore rows, byte[] key, int keyOffset, int keyLength, ByteBuffer b,
                                        int item, int stored) {
        long k = TreePageIO.keyLong(key, keyOffset, keyLength, PREFIX);
        long s = TreePageIO.extensionHigh(b, item);
        if (k != s) {
            return Long.compareUnsigned(k, s);
        }
        k = TreePageIO.keyLong(key, keyOffset, keyLength, PREFIX + 8);
        s = TreePageIO.extensionLow(b, item);
        if (k != s) {
            return Long.compareUnsigned(k, s);
        }
        if (keyLength <= WIDE_PREFIX || stored <= WIDE_PREFIX) {
            return Integer.compare(keyLength, stored);
        }
        return rows.compareKeyTail(TreePageIO.link(b, item), key, keyOffset, keyLength, WIDE_PREFIX);
    }
}
