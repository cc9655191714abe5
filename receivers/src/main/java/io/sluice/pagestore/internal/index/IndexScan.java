package io.sluice.pagestore.internal.index;

import io.sluice.pagestore.internal.page.RowStore;
import io.sluice.pagestore.internal.tree.BPlusTree;
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
