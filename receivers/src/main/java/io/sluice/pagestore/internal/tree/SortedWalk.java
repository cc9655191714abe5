package io.sluice.pagestore.internal.tree;

import static io.sluice.pagestore.internal.tree.TreePageIO.count;

import io.sluice.pagestore.internal.page.PageMemory;
import java.nio.ByteBuffer;

/**
 * A pass over a {@link BPlusTree} with keys in ascending order (a sorted batch): it stays on a leaf
 * while the keys belong to it, searching only past the last position, and climbs only as far as the
 * next key needs; inserts into the current leaf are queued and merged in one pass when the walk leaves
 * the leaf, so each item of the leaf moves once.
 *
 * <pre>{@code
 * walk.start(tree);
 * try {
 *     for (each key, ascending) {
 *         if (walk.seek(key...)) { walk.replace(newLink) or walk.remove(key...) or nothing; }
 *         else { walk.reserveForInsert(); write the row; walk.insert(link, key...); }
 *     }
 * } finally {
 *     walk.end();
 * }
 * }</pre>
 *
 * <p>The walk owns its state (the path, the position, the queued inserts); the tree holds none of it
 * and refuses single-key writes while a walk is on it. A walk is reused from batch to batch (one per
 * writing thread and region) and is on one tree at a time. Not thread-safe.
 */
public final class SortedWalk {

    private final TreePath path = new TreePath();
    /** The most items a leaf of the trees this walk goes on holds (narrow items: the most of any tree). */
    private final int leafCapacity;
    private BPlusTree tree;
    /** The tree's item size and leaf capacity. */
    private int item;
    private int treeLeafCapacity;
    /** Keys many to a leaf: search past the last position by galloping ({@link #start(BPlusTree, boolean)}). */
    private boolean dense;
    /** Whether the path's leaf and its upper bound are current: a key at or below the bound is in the leaf. */
    private boolean positioned;
    /** Level of the nearest separator to the right of the leaf on the path, or -1 (the leaf is rightmost). */
    private int upperDepth;

    // Inserts queued for the current leaf: positions in the leaf as it was before them (flushPending), and
    // their items as the leaf will hold them, back to back.
    private int pending;
    private final int[] pendingPosition;
    private final ByteBuffer pendingItems;

    /**
     * A walk for trees whose leaves hold at most {@code leafCapacity} items ({@link TreePageIO#leafCapacity}
     * of the page size: the narrow items' capacity, which covers trees of wide items too).
     */
    public SortedWalk(int leafCapacity) {
        this.leafCapacity = leafCapacity;
        this.pendingPosition = new int[leafCapacity];
        this.pendingItems = ByteBuffer.allocate(leafCapacity * TreePageIO.WIDE_ITEM);
    }

    /**
     * Starts a walk on the tree.
     *
     * @throws IllegalStateException if this walk is on a tree, or another walk is on this one
     */
    public void start(BPlusTree tree) {
        start(tree, false);
    }

    /**
     * Starts a walk on the tree. {@code dense}: the keys are expected to come many to a leaf (an index's changes
     * of a batch, a large share of its entries): a key after the first of a leaf is then searched by galloping from
     * the last position (the items just past it, warm or next in line) rather than by interpolating over the rest
     * of the leaf, which suits keys far apart in a cold leaf.
     *
     * @throws IllegalStateException if this walk is on a tree, or another walk is on this one
     */
    public void start(BPlusTree tree, boolean dense) {
        if (this.tree != null) {
            throw new IllegalStateException("this walk is on another tree; end() it first");
        }
        if (tree.leafCapacity() > leafCapacity) {
            throw new IllegalArgumentException("a walk for leaves of up to " + leafCapacity
                    + " items on a tree whose leaves hold " + tree.leafCapacity());
        }
        tree.startWalk();
        this.tree = tree;
        this.item = tree.itemSize();
        this.treeLeafCapacity = tree.leafCapacity();
        this.dense = dense;
        positioned = false;
        pending = 0;
    }

    /**
     * Ends the walk: merges queued inserts into their leaf (they reference rows already written, so they
     * always go in) and gives back the pages reserved for splits that did not happen, so an idle
     * partition holds no empty pages. Does nothing if the walk is not on a tree.
     */
    public void end() {
        BPlusTree t = tree;
        if (t == null) {
            return;
        }
        try {
            flushPending();
            t.releaseReserve();
        } finally {
            positioned = false;
            tree = null;
            t.endWalk();
        }
    }

    /** Finds the key, which must not be below the previous one of this walk. @return true if present */
    public boolean seek(byte[] key, int keyOffset, int keyLength) {
        return seek(key, keyOffset, keyLength, TreePageIO.prefixHigh(key, keyOffset, keyLength),
                TreePageIO.prefixLow(key, keyOffset, keyLength));
    }

