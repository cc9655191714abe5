package io.sluice.pagestore.internal.tree;

import static io.sluice.pagestore.internal.tree.TreePageIO.child;
import static io.sluice.pagestore.internal.tree.TreePageIO.count;

import io.sluice.pagestore.internal.page.FreePages;
import io.sluice.pagestore.internal.page.PageMemory;
import io.sluice.pagestore.internal.page.RowStore;
import java.nio.ByteBuffer;

/**
 * Takes items out of a {@link BPlusTree}: a key's removal (its row freed, or left to the separator that
 * refers to it as a ghost) and the rebalancing it causes up the path (empty pages freed, small ones merged
 * into a sibling, the root lowered), and destroying the whole tree. Page layout: {@link TreePageIO}.
 * Runs under the tree's writer (the partition's write lock), like every tree write.
 */
final class TreeRemoval {

    private final BPlusTree tree;
    private final PageMemory memory;
    private final FreePages freeList;
    private final RowStore rows;
    private final PageReserve reserve;

    /** The page layout is the tree's ({@link BPlusTree#itemSize}), read from it: an empty tree may change it. */
    TreeRemoval(BPlusTree tree, RowStore rows, PageReserve reserve) {
        this.tree = tree;
        this.rows = rows;
        this.memory = rows.memory();
        this.freeList = rows.freeList();
        this.reserve = reserve;
    }

    /** Removes the key the path found, freeing its row, merging pages that got small. */
    void remove(TreePath path) {
        int d = tree.height() - 1;
        long leaf = path.page[d];
        ByteBuffer b = memory.buffer(leaf);
        int p = memory.offset(leaf);
        int at = leafItem(p, path.found);
        long old = TreePageIO.link(b, at);
        boolean ownsRow = !tree.keyInItem(TreePageIO.keyLength(b, at));
        TreePageIO.removeLeafItem(b, p, count(b, p), path.found, tree.itemSize());
        if (ownsRow) { // a key held whole by its item has no row of the tree's (nor does its separator own one)
            releaseRow(path, old); // before pages merge: the equal separator's position is still valid
        }
        rebalance(path);
    }

    /**
     * Frees a row no leaf refers to any more, or leaves it to the separator on the path that still refers to it
     * (a ghost, freed when the separator goes).
     */
    void releaseRow(TreePath path, long old) {
        if (path.equalSeparatorDepth >= 0) {
            long page = path.page[path.equalSeparatorDepth];
            ByteBuffer b = memory.buffer(page);
            int item = separatorItem(memory.offset(page), path.equalSeparatorIndex);
            if (TreePageIO.link(b, item) == old) {
                TreePageIO.markGhost(b, item);
                return;
            }
        }
        rows.remove(old);
    }

    /** After a leaf lost an item: frees empty pages and merges small ones into a sibling, up the path. */
    private void rebalance(TreePath path) {
        int height = tree.height();
        int d = height - 1;
        boolean empty = count(memory.buffer(path.page[d]), memory.offset(path.page[d])) == 0;
        while (d > 0) {
            long page = path.page[d];
            long parent = path.page[d - 1];
            int i = path.index[d - 1];
            ByteBuffer pb = memory.buffer(parent);
            int pp = memory.offset(parent);
            int pn = count(pb, pp);
            if (empty) {
                freeList.releaseEmptyPage(page);
                if (pn == 0) { // it was the parent's only child: the parent is empty too
                    d--;
                    continue;
                }
                removeFromInner(pb, pp, pn, i < pn ? i : i - 1, i, true);
                empty = false;
                d--;
                continue;
            }
            boolean leaf = d == height - 1;
            ByteBuffer b = memory.buffer(page);
            int p = memory.offset(page);
            int n = count(b, p);
            if (n >= (leaf ? tree.leafCapacity() : tree.innerCapacity()) / 4) {
                break;
            }
            if (i > 0 && merge(child(pb, pp, i - 1), page, leaf, pb, pp, i - 1)) {
                d--;
                continue;
            }
            if (i < pn && merge(page, child(pb, pp, i + 1), leaf, pb, pp, i)) {
                d--;
                continue;
            }
            break;
        }
        long root = tree.root();
        if (d == 0 && empty) {
            freeList.releaseEmptyPage(root);
            tree.setRoot(PageMemory.NULL_PAGE, 0);
            reserve.release(); // an empty tree holds no pages
            return;
        }
        while (height > 1) {
            ByteBuffer b = memory.buffer(root);
            int p = memory.offset(root);
            if (count(b, p) > 0) {
                break;
            }
            long only = child(b, p, 0);
            freeList.releaseEmptyPage(root);
            root = only;
            height--;
        }
        tree.setRoot(root, height);
    }

