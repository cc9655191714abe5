package io.sluice.pagestore.internal.tree;

import static io.sluice.pagestore.internal.tree.TreePageIO.ITEMS;
import static io.sluice.pagestore.internal.tree.TreePageIO.child;
import static io.sluice.pagestore.internal.tree.TreePageIO.count;

import io.sluice.pagestore.internal.page.FreePages;
import io.sluice.pagestore.internal.page.PageHeader;
import io.sluice.pagestore.internal.page.PageMemory;
import io.sluice.pagestore.internal.page.RowStore;
import java.nio.ByteBuffer;

/**
 * A B+ tree of one partition in page memory: encoded key (unsigned byte order) to row link. The page
 * layout is {@link TreePageIO}'s; a separator is a copy of the last item of the leaf it was split from.
 *
 * <p>Items are fixed-size and carry the key's first bytes, so most comparisons never leave the tree
 * page ({@link ItemSearch}). A separator refers to a row; when that row's entry is removed or moves,
 * the row is kept as a "ghost" owned by the separator (flag in the item) and freed when the
 * separator goes. A tree that keeps keys in items ({@link #keysInItems}, index trees) has no row for a key
 * that fits its item: the item's link is the caller's, and such a separator is a key only.
 *
 * <p>Writes: {@link #invoke} for one key (one descent, into a {@link TreePath} of the writing thread),
 * a {@link SortedWalk} for a sorted batch. Before an insert the tree reserves the empty pages a split
 * could need ({@link PageReserve}), so an insert never fails half way; a removal and the merges it causes
 * are {@link TreeRemoval}'s. The tree itself holds only its root, height, size and those reserved pages:
 * descents and walks keep their state outside it.
 *
 * <p>Not thread-safe: readers ({@link #find}, {@link #scan}) may share the tree; a writer must hold it
 * alone (the partition's lock).
 */
public final class BPlusTree {

    private final PageMemory memory;
    private final FreePages freeList;
    private final RowStore rows;
    // The page layout: set at construction, changed only while the tree is empty (itemSize(int)).
    private int leafCapacity;
    private int innerCapacity;
    private int separators;
    /** Bytes per item: {@link TreePageIO#ITEM} or {@link TreePageIO#WIDE_ITEM}. */
    private int item;
    /** Key bytes an item carries: {@link TreePageIO#prefix} of the item size. */
    private int prefix;
    /**
     * Whether an item whose key fits its key bytes holds the key whole and no row of the tree's: its link is then
     * the caller's own value, which the tree never reads, frees or keeps as a ghost (index trees; off for the
     * partition's tree, whose items all refer to their rows).
     */
    private boolean keysInItems;
    /** A separator on its way up a split (an item's bytes), and the one an inner split promotes next. */
    private ByteBuffer carry;
    private ByteBuffer promoted;

    private long root;
    private int height;
    private long size;
    /** Whether a {@link SortedWalk} is on the tree: single-key writes would move the walk's leaf under it. */
    private boolean walking;
    /** Empty pages taken so that a split never fails half way. */
    private final PageReserve reserve;
    private final TreeRemoval removal;

    /** A tree of narrow items ({@link TreePageIO#ITEM}: 12 key bytes compared in the page). */
    public BPlusTree(RowStore rows) {
        this(rows, TreePageIO.ITEM);
    }

    /**
     * A tree of items of {@code itemSize} bytes: {@link TreePageIO#ITEM}, or {@link TreePageIO#WIDE_ITEM} for
     * keys that often share their first 12 bytes (28 key bytes compared in the page, fewer items per page).
     *
     * @throws IllegalArgumentException if the size is neither
     */
    public BPlusTree(RowStore rows, int itemSize) {
        this.rows = rows;
        this.memory = rows.memory();
        this.freeList = rows.freeList();
        layout(itemSize);
        this.reserve = new PageReserve(freeList);
        this.removal = new TreeRemoval(this, rows, reserve);
    }

    /** Bytes per item of this tree's pages. */
    public int itemSize() {
        return item;
    }

    /**
     * Changes the size of the items of an empty tree (its pages to come).
     *
     * @throws IllegalStateException if the tree holds entries or a walk is on it
     * @throws IllegalArgumentException if the size is neither {@link TreePageIO#ITEM} nor {@link TreePageIO#WIDE_ITEM}
     */
    public void itemSize(int itemSize) {
        if (itemSize == item) {
            return;
        }
        if (root != PageMemory.NULL_PAGE || walking) {
            throw new IllegalStateException("the item size of a tree is changed only while it is empty and no walk is on it");
        }
        layout(itemSize);
    }

