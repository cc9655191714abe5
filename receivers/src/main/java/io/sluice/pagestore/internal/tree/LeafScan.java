package io.sluice.pagestore.internal.tree;

import static io.sluice.pagestore.internal.tree.TreePageIO.ITEMS;
import static io.sluice.pagestore.internal.tree.TreePageIO.child;
import static io.sluice.pagestore.internal.tree.TreePageIO.count;

import io.sluice.pagestore.internal.page.PageMemory;
import io.sluice.pagestore.internal.page.RowStore;
import java.nio.ByteBuffer;

/**
 * Reads a {@link BPlusTree}'s entries in key order ({@link BPlusTree#scan}): one descent to the first
 * leaf, then leaf after leaf through the inner pages of the path (leaves have no sibling links).
 */
final class LeafScan {

    private LeafScan() {
    }

    /**
     * Visits entries from the first key greater than {@code after} (or equal to it, if {@code inclusive};
     * {@code null}: the first key) until the visitor stops: {@code visitor} with each link, or, if it is null,
     * {@code keys} with each link and the key of an item that holds a key of up to {@code inItem} bytes whole
     * (0: none does), or, if both are null, {@code items} with each link and where such a key lies in the leaf.
     */
    static void visit(PageMemory memory, RowStore rows, int separators, int item, long root, int height, byte[] after,
                      boolean inclusive, BPlusTree.Visitor visitor, BPlusTree.KeyVisitor keys,
                      BPlusTree.ItemVisitor items, int inItem) {
        long[] pages = new long[height];
        int[] index = new int[height];
        long k0 = after == null ? 0 : TreePageIO.prefixHigh(after, 0, after.length);
        int k1 = after == null ? 0 : TreePageIO.prefixLow(after, 0, after.length);
        long page = root;
        for (int d = 0; d < height - 1; d++) {
            ByteBuffer b = memory.buffer(page);
            int p = memory.offset(page);
            int child = 0;
            if (after != null) {
                int r = ItemSearch.search(rows, after, 0, after.length, k0, k1, b, p + separators, count(b, p), item);
                child = r >= 0 ? r : -r - 1;
            }
            pages[d] = page;
            index[d] = child;
            page = child(b, p, child);
        }
        int pos = 0;
        if (after != null) {
            ByteBuffer b = memory.buffer(page);
            int p = memory.offset(page);
            int r = ItemSearch.search(rows, after, 0, after.length, k0, k1, b, p + ITEMS, count(b, p), item);
            pos = r >= 0 ? (inclusive ? r : r + 1) : -r - 1;
        }
        while (true) {
            ByteBuffer b = memory.buffer(page);
            int p = memory.offset(page);
            for (int n = count(b, p); pos < n; pos++) {
                int at = TreePageIO.leafItem(p, pos, item);
                if (visitor != null) {
                    if (!visitor.visit(TreePageIO.link(b, at))) {
                        return;
                    }
                } else if (keys != null) {
                    int keyLength = TreePageIO.keyLength(b, at);
                    byte[] key = keyLength <= inItem ? TreePageIO.itemKey(b, at, keyLength) : null;
                    if (!keys.visit(TreePageIO.link(b, at), key)) {
                        return;
                    }
                } else {
                    int keyLength = TreePageIO.keyLength(b, at);
                    if (!items.visit(TreePageIO.link(b, at), b, keyLength <= inItem ? TreePageIO.keyAt(at) : -1,
                            keyLength)) {
                        return;
                    }
                }
            }
            int d = height - 2;
            while (d >= 0 && index[d] >= count(memory.buffer(pages[d]), memory.offset(pages[d]))) {
                d--;
            }
            if (d < 0) {
                return;
            }
            index[d]++;
            page = child(memory.buffer(pages[d]), memory.offset(pages[d]), index[d]);
            for (d++; d < height - 1; d++) {
                pages[d] = page;
                index[d] = 0;
                page = child(memory.buffer(page), memory.offset(page), 0);
            }
            pos = 0;
        }
    }
}