    /** Merges right into left if they fit in one page; separator s of the parent lies between them. */
    private boolean merge(long left, long right, boolean leaf, ByteBuffer pb, int pp, int s) {
        ByteBuffer lb = memory.buffer(left);
        int lp = memory.offset(left);
        ByteBuffer rb = memory.buffer(right);
        int rp = memory.offset(right);
        int ln = count(lb, lp);
        int rn = count(rb, rp);
        int pn = count(pb, pp);
        if (leaf) {
            if (ln + rn > tree.leafCapacity()) {
                return false;
            }
            lb.put(leafItem(lp, ln), rb, leafItem(rp, 0), rn * tree.itemSize());
            count(lb, lp, ln + rn);
            freeList.releaseEmptyPage(right);
            removeFromInner(pb, pp, pn, s, s + 1, true);
            return true;
        }
        if (ln + 1 + rn > tree.innerCapacity()) {
            return false;
        }
        // the parent's separator comes down between the two (with its ghost flag: it still owns its row)
        lb.put(separatorItem(lp, ln), pb, separatorItem(pp, s), tree.itemSize());
        lb.put(separatorItem(lp, ln + 1), rb, separatorItem(rp, 0), rn * tree.itemSize());
        lb.put(TreePageIO.childSlot(lp, ln + 1), rb, TreePageIO.childSlot(rp, 0), (rn + 1) * TreePageIO.CHILD);
        count(lb, lp, ln + 1 + rn);
        freeList.releaseEmptyPage(right);
        removeFromInner(pb, pp, pn, s, s + 1, false);
        return true;
    }

    /** Removes separator s and child c from an inner page; frees a ghost row if the separator goes away. */
    private void removeFromInner(ByteBuffer b, int p, int n, int s, int c, boolean dropSeparator) {
        int at = separatorItem(p, s);
        if (dropSeparator && TreePageIO.ghost(b, at)) {
            rows.remove(TreePageIO.link(b, at));
        }
        TreePageIO.removeSeparator(b, p, tree.separatorsStart(), n, s, c, tree.itemSize());
    }

    /** Frees every page and row below and including {@code page} ({@code levelsBelow} 0: a leaf). */
    void destroy(long page, int levelsBelow) {
        ByteBuffer b = memory.buffer(page);
        int p = memory.offset(page);
        int n = count(b, p);
        if (levelsBelow == 0) {
            for (int i = 0; i < n; i++) {
                int item = leafItem(p, i);
                if (!tree.keyInItem(TreePageIO.keyLength(b, item))) {
                    rows.remove(TreePageIO.link(b, item));
                }
            }
        } else {
            for (int i = 0; i < n; i++) {
                int item = separatorItem(p, i);
                if (TreePageIO.ghost(b, item)) {
                    rows.remove(TreePageIO.link(b, item));
                }
            }
            for (int i = 0; i <= n; i++) {
                destroy(child(b, p, i), levelsBelow - 1);
            }
        }
        freeList.releaseEmptyPage(page);
    }

    private int separatorItem(int p, int i) {
        return TreePageIO.separatorItem(p, tree.separatorsStart(), i, tree.itemSize());
    }

    private int leafItem(int p, int i) {
        return TreePageIO.leafItem(p, i, tree.itemSize());
    }
}