    /**
     * Makes the tree keep keys that fit an item whole in the item, with the caller's link and no row ({@link
     * #keyInItem}); set while the tree is empty.
     *
     * @throws IllegalStateException if the tree holds entries or a walk is on it
     */
    public void keysInItems(boolean on) {
        if (on == keysInItems) {
            return;
        }
        if (root != PageMemory.NULL_PAGE || walking) {
            throw new IllegalStateException("whether keys live in items is changed only while the tree is empty");
        }
        keysInItems = on;
    }

    /**
     * Whether a key of this length lives whole in its item, its link the caller's own (not a row of the tree's):
     * in a tree that keeps keys in items, a key of at most the item's key bytes (12, or 28 for wide items).
     */
    public boolean keyInItem(int keyLength) {
        return keysInItems && keyLength <= prefix;
    }

    /** Whether the tree holds no entry (then it has no page either). */
    public boolean isEmpty() {
        return root == PageMemory.NULL_PAGE;
    }

    private void layout(int itemSize) {
        if (itemSize != TreePageIO.ITEM && itemSize != TreePageIO.WIDE_ITEM) {
            throw new IllegalArgumentException("item size " + itemSize + ": a tree's items take " + TreePageIO.ITEM
                    + " or " + TreePageIO.WIDE_ITEM + " bytes");
        }
        int pageSize = memory.pageSize();
        item = itemSize;
        prefix = TreePageIO.prefix(itemSize);
        leafCapacity = TreePageIO.leafCapacity(pageSize, itemSize);
        innerCapacity = TreePageIO.innerCapacity(pageSize, itemSize);
        separators = TreePageIO.separatorsStart(innerCapacity);
        carry = null;
        promoted = null;
    }

    int innerCapacity() {
        return innerCapacity;
    }

    int separatorsStart() {
        return separators;
    }

    /** Entries in the tree. */
    public long size() {
        return size;
    }

    public int height() {
        return height;
    }

    /** The root page, or {@link PageMemory#NULL_PAGE} when empty (for {@link TreeCheck}). */
    long root() {
        return root;
    }

    /** A new root and height (a removal lowered or emptied the tree). */
    void setRoot(long root, int height) {
        this.root = root;
        this.height = height;
    }

    public int leafCapacity() {
        return leafCapacity;
    }

    // ---------------------------------------------------------------- reading (shared)

    /** The key's row link, or 0. */
    public long find(byte[] key, int keyOffset, int keyLength) {
        if (root == PageMemory.NULL_PAGE) {
            return 0;
        }
        long k0 = TreePageIO.prefixHigh(key, keyOffset, keyLength);
        int k1 = TreePageIO.prefixLow(key, keyOffset, keyLength);
        long page = root;
        for (int d = 0; d < height - 1; d++) {
            ByteBuffer b = memory.buffer(page);
            int p = memory.offset(page);
            int r = ItemSearch.search(rows, key, keyOffset, keyLength, k0, k1, b, p + separators, count(b, p), item);
            page = child(b, p, r >= 0 ? r : -r - 1);
        }
        ByteBuffer b = memory.buffer(page);
        int p = memory.offset(page);
        int r = ItemSearch.search(rows, key, keyOffset, keyLength, k0, k1, b, p + ITEMS, count(b, p), item);
        return r >= 0 ? TreePageIO.link(b, leafItem(p, r)) : 0;
    }

    /** Receives entries' links in key order; returns false to stop. */
    public interface Visitor {
        boolean visit(long link);
    }

    /** Receives entries' links in key order, with the key when the item holds it whole; returns false to stop. */
    public interface KeyVisitor {
        /**
         * @param link the item's link
         * @param keyInItem the key, when the item holds it whole ({@link #keyInItem}: the link is then the caller's
         *                  own value), else null (the key is the row's at {@code link})
         */
        boolean visit(long link, byte[] keyInItem);
    }

    /**
     * Receives entries in key order with the place of the key when its item holds it whole (an index tree's page
     * read copies it from there, allocating nothing); returns false to stop. The buffer is the leaf's, valid only
     * during the call.
     */
    public interface ItemVisitor {
        /**
         * @param link      the item's link (the caller's own value when the item holds the key, else the key's row)
         * @param page      the leaf's buffer
         * @param keyAt     where the key's bytes start in {@code page} when the item holds it whole, else -1
         * @param keyLength the key's length
         */
        boolean visit(long link, ByteBuffer page, int keyAt, int keyLength);
    }

    /**
     * Visits entries in key order from the first key greater than {@code after} ({@code null}: from
     * the first key) until the visitor stops or the entries end.
     */
    public void scan(byte[] after, Visitor visitor) {
        scanFrom(after, false, visitor);
    }