    /** {@link #seek(byte[], int, int)} with the key's first 12 bytes already read ({@link TreePageIO#prefixHigh}). */
    public boolean seek(byte[] key, int keyOffset, int keyLength, long k0, int k1) {
        BPlusTree t = tree();
        if (!positioned) {
            flushPending();
            return reposition(key, keyOffset, keyLength);
        }
        path.keyHigh = k0;
        path.keyLow = k1;
        int bound = upperDepth;
        int c = bound < 0 ? -1 : t.compareWithSeparator(path, bound, key, keyOffset, keyLength);
        if (c <= 0) { // still this leaf: search after the last position
            path.equalSeparator(c == 0 ? bound : -1, c == 0 ? path.index[bound] : 0);
            int level = t.height() - 1;
            long leaf = path.page[level];
            PageMemory memory = t.memory();
            ByteBuffer b = memory.buffer(leaf);
            int p = memory.offset(leaf);
            // positions stay those of the leaf before the queued inserts: no queued key equals this one
            int from = path.index[level];
            int n = count(b, p);
            int r = from >= n ? -(n + 1) : ItemSearch.absolute(from > 0 && dense
                    ? ItemSearch.gallop(t.rows(), key, keyOffset, keyLength, k0, k1, b, TreePageIO.leafItem(p, from,
                    item), n - from, item)
                    : ItemSearch.locate(t.rows(), key, keyOffset, keyLength, k0, k1, b, TreePageIO.leafItem(p, from,
                    item), n - from, item), from);
            path.index[level] = r >= 0 ? r : -r - 1;
            path.found = r;
            return r >= 0;
        }
        // Past the leaf: climb to the lowest page whose range holds the key, descend from there.
        flushPending(); // changes the leaf only
        while (true) {
            int above = path.boundAbove(bound);
            c = above < 0 ? -1 : t.compareWithSeparator(path, above, key, keyOffset, keyLength);
            if (c <= 0) {
                path.equalSeparator(c == 0 ? above : -1, c == 0 ? path.index[above] : 0);
                boolean present = t.walkFrom(path, bound, path.index[bound], key, keyOffset, keyLength);
                upperDepth = path.boundAbove(t.height() - 1);
                positioned = true;
                return present;
            }
            bound = above;
        }
    }

    /** The link of the key the last {@link #seek} found. */
    public long link() {
        return tree().link(path);
    }

    /**
     * Takes the pages an insert may need before anything changes: call before writing the row of a key
     * the last {@link #seek} did not find, then {@link #insert}.
     *
     * @throws io.sluice.DataRegionFullException if the region cannot give them (nothing changed)
     */
    public void reserveForInsert() {
        tree().reserveForInsert();
    }

    /**
     * Inserts the key the last {@link #seek} did not find: queued while the leaf has room (its item made
     * now), merged in with the others when the walk leaves the leaf.
     */
    public void insert(long link, byte[] key, int keyOffset, int keyLength) {
        BPlusTree t = tree();
        if (positioned) {
            long leaf = path.page[t.height() - 1];
            int n = count(t.memory().buffer(leaf), t.memory().offset(leaf));
            if (n + pending < treeLeafCapacity) {
                pendingPosition[pending] = path.found < 0 ? -path.found - 1 : path.found;
                TreePageIO.itemBytes(pendingItems, pending * item, item, link, key, keyOffset, keyLength, path.keyHigh,
                        path.keyLow);
                pending++;
                t.countQueuedInsert();
                return;
            }
        }
        if (pending > 0) { // the leaf is full with the queued keys: merge them, find the key's place again
            flushPending();
            reposition(key, keyOffset, keyLength);
        }
        boolean wasEmpty = t.isEmpty();
        if (!t.insert(path, link, key, keyOffset, keyLength)) {
            positioned = false; // a split changed the path
        } else if (wasEmpty) { // the first leaf: the walk is on it, with nothing to its right
            positioned = true;
            upperDepth = -1;
        }
    }

    /**
     * Replaces the link of the key the last {@link #seek} found; the old row is freed (or kept by a separator),
     * unless the item holds its key whole ({@link BPlusTree#keyInItem}: the link was the caller's, nothing is freed).
     */
    public void replace(long newLink) {
        tree().replace(path, newLink);
    }

    /** Removes the key the last {@link #seek} found, freeing its row (none if the item held its key whole). */
    public void remove(byte[] key, int keyOffset, int keyLength) {
        BPlusTree t = tree();
        if (pending > 0) { // positions change with the queued inserts: merge them and find the key again
            flushPending();
            reposition(key, keyOffset, keyLength);
        }
        t.remove(path);
        positioned = false; // pages may have merged
    }

    private BPlusTree tree() {
        BPlusTree t = tree;
        if (t == null) {
            throw new IllegalStateException("the walk is not on a tree: start(tree) first");
        }
        return t;
    }

    /** A fresh descent for the key, finding the leaf's upper bound too. */
    private boolean reposition(byte[] key, int keyOffset, int keyLength) {
        boolean present = tree.descend(path, key, keyOffset, keyLength);
        positioned = !tree.isEmpty();
        if (positioned) {
            upperDepth = path.boundAbove(tree.height() - 1);
        }
        return present;
    }

    /**
     * Merges the queued inserts into the current leaf, from the end, moving each old item once. Queued inserts
     * that go in at the same position (keys appended past the leaf's last item, or between the same two items)
     * lie next to each other in the leaf and in the queue: they are copied in one bulk put.
     */
    private void flushPending() {
        if (pending == 0) {
            return;
        }
        PageMemory memory = tree.memory();
        long leaf = path.page[tree.height() - 1];
        ByteBuffer b = memory.buffer(leaf);
        int p = memory.offset(leaf);
        int n = count(b, p);
        int end = n;
        for (int j = pending - 1; j >= 0; ) {
            int pos = pendingPosition[j];
            int first = j; // the run of queued inserts at this position: first..j
            while (first > 0 && pendingPosition[first - 1] == pos) {
                first--;
            }
            int from = TreePageIO.leafItem(p, pos, item);
            TreePageIO.move(b, from, from + (j + 1) * item, (end - pos) * item);
            b.put(from + first * item, pendingItems, first * item, (j - first + 1) * item);
            end = pos;
            j = first - 1;
        }
        count(b, p, n + pending);
        pending = 0;
        positioned = false; // positions of the leaf changed
    }
}
