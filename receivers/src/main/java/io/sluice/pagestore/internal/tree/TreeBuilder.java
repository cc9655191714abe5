package io.sluice.pagestore.internal.tree;

import static io.sluice.pagestore.internal.tree.TreePageIO.count;

import io.sluice.pagestore.internal.page.FreePages;
import io.sluice.pagestore.internal.page.PageHeader;
import io.sluice.pagestore.internal.page.PageMemory;
import io.sluice.pagestore.internal.page.RowStore;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Builds an empty {@link BPlusTree} bottom-up from keys given in strictly ascending order (a partition file's
 * entries, a sorted run of index keys): items are written into leaves one after the other, each leaf filled to
 * {@value #FILL_PERCENT}% of its capacity, with no descent, search or item move per key; {@link #finish} then
 * writes the inner levels from the leaves' last items, every inner page filled to the same share (and the pages
 * of a level evenly), and hands the tree its root. The result is the tree inserts would have built, but for the
 * fill: the same page layout, separators that are copies of the last item of the subtree to their left (live
 * rows, not ghosts), every leaf at one depth; reads, writes, checks and destruction treat it alike.
 *
 * <pre>{@code
 * TreeBuilder b = new TreeBuilder(tree);   // the tree must be empty; single-key writes wait for finish/abort
 * for (each key, strictly ascending) {
 *     b.reserve();                         // takes a leaf if needed: may fail, before the row is written
 *     write the row;
 *     b.add(link, key...);
 * }
 * b.finish();                              // or b.abort(): frees the leaves and the rows they hold
 * }</pre>
 *
 * <p>Why the fill: leaves packed full would split on the first insert that lands in them (a backup catching up
 * after its adoption writes keys all over the partition); {@value #FILL_PERCENT}% leaves room for a few per leaf
 * at ~11% more tree pages. The builder keeps one page id per leaf on the heap (8 bytes per ~150 entries) until
 * {@link #finish}. Not thread-safe: used under the partition's write lock.
 */
public final class TreeBuilder {

    /** Share of a page's capacity a built leaf or inner page is filled to, in percent. */
    static final int FILL_PERCENT = 90;

    private final BPlusTree tree;
    private final PageMemory memory;
    private final FreePages freeList;
    private final RowStore rows;
    private final int item;
    /** Items per built leaf; children per built inner page. */
    private final int leafFill;
    private final int innerFill;
    /** The leaves written so far, in key order (the last is the one being filled). */
    private long[] leaves = new long[64];
    private int leafCount;
    /** The leaf being filled: its buffer, offset and item count. */
    private ByteBuffer leafBuffer;
    private int leafOffset;
    private int items;
    /** Inner pages written by {@link #finish} so far (freed if it fails). */
    private long[] inner = new long[0];
    private int innerCount;
    private long size;
    private boolean open;

    /**
     * A builder of the tree, which must be empty; until {@link #finish} or {@link #abort} the tree refuses other
     * writes (as during a {@link SortedWalk}).
     *
     * @throws IllegalStateException if the tree holds entries or a walk is on it
     */
    public TreeBuilder(BPlusTree tree) {
        if (!tree.isEmpty()) {
            throw new IllegalStateException("a tree is built bottom-up only while it is empty");
        }
        tree.startWalk();
        this.tree = tree;
        this.memory = tree.memory();
        this.rows = tree.rows();
        this.freeList = rows.freeList();
        this.item = tree.itemSize();
        this.leafFill = Math.max(1, tree.leafCapacity() * FILL_PERCENT / 100);
        // >= 3 children a page: the even shares of a level then give every page at least 2 (one separator)
        this.innerFill = Math.min(tree.innerCapacity() + 1, Math.max(3, (tree.innerCapacity() + 1) * FILL_PERCENT / 100));
        this.open = true;
    }

    /** Entries added so far. */
    public long size() {
        return size;
    }

    /**
     * Makes room for the next {@link #add}: takes a new leaf when the one being filled is full (call before the
     * row of the key is written, so a region that is full fails before it).
     *
     * @throws io.sluice.DataRegionFullException if the region has no page for it (nothing changed)
     */
    public void reserve() {
        if (leafBuffer != null && items < leafFill) {
            return;
        }
        long page = freeList.takeEmptyPage();
        TreePageIO.init(memory.buffer(page), memory.offset(page), PageHeader.TYPE_LEAF);
        if (leafCount == leaves.length) {
            leaves = Arrays.copyOf(leaves, leafCount * 2);
        }
        leaves[leafCount++] = page;
        leafBuffer = memory.buffer(page);
        leafOffset = memory.offset(page);
        items = 0;
    }

    /**
     * Appends the key, greater than every key added before (not checked here), with its row's link, after a
     * {@link #reserve}. {@code high} and {@code low} are the key's {@link TreePageIO#prefixHigh} and
     * {@link TreePageIO#prefixLow}.
     */
    public void add(long link, byte[] key, int keyOffset, int keyLength, long high, int low) {
        TreePageIO.itemBytes(leafBuffer, TreePageIO.leafItem(leafOffset, items, item), item, link, key, keyOffset,
                keyLength, high, low);
        items++;
        count(leafBuffer, leafOffset, items);
        size++;
    }

    /**
     * Writes the inner levels and gives the tree its root, height and size; the tree then takes writes again.
     * Nothing added: the tree stays empty.
     *
     * @throws io.sluice.DataRegionFullException if the region has no page for an inner page: the builder then
     *                                           {@link #abort}s (the tree stays empty)
     */
    public void finish() {
        checkOpen();
        if (leafCount > 0 && items == 0) { // reserved, never filled
            freeList.releaseEmptyPage(leaves[--leafCount]);
        }
        if (leafCount == 0) {
            close();
            return;
        }
        balanceLastLeaves();
        try {
            long[] level = Arrays.copyOf(leaves, leafCount);
            long[] maxLeaf = Arrays.copyOf(leaves, leafCount); // per node: the leaf holding its greatest key
            int count = leafCount;
            int height = 1;
            while (count > 1) {
                int pages = (count + innerFill - 1) / innerFill;
                long[] up = new long[pages];
                long[] upMax = new long[pages];
                for (int i = 0, from = 0; i < pages; i++) {
                    int to = (int) ((long) count * (i + 1) / pages); // even shares: every page gets >= 2 children
                    up[i] = innerPage(level, maxLeaf, from, to);
                    upMax[i] = maxLeaf[to - 1];
                    from = to;
                }
                level = up;
                maxLeaf = upMax;
                count = pages;
                height++;
            }
            tree.built(level[0], height, size);
        } catch (RuntimeException e) {
            abort();
            throw e;
        }
        close();
    }

    /**
     * Gives back every page the builder took and frees the rows its leaves hold (a load that failed); the tree
     * stays empty and takes writes again. Does nothing after {@link #finish}.
     */
    public void abort() {
        if (!open) {
            return;
        }
        for (int i = 0; i < innerCount; i++) {
            freeList.releaseEmptyPage(inner[i]);
        }
        for (int l = 0; l < leafCount; l++) {
            long page = leaves[l];
            ByteBuffer b = memory.buffer(page);
            int p = memory.offset(page);
            for (int i = 0, n = count(b, p); i < n; i++) {
                int at = TreePageIO.leafItem(p, i, item);
                if (!tree.keyInItem(TreePageIO.keyLength(b, at))) {
                    rows.remove(TreePageIO.link(b, at));
                }
            }
            freeList.releaseEmptyPage(page);
        }
        leafCount = 0;
        innerCount = 0;
        size = 0;
        close();
    }

    /** An inner page over nodes {@code [from, to)} of the level below: their ids and, between them, separators. */
    private long innerPage(long[] level, long[] maxLeaf, int from, int to) {
        long page = freeList.takeEmptyPage();
        if (innerCount == inner.length) {
            inner = Arrays.copyOf(inner, Math.max(16, innerCount * 2));
        }
        inner[innerCount++] = page;
        ByteBuffer b = memory.buffer(page);
        int p = memory.offset(page);
        TreePageIO.init(b, p, PageHeader.TYPE_INNER);
        int separators = tree.separatorsStart();
        for (int c = from; c < to; c++) {
            TreePageIO.child(b, p, c - from, level[c]);
            if (c < to - 1) { // the greatest key of child c: the last item of its rightmost leaf
                long leaf = maxLeaf[c];
                ByteBuffer lb = memory.buffer(leaf);
                int lp = memory.offset(leaf);
                b.put(TreePageIO.separatorItem(p, separators, c - from, item), lb,
                        TreePageIO.leafItem(lp, count(lb, lp) - 1, item), item);
            }
        }
        count(b, p, to - from - 1);
        return page;
    }

    /** A last leaf under half full takes items from the one before it, so that both are at least half full. */
    private void balanceLastLeaves() {
        if (leafCount < 2) {
            return;
        }
        long last = leaves[leafCount - 1];
        long before = leaves[leafCount - 2];
        ByteBuffer lb = memory.buffer(last);
        int lp = memory.offset(last);
        ByteBuffer bb = memory.buffer(before);
        int bp = memory.offset(before);
        int n = count(lb, lp);
        int m = count(bb, bp);
        if (2 * n >= leafFill) {
            return;
        }
        int move = (m - n) / 2;
        TreePageIO.move(lb, TreePageIO.leafItem(lp, 0, item), TreePageIO.leafItem(lp, move, item), n * item);
        lb.put(TreePageIO.leafItem(lp, 0, item), bb, TreePageIO.leafItem(bp, m - move, item), move * item);
        count(lb, lp, n + move);
        count(bb, bp, m - move);
    }

    private void checkOpen() {
        if (!open) {
            throw new IllegalStateException("the builder finished or was aborted");
        }
    }

    private void close() {
        open = false;
        leafBuffer = null;
        tree.endWalk();
    }
}