    /**
     * Visits entries in key order from the first key greater than {@code from}, or equal to it if
     * {@code inclusive} ({@code null}: from the first key), until the visitor stops or the entries end.
     */
    public void scanFrom(byte[] from, boolean inclusive, Visitor visitor) {
        if (root != PageMemory.NULL_PAGE) {
            LeafScan.visit(memory, rows, separators, item, root, height, from, inclusive, visitor, null, null, 0);
        }
    }

    /** {@link #scanFrom} for a tree that may keep keys in items: each entry with its key if its item holds it. */
    public void scanKeysFrom(byte[] from, boolean inclusive, KeyVisitor visitor) {
        if (root != PageMemory.NULL_PAGE) {
            LeafScan.visit(memory, rows, separators, item, root, height, from, inclusive, null, visitor, null,
                    keysInItems ? prefix : 0);
        }
    }

    /** {@link #scanKeysFrom} handing each key's place in the leaf instead of a copy of it. */
    public void scanItemsFrom(byte[] from, boolean inclusive, ItemVisitor visitor) {
        if (root != PageMemory.NULL_PAGE) {
            LeafScan.visit(memory, rows, separators, item, root, height, from, inclusive, null, null, visitor,
                    keysInItems ? prefix : 0);
        }
    }

    // ---------------------------------------------------------------- single-key writes (exclusive)

    /** Decides, from the link a key has (0: absent), what the key gets. */
    public interface InvokeClosure {
        /**
         * @param oldLink the key's row link, 0 if absent
         * @return {@code oldLink} to leave the key as it is, 0 to remove it, another link to store it
         */
        long apply(long oldLink);
    }

    /**
     * Finds the key and lets the closure decide in one descent: put (insert or replace the link),
     * remove, or nothing. A replaced or removed row is freed (or kept by a separator). The pages an
     * insert may need are reserved before the closure runs, so after it wrote a row the insert cannot
     * fail.
     *
     * @return the key's link before (0 if it was absent)
     * @throws IllegalStateException if a {@link SortedWalk} is on the tree
     */
    public long invoke(byte[] key, int keyOffset, int keyLength, InvokeClosure closure) {
        if (walking) {
            throw new IllegalStateException("single-key write while a sorted walk is on the tree; end the walk first");
        }
        TreePath path = TreePath.acquire();
        try {
            boolean present = descend(path, key, keyOffset, keyLength);
            long old = present ? link(path) : 0;
            if (!present) {
                reserveForInsert();
            }
            long link = closure.apply(old);
            if (link != old) {
                if (link == 0) {
                    remove(path);
                } else if (present) {
                    replace(path, link);
                } else {
                    insert(path, link, key, keyOffset, keyLength);
                }
            }
            return old;
        } finally {
            path.release();
        }
    }

    /** Frees every page and row of the tree. */
    public void destroy() {
        if (root != PageMemory.NULL_PAGE) {
            removal.destroy(root, height - 1);
        }
        root = PageMemory.NULL_PAGE;
        height = 0;
        size = 0;
        releaseReserve();
    }

    // ---------------------------------------------------------------- for SortedWalk and invoke

    PageMemory memory() {
        return memory;
    }

    RowStore rows() {
        return rows;
    }

    void startWalk() {
        if (walking) {
            throw new IllegalStateException("a sorted walk is already on this tree");
        }
        walking = true;
    }

    void endWalk() {
        walking = false;
    }

    /** The tree a {@link TreeBuilder} wrote: its root, height and size (the tree was empty). */
    void built(long root, int height, long size) {
        this.root = root;
        this.height = height;
        this.size = size;
    }

    /** An insert a walk queued for its leaf (merged in later) counts from now on. */
    void countQueuedInsert() {
        size++;
    }

    /** Descends to the key's leaf into the path. @return true if the key is present */
    boolean descend(TreePath path, byte[] key, int keyOffset, int keyLength) {
        path.reset(TreePageIO.prefixHigh(key, keyOffset, keyLength), TreePageIO.prefixLow(key, keyOffset, keyLength));
        if (root == PageMemory.NULL_PAGE) {
            path.found = -1;
            return false;
        }
        path.page[0] = root;
        long leaf = descendToLeaf(path, 0, 0, key, keyOffset, keyLength);
        ByteBuffer b = memory.buffer(leaf);
        int p = memory.offset(leaf);
        return path.atLeaf(height - 1, leaf, ItemSearch.search(rows, key, keyOffset, keyLength, path.keyHigh,
                path.keyLow, b, p + ITEMS, count(b, p), item));
    }

