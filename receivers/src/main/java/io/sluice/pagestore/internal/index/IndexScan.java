package io.sluice.pagestore.internal.index;

import io.sluice.pagestore.internal.page.RowStore;
import io.sluice.pagestore.internal.tree.BPlusTree;
import io.sluice.query.internal.IndexPage;
import java.util.Arrays;

/**
 * A range of an index tree in index order. A bound compares with the first {@code bound.length} bytes of an
 * index key, so every key starting with the bound is equal to it: an inclusive lower bound starts at the first
 * key not below the bound, an exclusive one after every key starting with it (at the bound's successor, the
 * smallest byte string above all of them); an inclusive upper bound stops after the last key starting with it,
 * an exclusive one before the first. {@code after} resumes past a key a visit received.
 */
final class IndexScan {

    private IndexScan() {
    }

    static void scan(BPlusTree tree, RowStore rows, byte[] lower, boolean lowerInclusive, byte[] upper,
                     boolean upperInclusive, byte[] after, IndexVisitor visitor) {
        byte[] from = lower;
        if (lower != null && !lowerInclusive) {
            from = successor(lower);
            if (from == null) {
                return; // nothing is above a run of FF bytes as a prefix
            }
        }
        boolean inclusive = true;
        if (after != null && (from == null || Arrays.compareUnsigned(after, from) >= 0)) {
            from = after;
            inclusive = false;
        }
        tree.scanKeysFrom(from, inclusive, (link, keyInItem) -> {
            byte[] indexKey = keyInItem != null ? keyInItem : rows.key(link);
            if (upper != null) {
                int c = Arrays.compareUnsigned(indexKey, 0, Math.min(indexKey.length, upper.length), upper, 0,
                        upper.length);
                if (c > 0 || (c == 0 && !upperInclusive)) {
                    return false;
                }
            }
            long entry = keyInItem != null ? link : IndexOps.getLong(rows.value(link), 0); // else an index row's link
            return visitor.visit(indexKey, rows.key(entry), rows.value(entry));
        });
    }

    /**
     * Appends up to {@code max} entries of the range, after {@code after}, to the page, in index order, in three
     * passes under the caller's partition lock: the index keys copied from the leaves (from an index row for a key
     * its item does not hold) with their entries' row links; every row's head touched without locks
     * ({@link RowStore#touch}: the hits lie in random data pages, and their misses then overlap); each entry's
     * value copied into an array of its own (the one its consumer keeps) under its data page's lock, once. Nothing
     * else is allocated per entry (but for keys held in index rows).
     *
     * @return whether the page got {@code max} entries (more may follow)
     */
    static boolean readPage(BPlusTree tree, RowStore rows, byte[] lower, boolean lowerInclusive, byte[] upper,
                            boolean upperInclusive, byte[] after, int max, IndexPage page) {
        byte[] from = lower;
        if (lower != null && !lowerInclusive) {
            from = successor(lower);
            if (from == null) {
                return false;
            }
        }
        boolean inclusive = true;
        if (after != null && (from == null || Arrays.compareUnsigned(after, from) >= 0)) {
            from = after;
            inclusive = false;
        }
        int first = page.size();
        long[] links = new long[Math.max(1, max)];
        tree.scanItemsFrom(from, inclusive, (link, leaf, keyAt, keyLength) -> {
            int size = page.size();
            int start = page.length();
            long entry;
            int k;
            if (keyAt >= 0) {
                k = page.reserve(keyLength);
                leaf.get(keyAt, page.array(), k, keyLength);
                entry = link;
            } else {
                byte[] indexKey = rows.key(link); // an index row: the key, and the entry's link as its value
                keyLength = indexKey.length;
                k = page.reserve(keyLength);
                System.arraycopy(indexKey, 0, page.array(), k, keyLength);
                entry = IndexOps.getLong(rows.value(link), 0);
            }
            if (upper != null) {
                int c = Arrays.compareUnsigned(page.array(), k, k + Math.min(keyLength, upper.length), upper, 0,
                        upper.length);
                if (c > 0 || (c == 0 && !upperInclusive)) {
                    page.truncate(size, start);
                    return false;
                }
            }
            links[size - first] = entry;
            page.addEntry(k, keyLength);
            return page.size() - first < max;
        });
        int n = page.size() - first;
        touched = rows.touch(links, n);
        int[] keyLength = new int[1];
        for (int i = 0; i < n; i++) {
            byte[] value = rows.value(links[i], keyLength);
            page.setValue(first + i, keyLength[0], value);
        }
        return n >= max;
    }

    /** What {@link RowStore#touch} read last: kept so that its reads are not dropped. */
    @SuppressWarnings("unused")
    private static int touched;

    /** The first index key at or after {@code from} (null: the first of all), or null if none is. */
    static byte[] firstKey(BPlusTree tree, RowStore rows, byte[] from) {
        byte[][] found = new byte[1][];
        tree.scanKeysFrom(from, true, (link, keyInItem) -> {
            found[0] = keyInItem != null ? keyInItem : rows.key(link);
            return false;
        });
        return found[0];
    }

    /** The smallest byte string greater than every string starting with {@code prefix}, or null if none is. */
    static byte[] successor(byte[] prefix) {
        int end = prefix.length;
        while (end > 0 && prefix[end - 1] == (byte) 0xFF) {
            end--;
        }
        if (end == 0) {
            return null;
        }
        byte[] s = Arrays.copyOf(prefix, end);
        s[end - 1]++;
        return s;
    }
}