    /**
     * Descends from the page at {@code path.page[level]} (searching it from separator {@code from} on)
     * for a sorted walk: the (usually cold) leaf is searched with {@link ItemSearch#locate}. Kept apart
     * from {@link #descend} so that single-key descents compile as before: measured, one method with
     * both searches made row-by-row writes slower.
     */
    boolean walkFrom(TreePath path, int level, int from, byte[] key, int keyOffset, int keyLength) {
        // the first level: the key's child is usually a few after the one the walk left, so gallop from it
        long page = path.page[level];
        ByteBuffer ib = memory.buffer(page);
        int ip = memory.offset(page);
        int n = count(ib, ip);
        int r = ItemSearch.absolute(ItemSearch.gallop(rows, key, keyOffset, keyLength, path.keyHigh, path.keyLow, ib,
                separator(ip, from), n - from, item), from);
        int child = r;
        if (r >= 0) {
            path.equalSeparator(level, r);
        } else {
            child = -r - 1;
        }
        path.index[level] = child;
        path.count[level] = n;
        long leaf = child(ib, ip, child);
        if (level + 1 < height - 1) {
            path.page[level + 1] = leaf;
            leaf = descendToLeaf(path, level + 1, 0, key, keyOffset, keyLength);
        }
        ByteBuffer b = memory.buffer(leaf);
        int p = memory.offset(leaf);
        return path.atLeaf(height - 1, leaf, ItemSearch.locate(rows, key, keyOffset, keyLength, path.keyHigh,
                path.keyLow, b, p + ITEMS, count(b, p), item));
    }

    /** Walks the inner levels from {@code path.page[level]} (from separator {@code from} on), recording the path; returns the leaf. */
    private long descendToLeaf(TreePath path, int level, int from, byte[] key, int keyOffset, int keyLength) {
        long k0 = path.keyHigh;
        int k1 = path.keyLow;
        long page = path.page[level];
        for (int d = level; d < height - 1; d++) {
            ByteBuffer b = memory.buffer(page);
            int p = memory.offset(page);
            int first = d == level ? from : 0;
            int n = count(b, p);
            int r = ItemSearch.absolute(ItemSearch.search(rows, key, keyOffset, keyLength, k0, k1, b,
                    separator(p, first), n - first, item), first);
            int child = r;
            if (r >= 0) {
                path.equalSeparator(d, r);
            } else {
                child = -r - 1;
            }
            path.page[d] = page;
            path.index[d] = child;
            path.count[d] = n;
            page = child(b, p, child);
        }
        return page;
    }

    /** Compares the key with the separator the path took at {@code level} (an inner level). */
    int compareWithSeparator(TreePath path, int level, byte[] key, int keyOffset, int keyLength) {
        long page = path.page[level];
        return ItemSearch.compare(rows, key, keyOffset, keyLength, path.keyHigh, path.keyLow, memory.buffer(page),
                separator(memory.offset(page), path.index[level]), item);
    }

    /** The link of the key the path found. */
    long link(TreePath path) {
        long leaf = path.page[height - 1];
        return TreePageIO.link(memory.buffer(leaf), leafItem(memory.offset(leaf), path.found));
    }

    /**
     * Takes the empty pages an insert may need (a split per level and a new root) before anything
     * changes, so an insert cannot fail half way. Call after the descent, before the insert.
     *
     * @throws io.sluice.DataRegionFullException if the region cannot give them (nothing changed)
     */
    void reserveForInsert() {
        int need = height + 1;
        if (!reserve.holds(need)) { // the check stays small enough to inline into the per-key paths
            reserve.fill(need);
        }
    }

    /** Gives back the reserved pages (a walk's end, an emptied tree): an idle partition holds no empty pages. */
    void releaseReserve() {
        reserve.release();
    }

    /** Removes the key the path found, freeing its row, merging pages that got small. */
    void remove(TreePath path) {
        size--;
        removal.remove(path);
    }

    /**
     * Replaces the found key's link; the old row is freed (or kept by a separator that refers to it), unless the
     * item holds its key whole ({@link #keyInItem}: the old link was the caller's, nothing is freed).
     */
    void replace(TreePath path, long newLink) {
        long leaf = path.page[height - 1];
        int at = leafItem(memory.offset(leaf), path.found);
        ByteBuffer b = memory.buffer(leaf);
        long old = TreePageIO.link(b, at);
        TreePageIO.link(b, at, newLink);
        if (!keyInItem(TreePageIO.keyLength(b, at))) {
            removal.releaseRow(path, old);
        }
    }

    /**
     * Inserts the key (absent at the path's descent) with its link. After an insert without a split the
     * path's leaf position is past the new key, where a greater key of a sorted batch is searched from.
     *
     * @return false if a page split (the path no longer describes the tree)
     */
    boolean insert(TreePath path, long link, byte[] key, int keyOffset, int keyLength) {
        if (root == PageMemory.NULL_PAGE) {
            root = reserve.take();
            initPage(root, PageHeader.TYPE_LEAF);
            height = 1;
            path.page[0] = root;
            path.index[0] = 0;
        }
        int d = height - 1;
        long page = path.page[d];
        int pos = path.index[d];
        ByteBuffer b = memory.buffer(page);
        int p = memory.offset(page);
        int n = count(b, p);
        size++;
        if (n < leafCapacity) {
            TreePageIO.insertLeafItem(b, p, n, pos, item, link, key, keyOffset, keyLength);
            path.index[d] = pos + 1;
            return true;
        }
        long right = reserve.take();
        initPage(right, PageHeader.TYPE_LEAF);
        ByteBuffer rb = memory.buffer(right);
        int rp = memory.offset(right);
        int mid = pos == n ? n : n / 2; // appending at the right edge: keep the left page full
        rb.put(leafItem(rp, 0), b, leafItem(p, mid), (n - mid) * item);
        count(rb, rp, n - mid);
        count(b, p, mid);
        if (pos < mid) {
            TreePageIO.insertLeafItem(b, p, mid, pos, item, link, key, keyOffset, keyLength);
        } else {
            TreePageIO.insertLeafItem(rb, rp, n - mid, pos - mid, item, link, key, keyOffset, keyLength);
        }
        // the left page's last item goes up as the separator (a live entry's row: not a ghost)
        if (carry == null) {
            carry = ByteBuffer.allocate(item);
            promoted = ByteBuffer.allocate(item);
        }
        carry.put(0, b, leafItem(p, count(b, p) - 1), item);
        insertSeparator(path, d - 1, right);
        return false;
    }

    /** Offset (in its buffer) of item {@code i} of the leaf at {@code p}. */
    int leafItem(int p, int i) {
        return TreePageIO.leafItem(p, i, item);
    }

    // ---------------------------------------------------------------- internals

    private int separator(int p, int i) {
        return TreePageIO.separatorItem(p, separators, i, item);
    }

    /**
     * Inserts a separator (the item in {@link #carry}) and the new right child next to the path's child at level
     * {@code d}, splitting inner pages up the path as needed.
     */
    private void insertSeparator(TreePath path, int d, long right) {
        while (true) {
            if (d < 0) {
                long newRoot = reserve.take();
                initPage(newRoot, PageHeader.TYPE_INNER);
                ByteBuffer b = memory.buffer(newRoot);
                int p = memory.offset(newRoot);
                TreePageIO.child(b, p, 0, root);
                TreePageIO.child(b, p, 1, right);
                b.put(separator(p, 0), carry, 0, item);
                count(b, p, 1);
                root = newRoot;
                height++;
                return;
            }
            long page = path.page[d];
            int i = path.index[d];
            ByteBuffer b = memory.buffer(page);
            int p = memory.offset(page);
            int n = count(b, p);
            if (n < innerCapacity) {
                TreePageIO.insertSeparator(b, p, separators, n, i, item, right, carry, 0);
                return;
            }
            long newPage = reserve.take();
            initPage(newPage, PageHeader.TYPE_INNER);
            ByteBuffer rb = memory.buffer(newPage);
            int rp = memory.offset(newPage);
            int mid = i == n ? n - 1 : n / 2;
            // right: separators (mid, n), children (mid, n]; separator mid goes up
            rb.put(separator(rp, 0), b, separator(p, mid + 1), (n - mid - 1) * item);
            rb.put(TreePageIO.childSlot(rp, 0), b, TreePageIO.childSlot(p, mid + 1), (n - mid) * TreePageIO.CHILD);
            count(rb, rp, n - mid - 1);
            count(b, p, mid);
            promoted.put(0, b, separator(p, mid), item); // before an insert below moves it
            if (i <= mid) {
                TreePageIO.insertSeparator(b, p, separators, mid, i, item, right, carry, 0);
            } else {
                TreePageIO.insertSeparator(rb, rp, separators, n - mid - 1, i - mid - 1, item, right, carry, 0);
            }
            ByteBuffer next = promoted; // the promoted separator goes up next
            promoted = carry;
            carry = next;
            right = newPage;
            d--;
        }
    }

    private void initPage(long page, byte type) {
        TreePageIO.init(memory.buffer(page), memory.offset(page), type);
    }
}
