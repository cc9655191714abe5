package io.sluice.store.tree;

import io.sluice.store.freelist.FreeList;
import io.sluice.store.page.PageHeader;
import io.sluice.store.page.PageMemory;
import io.sluice.store.page.RowStore;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A B+ tree of one partition in page memory: encoded key (unsigned byte order) to row link. Child i of
 * an inner page holds the keys k with separator(i-1) &lt; k &lt;= separator(i); a separator is a copy of
 * the last item of the leaf it was split from.
 *
 * <p>Items are fixed-size and carry the key's first bytes, so most comparisons never leave the tree
 * page; only keys that tie on the prefix and are longer than it are compared with the row's key,
 * in place. A separator refers to a row; when that row's entry is removed or moves, the row is kept
 * as a "ghost" owned by the separator (flag in the item) and freed when the separator goes.
 *
 * <pre>
 * Leaf page                              Inner page
 * offset  size  meaning                  offset         size      meaning
 * 0       24    PageHeader               0              24        PageHeader
 * 24      2     item count n             24             2         separator count n
 * 32      24*n  items                    32             8*(c+1)   child page ids (n + 1 used)
 *                                        32 + 8*(c+1)   24*n      separators (c = inner capacity)
 *
 * Item (leaf entry or separator)
 * 0       8     row link
 * 8       4     key length; bit 31: ghost (separator owns the row)
 * 12      12    first 12 key bytes, zero-padded
 * </pre>
 *
 * <p>Not thread-safe: readers ({@link #find}, {@link #scan}) may share the tree; a writer must hold it
 * alone (the partition's lock). The write path keeps its descent in fields, so a write is one descent.
 */
public final class BPlusTree {

    static final int COUNT = 24;
    static final int ITEMS = 32;
    static final int ITEM = 24;
    static final int PREFIX = 12;
    static final int GHOST = 0x8000_0000;
    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT_BE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final int MAX_HEIGHT = 48;

    private final PageMemory memory;
    private final FreeList freeList;
    private final RowStore rows;
    private final int leafCapacity;
    private final int innerCapacity;
    private final int separators;

    private long root;
    private int height;
    private long size;

    // The writer's last descent: page and child (inner) or item position (leaf) per level.
    private final long[] pathPage = new long[MAX_HEIGHT];
    private final int[] pathIndex = new int[MAX_HEIGHT];
    private final int[] pathCount = new int[MAX_HEIGHT]; // separators of inner path pages at descent
    private int found;
    // For batch walks (seek): the leaf of the last descent stays current while keys stay at or below
    // its upper bound, the nearest separator to the right on the path (none: the leaf is rightmost).
    private boolean positioned;
    // The first 12 bytes of the key of the writer's current descent (see compare).
    private long keyHigh;
    private int keyLow;
    private int upperDepth;
    private int equalSeparatorDepth;
    private int equalSeparatorIndex;
    // A separator travelling up a split.
    private long sepLink;
    private int sepLength;
    private long sepPrefixHigh;
    private int sepPrefixLow;
    // Empty pages held so that a split never fails half way.
    private final long[] reserve = new long[MAX_HEIGHT + 2];
    private int reserved;

    // Inserts of a sorted batch queued for the current leaf, merged in with one pass (flushPending).
    private int pending;
    private final int[] pendingPosition;
    private final long[] pendingLink;
    private final int[] pendingKeyLength;
    private final long[] pendingHigh;
    private final int[] pendingLow;

    public BPlusTree(RowStore rows) {
        this.rows = rows;
        this.memory = rows.memory();
        this.freeList = rows.freeList();
        int pageSize = memory.pageSize();
        this.leafCapacity = (pageSize - ITEMS) / ITEM;
        this.innerCapacity = (pageSize - ITEMS - 8) / (ITEM + 8);
        this.separators = ITEMS + 8 * (innerCapacity + 1);
        this.pendingPosition = new int[leafCapacity];
        this.pendingLink = new long[leafCapacity];
        this.pendingKeyLength = new int[leafCapacity];
        this.pendingHigh = new long[leafCapacity];
        this.pendingLow = new int[leafCapacity];
    }

    /** Entries in the tree. */
    public long size() {
        return size;
    }

    public int height() {
        return height;
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
        long k0 = prefixHigh(key, keyOffset, keyLength);
        int k1 = prefixLow(key, keyOffset, keyLength);
        long page = root;
        for (int d = 0; d < height - 1; d++) {
            ByteBuffer b = memory.buffer(page);
            int p = memory.offset(page);
            int r = search(key, keyOffset, keyLength, k0, k1, b, p + separators, count(b, p));
            page = child(b, p, r >= 0 ? r : -r - 1);
        }
        ByteBuffer b = memory.buffer(page);
        int p = memory.offset(page);
        int r = search(key, keyOffset, keyLength, k0, k1, b, p + ITEMS, count(b, p));
        return r >= 0 ? b.getLong(p + ITEMS + r * ITEM) : 0;
    }

    /** Receives entries' links in key order; returns false to stop. */
    public interface Visitor {
        boolean visit(long link);
    }

    /**
     * Visits entries in key order from the first key greater than {@code after} ({@code null}: from
     * the first key) until the visitor stops or the entries end.
     */
    public void scan(byte[] after, Visitor visitor) {
        if (root == PageMemory.NULL_PAGE) {
            return;
        }
        long[] pages = new long[height];
        int[] index = new int[height];
        long k0 = after == null ? 0 : prefixHigh(after, 0, after.length);
        int k1 = after == null ? 0 : prefixLow(after, 0, after.length);
        long page = root;
        for (int d = 0; d < height - 1; d++) {
            ByteBuffer b = memory.buffer(page);
            int p = memory.offset(page);
            int child = 0;
            if (after != null) {
                int r = search(after, 0, after.length, k0, k1, b, p + separators, count(b, p));
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
            int r = search(after, 0, after.length, k0, k1, b, p + ITEMS, count(b, p));
            pos = r >= 0 ? r + 1 : -r - 1;
        }
        while (true) {
            ByteBuffer b = memory.buffer(page);
            int p = memory.offset(page);
            for (int n = count(b, p); pos < n; pos++) {
                if (!visitor.visit(b.getLong(p + ITEMS + pos * ITEM))) {
                    return;
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

    // ---------------------------------------------------------------- writing (exclusive)

    /**
     * Descends to the key's leaf and remembers the way for {@link #link()}, {@link #insert},
     * {@link #replace} and {@link #remove}. @return true if the key is present
     */
    public boolean descend(byte[] key, int keyOffset, int keyLength) {
        equalSeparatorDepth = -1;
        keyHigh = prefixHigh(key, keyOffset, keyLength);
        keyLow = prefixLow(key, keyOffset, keyLength);
        if (root == PageMemory.NULL_PAGE) {
            found = -1;
            positioned = false;
            return false;
        }
        pathPage[0] = root;
        boolean present = descendFrom(0, 0, key, keyOffset, keyLength);
        positioned = false; // a single operation: no upper bound computed
        return present;
    }

    /** {@link #descend} for a sorted walk: also finds the leaf's upper bound. */
    private boolean reposition(byte[] key, int keyOffset, int keyLength) {
        boolean present = descend(key, keyOffset, keyLength);
        if (root != PageMemory.NULL_PAGE) {
            upperDepth = boundAbove(height - 1);
            positioned = true;
        }
        return present;
    }

    /** Descends from the page at pathPage[level], searching it from separator {@code from} on. */
    private boolean descendFrom(int level, int from, byte[] key, int keyOffset, int keyLength) {
        long page = descendToLeaf(level, from, key, keyOffset, keyLength);
        ByteBuffer b = memory.buffer(page);
        int p = memory.offset(page);
        return atLeaf(page, search(key, keyOffset, keyLength, keyHigh, keyLow, b, p + ITEMS, count(b, p)));
    }

    /**
     * {@link #descendFrom} for a sorted walk: the (usually cold) leaf is searched with {@link #locate}
     * instead of a binary search. Kept a method of its own (not a flag of descendFrom) so that
     * single-row descents compile as before: measured, one method with both searches made row-by-row
     * writes slower.
     */
    private boolean walkFrom(int level, int from, byte[] key, int keyOffset, int keyLength) {
        long page = descendToLeaf(level, from, key, keyOffset, keyLength);
        ByteBuffer b = memory.buffer(page);
        int p = memory.offset(page);
        return atLeaf(page, locate(key, keyOffset, keyLength, keyHigh, keyLow, b, p + ITEMS, count(b, p)));
    }

    /** Walks the inner levels from pathPage[level] (from separator {@code from} on), recording the path; returns the leaf. */
    private long descendToLeaf(int level, int from, byte[] key, int keyOffset, int keyLength) {
        long k0 = keyHigh;
        int k1 = keyLow;
        long page = pathPage[level];
        for (int d = level; d < height - 1; d++) {
            ByteBuffer b = memory.buffer(page);
            int p = memory.offset(page);
            int first = d == level ? from : 0;
            int r = absolute(search(key, keyOffset, keyLength, k0, k1, b, p + separators + first * ITEM,
                    count(b, p) - first), first);
            int child = r;
            if (r >= 0) {
                equalSeparatorDepth = d;
                equalSeparatorIndex = r;
            } else {
                child = -r - 1;
            }
            pathPage[d] = page;
            pathIndex[d] = child;
            pathCount[d] = count(b, p);
            page = child(b, p, child);
        }
        return page;
    }

    /** Records the leaf search's result {@code r} (index, or -(insertion point) - 1) at the path's end. */
    private boolean atLeaf(long leaf, int r) {
        pathPage[height - 1] = leaf;
        pathIndex[height - 1] = r >= 0 ? r : -r - 1;
        found = r;
        return r >= 0;
    }

    /** The deepest level above {@code level} whose path separator bounds it from the right, or -1. */
    private int boundAbove(int level) {
        for (int d = level - 1; d >= 0; d--) {
            if (pathIndex[d] < pathCount[d]) { // inner pages do not change while positioned
                return d;
            }
        }
        return -1;
    }

    private int compareWithBound(byte[] key, int keyOffset, int keyLength, int level) {
        long k0 = keyHigh;
        int k1 = keyLow;
        long page = pathPage[level];
        return compare(key, keyOffset, keyLength, k0, k1, memory.buffer(page),
                memory.offset(page) + separators + pathIndex[level] * ITEM);
    }

    /** Starts a walk of ascending keys with {@link #seek}: forgets the position of earlier operations. */
    public void startWalk() {
        positioned = false;
        pending = 0;
    }

    /**
     * Like {@link #descend} for keys that ascend from one call to the next (a sorted batch): stays on the
     * current leaf while the key belongs to it, searching only the items after the last position, and
     * descends again only when the key is past the leaf or the tree changed shape.
     */
    public boolean seek(byte[] key, int keyOffset, int keyLength) {
        return seek(key, keyOffset, keyLength, prefixHigh(key, keyOffset, keyLength),
                prefixLow(key, keyOffset, keyLength));
    }

    /** {@link #seek(byte[], int, int)} with the key's first 12 bytes already read (see {@link #compare}). */
    public boolean seek(byte[] key, int keyOffset, int keyLength, long k0, int k1) {
        if (!positioned) {
            flushPending();
            return reposition(key, keyOffset, keyLength);
        }
        keyHigh = k0;
        keyLow = k1;
        int bound = upperDepth;
        int c = bound < 0 ? -1 : compareWithBound(key, keyOffset, keyLength, bound);
        if (c <= 0) { // still this leaf: search after the last position
            equalSeparatorDepth = c == 0 ? bound : -1;
            equalSeparatorIndex = c == 0 ? pathIndex[bound] : 0;
            long leaf = pathPage[height - 1];
            ByteBuffer b = memory.buffer(leaf);
            int p = memory.offset(leaf);
            // positions stay those of the leaf before the queued inserts: no queued key equals this one
            int from = pathIndex[height - 1];
            int n = count(b, p);
            int r = from >= n ? -(n + 1)
                    : absolute(locate(key, keyOffset, keyLength, k0, k1, b, p + ITEMS + from * ITEM, n - from), from);
            pathIndex[height - 1] = r >= 0 ? r : -r - 1;
            found = r;
            return r >= 0;
        }
        // Past the leaf: climb to the lowest page whose range holds the key, descend from there.
        flushPending(); // changes the leaf only
        while (true) {
            int above = boundAbove(bound);
            c = above < 0 ? -1 : compareWithBound(key, keyOffset, keyLength, above);
            if (c <= 0) {
                equalSeparatorDepth = c == 0 ? above : -1;
                equalSeparatorIndex = c == 0 ? pathIndex[above] : 0;
                boolean present = walkFrom(bound, pathIndex[bound], key, keyOffset, keyLength);
                upperDepth = boundAbove(height - 1);
                positioned = true;
                return present;
            }
            bound = above;
        }
    }

    /**
     * Inserts the key absent at the last {@link #seek}, as part of a sorted walk: queued while the leaf
     * has room, and merged into the leaf with the other queued keys in one pass when the walk leaves
     * it ({@link #endWalk}, or the next seek past it), so each item of the leaf moves once. The key
     * bytes must stay unchanged until then. Call {@link #reserveForInsert} first, as for insert.
     */
    public void insertSorted(long link, byte[] key, int keyOffset, int keyLength) {
        if (positioned) {
            long leaf = pathPage[height - 1];
            int n = count(memory.buffer(leaf), memory.offset(leaf));
            if (n + pending < leafCapacity) {
                pendingPosition[pending] = found < 0 ? -found - 1 : found;
                pendingLink[pending] = link;
                pendingKeyLength[pending] = keyLength;
                pendingHigh[pending] = keyHigh;
                pendingLow[pending] = keyLow;
                pending++;
                size++;
                return;
            }
        }
        if (pending > 0) {
            flushPending();
            reposition(key, keyOffset, keyLength);
        }
        insert(link, key, keyOffset, keyLength);
    }

    /** Ends a sorted walk: merges queued inserts into their leaf. */
    public void endWalk() {
        flushPending();
        positioned = false;
    }

    /** Merges the queued inserts into the current leaf, from the end, moving each old item once. */
    private void flushPending() {
        if (pending == 0) {
            return;
        }
        long leaf = pathPage[height - 1];
        ByteBuffer b = memory.buffer(leaf);
        int p = memory.offset(leaf);
        int n = count(b, p);
        int end = n;
        for (int j = pending - 1; j >= 0; j--) {
            int pos = pendingPosition[j];
            int from = p + ITEMS + pos * ITEM;
            move(b, from, from + (j + 1) * ITEM, (end - pos) * ITEM);
            writeItem(b, from + j * ITEM, pendingLink[j], pendingKeyLength[j], pendingHigh[j], pendingLow[j]);
            end = pos;
        }
        count(b, p, n + pending);
        pending = 0;
        positioned = false; // positions of the leaf changed
    }

    /**
     * Moves bytes within a buffer. The absolute bulk put copies as if through an intermediate buffer
     * when source and destination share memory (ByteBuffer javadoc), so overlapping ranges are safe.
     */
    private static void move(ByteBuffer b, int from, int to, int length) {
        if (length > 0) {
            b.put(to, b, from, length);
        }
    }

    /** The link of the key found by the last {@link #descend}. */
    public long link() {
        long leaf = pathPage[height - 1];
        return memory.buffer(leaf).getLong(memory.offset(leaf) + ITEMS + found * ITEM);
    }

    /**
     * Takes the empty pages an insert may need (a split per level and a new root) before anything
     * changes, so an insert cannot fail half way. Call after {@link #descend}, before {@link #insert}.
     *
     * @throws io.sluice.store.DataRegionFullException if the region cannot give them (nothing changed)
     */
    public void reserveForInsert() {
        int need = height + 1;
        while (reserved < need) {
            reserve[reserved] = freeList.takeEmptyPage();
            reserved++;
        }
    }

    /** Replaces the found key's link; the old row is freed (or kept by a separator that refers to it). */
    public void replace(long newLink) {
        long leaf = pathPage[height - 1];
        int at = memory.offset(leaf) + ITEMS + found * ITEM;
        ByteBuffer b = memory.buffer(leaf);
        long old = b.getLong(at);
        b.putLong(at, newLink);
        releaseRow(old);
    }

    /** Inserts the key (absent at the last {@link #descend}) with its link. */
    public void insert(long link, byte[] key, int keyOffset, int keyLength) {
        if (root == PageMemory.NULL_PAGE) {
            root = takeReserved();
            initPage(root, PageHeader.TYPE_LEAF);
            height = 1;
            pathPage[0] = root;
            pathIndex[0] = 0;
            upperDepth = -1;
            positioned = true;
        }
        int d = height - 1;
        long page = pathPage[d];
        int pos = pathIndex[d];
        ByteBuffer b = memory.buffer(page);
        int p = memory.offset(page);
        int n = count(b, p);
        size++;
        if (n < leafCapacity) {
            int at = p + ITEMS + pos * ITEM;
            move(b, at, at + ITEM, (n - pos) * ITEM);
            writeItem(b, at, link, key, keyOffset, keyLength);
            count(b, p, n + 1);
            pathIndex[d] = pos + 1; // a following, greater key of a sorted batch is searched from here
            return;
        }
        positioned = false; // the split changes the path
        long right = takeReserved();
        initPage(right, PageHeader.TYPE_LEAF);
        ByteBuffer rb = memory.buffer(right);
        int rp = memory.offset(right);
        int mid = pos == n ? n : n / 2; // appending at the right edge: keep the left page full
        rb.put(rp + ITEMS, b, p + ITEMS + mid * ITEM, (n - mid) * ITEM);
        count(rb, rp, n - mid);
        count(b, p, mid);
        if (pos < mid) {
            int at = p + ITEMS + pos * ITEM;
            move(b, at, at + ITEM, (mid - pos) * ITEM);
            writeItem(b, at, link, key, keyOffset, keyLength);
            count(b, p, mid + 1);
        } else {
            int rpos = pos - mid;
            int at = rp + ITEMS + rpos * ITEM;
            move(rb, at, at + ITEM, (n - mid - rpos) * ITEM);
            writeItem(rb, at, link, key, keyOffset, keyLength);
            count(rb, rp, n - mid + 1);
        }
        loadSeparator(b, p + ITEMS + (count(b, p) - 1) * ITEM);
        sepLength &= ~GHOST;
        insertSeparator(d - 1, right);
    }

    /** Removes the key found by the last {@link #descend}, freeing its row, merging pages that got small. */
    public void remove() {
        if (pending > 0) { // positions change with the queued inserts: merge them and find the key again
            throw new IllegalStateException("remove() during a sorted walk with queued inserts; call removeSorted()");
        }
        int d = height - 1;
        long leaf = pathPage[d];
        ByteBuffer b = memory.buffer(leaf);
        int p = memory.offset(leaf);
        int n = count(b, p);
        int at = p + ITEMS + found * ITEM;
        long old = b.getLong(at);
        move(b, at + ITEM, at, (n - found - 1) * ITEM);
        count(b, p, n - 1);
        size--;
        releaseRow(old); // before pages merge: the equal separator's position is still valid
        positioned = false;
        rebalance();
    }

    /** Removes the key found by the last {@link #seek} during a sorted walk. */
    public void removeSorted(byte[] key, int keyOffset, int keyLength) {
        if (pending > 0) {
            flushPending();
            reposition(key, keyOffset, keyLength);
        }
        remove();
    }

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
     */
    public long invoke(byte[] key, int keyOffset, int keyLength, InvokeClosure closure) {
        boolean present = descend(key, keyOffset, keyLength);
        long old = present ? link() : 0;
        if (!present) {
            reserveForInsert();
        }
        long link = closure.apply(old);
        if (link != old) {
            if (link == 0) {
                remove();
            } else if (present) {
                replace(link);
            } else {
                insert(link, key, keyOffset, keyLength);
            }
        }
        return old;
    }

    /** Frees every page and row of the tree. */
    public void destroy() {
        if (root != PageMemory.NULL_PAGE) {
            destroy(root, height - 1);
        }
        root = PageMemory.NULL_PAGE;
        height = 0;
        size = 0;
        positioned = false;
        releaseReserve();
    }

    private void releaseReserve() {
        while (reserved > 0) {
            freeList.releaseEmptyPage(reserve[--reserved]);
        }
    }

    private void destroy(long page, int levelsBelow) {
        ByteBuffer b = memory.buffer(page);
        int p = memory.offset(page);
        int n = count(b, p);
        if (levelsBelow == 0) {
            for (int i = 0; i < n; i++) {
                rows.remove(b.getLong(p + ITEMS + i * ITEM));
            }
        } else {
            for (int i = 0; i < n; i++) {
                int item = p + separators + i * ITEM;
                if ((b.getInt(item + 8) & GHOST) != 0) {
                    rows.remove(b.getLong(item));
                }
            }
            for (int i = 0; i <= n; i++) {
                destroy(child(b, p, i), levelsBelow - 1);
            }
        }
        freeList.releaseEmptyPage(page);
    }

    // ---------------------------------------------------------------- internals

    private void releaseRow(long old) {
        if (equalSeparatorDepth >= 0) {
            long page = pathPage[equalSeparatorDepth];
            ByteBuffer b = memory.buffer(page);
            int item = memory.offset(page) + separators + equalSeparatorIndex * ITEM;
            if (b.getLong(item) == old) {
                b.putInt(item + 8, b.getInt(item + 8) | GHOST);
                return;
            }
        }
        rows.remove(old);
    }

    /** Inserts the separator fields and the new right child next to pathIndex[d] of pathPage[d], splitting up. */
    private void insertSeparator(int d, long right) {
        while (true) {
            if (d < 0) {
                long newRoot = takeReserved();
                initPage(newRoot, PageHeader.TYPE_INNER);
                ByteBuffer b = memory.buffer(newRoot);
                int p = memory.offset(newRoot);
                b.putLong(p + ITEMS, root);
                b.putLong(p + ITEMS + 8, right);
                storeSeparator(b, p + separators);
                count(b, p, 1);
                root = newRoot;
                height++;
                return;
            }
            long page = pathPage[d];
            int i = pathIndex[d];
            ByteBuffer b = memory.buffer(page);
            int p = memory.offset(page);
            int n = count(b, p);
            if (n < innerCapacity) {
                insertInner(b, p, n, i, right);
                return;
            }
            long newPage = takeReserved();
            initPage(newPage, PageHeader.TYPE_INNER);
            ByteBuffer rb = memory.buffer(newPage);
            int rp = memory.offset(newPage);
            int mid = i == n ? n - 1 : n / 2;
            // right: separators (mid, n), children (mid, n]
            rb.put(rp + separators, b, p + separators + (mid + 1) * ITEM, (n - mid - 1) * ITEM);
            rb.put(rp + ITEMS, b, p + ITEMS + (mid + 1) * 8, (n - mid) * 8);
            count(rb, rp, n - mid - 1);
            count(b, p, mid);
            // the pending separator goes in; separator mid goes up
            long pLink = sepLink;
            int pLength = sepLength;
            long pHigh = sepPrefixHigh;
            int pLow = sepPrefixLow;
            int promoted = p + separators + mid * ITEM;
            long upLink = b.getLong(promoted);
            int upLength = b.getInt(promoted + 8);
            long upHigh = b.getLong(promoted + 12);
            int upLow = b.getInt(promoted + 20);
            sepLink = pLink;
            sepLength = pLength;
            sepPrefixHigh = pHigh;
            sepPrefixLow = pLow;
            if (i <= mid) {
                insertInner(b, p, mid, i, right);
            } else {
                insertInner(rb, rp, n - mid - 1, i - mid - 1, right);
            }
            sepLink = upLink;
            sepLength = upLength;
            sepPrefixHigh = upHigh;
            sepPrefixLow = upLow;
            right = newPage;
            d--;
        }
    }

    private void insertInner(ByteBuffer b, int p, int n, int i, long right) {
        int at = p + separators + i * ITEM;
        move(b, at, at + ITEM, (n - i) * ITEM);
        storeSeparator(b, at);
        int c = p + ITEMS + (i + 1) * 8;
        move(b, c, c + 8, (n - i) * 8);
        b.putLong(c, right);
        count(b, p, n + 1);
    }

    /** After a leaf lost an item: frees empty pages and merges small ones into a sibling, up the path. */
    private void rebalance() {
        int d = height - 1;
        boolean empty = count(memory.buffer(pathPage[d]), memory.offset(pathPage[d])) == 0;
        while (d > 0) {
            long page = pathPage[d];
            long parent = pathPage[d - 1];
            int i = pathIndex[d - 1];
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
            if (n >= (leaf ? leafCapacity : innerCapacity) / 4) {
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
        if (d == 0 && empty) {
            freeList.releaseEmptyPage(root);
            root = PageMemory.NULL_PAGE;
            height = 0;
            releaseReserve(); // an empty tree holds no pages
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
            if (ln + rn > leafCapacity) {
                return false;
            }
            lb.put(lp + ITEMS + ln * ITEM, rb, rp + ITEMS, rn * ITEM);
            count(lb, lp, ln + rn);
            freeList.releaseEmptyPage(right);
            removeFromInner(pb, pp, pn, s, s + 1, true);
            return true;
        }
        if (ln + 1 + rn > innerCapacity) {
            return false;
        }
        // the parent's separator comes down between the two (with its ghost flag: it still owns its row)
        lb.put(lp + separators + ln * ITEM, pb, pp + separators + s * ITEM, ITEM);
        lb.put(lp + separators + (ln + 1) * ITEM, rb, rp + separators, rn * ITEM);
        lb.put(lp + ITEMS + (ln + 1) * 8, rb, rp + ITEMS, (rn + 1) * 8);
        count(lb, lp, ln + 1 + rn);
        freeList.releaseEmptyPage(right);
        removeFromInner(pb, pp, pn, s, s + 1, false);
        return true;
    }

    /** Removes separator s and child c from an inner page; frees a ghost row if the separator goes away. */
    private void removeFromInner(ByteBuffer b, int p, int n, int s, int c, boolean dropSeparator) {
        int at = p + separators + s * ITEM;
        if (dropSeparator && (b.getInt(at + 8) & GHOST) != 0) {
            rows.remove(b.getLong(at));
        }
        move(b, at + ITEM, at, (n - s - 1) * ITEM);
        int ca = p + ITEMS + c * 8;
        move(b, ca + 8, ca, (n - c) * 8);
        count(b, p, n - 1);
    }

    private long takeReserved() {
        if (reserved == 0) {
            throw new IllegalStateException("tree insert without reserveForInsert()");
        }
        return reserve[--reserved];
    }

    private void initPage(long page, byte type) {
        ByteBuffer b = memory.buffer(page);
        int p = memory.offset(page);
        PageHeader.type(b, p, type);
        count(b, p, 0);
    }

    private static int count(ByteBuffer b, int p) {
        return b.getShort(p + COUNT) & 0xFFFF;
    }

    private static void count(ByteBuffer b, int p, int n) {
        b.putShort(p + COUNT, (short) n);
    }

    private static long child(ByteBuffer b, int p, int i) {
        return b.getLong(p + ITEMS + i * 8);
    }

    private static void writeItem(ByteBuffer b, int at, long link, byte[] key, int keyOffset, int keyLength) {
        writeItem(b, at, link, keyLength, prefixHigh(key, keyOffset, keyLength), prefixLow(key, keyOffset, keyLength));
    }

    private static void writeItem(ByteBuffer b, int at, long link, int keyLength, long high, int low) {
        b.putLong(at, link);
        b.putInt(at + 8, keyLength);
        b.putLong(at + 12, high);
        b.putInt(at + 20, low);
    }

    private void loadSeparator(ByteBuffer b, int at) {
        sepLink = b.getLong(at);
        sepLength = b.getInt(at + 8);
        sepPrefixHigh = b.getLong(at + 12);
        sepPrefixLow = b.getInt(at + 20);
    }

    private void storeSeparator(ByteBuffer b, int at) {
        b.putLong(at, sepLink);
        b.putInt(at + 8, sepLength);
        b.putLong(at + 12, sepPrefixHigh);
        b.putInt(at + 20, sepPrefixLow);
    }

    private static int absolute(int relative, int from) {
        return relative >= 0 ? relative + from : relative - from;
    }

    /**
     * {@link #search} for a cold leaf: guesses the key's position by interpolating its 12-byte prefix
     * between the first and last item's, then gallops from the guess and finishes with a binary search
     * of the bracket. The first and last item are read independently (their misses overlap) and the
     * guess usually lands within a few items, so a cold leaf costs about two rounds of cache misses
     * instead of one per binary-search probe. Same result as {@link #search}, whatever the keys.
     */
    int locate(byte[] key, int keyOffset, int keyLength, long k0, int k1, ByteBuffer b, int base, int n) {
        if (n < 8) {
            return search(key, keyOffset, keyLength, k0, k1, b, base, n);
        }
        int last = n - 1;
        int first = base;
        int end = base + last * ITEM;
        long f0 = b.getLong(first + 12);
        long l0 = b.getLong(end + 12);
        int f1 = b.getInt(first + 20);
        int l1 = b.getInt(end + 20);
        int c = compare(key, keyOffset, keyLength, k0, k1, b, first);
        if (c <= 0) {
            return c == 0 ? 0 : -1;
        }
        c = compare(key, keyOffset, keyLength, k0, k1, b, end);
        if (c >= 0) {
            return c == 0 ? last : -(n + 1);
        }
        // first < key < last: their common leading bits are the key's too; interpolate on the next 64
        int shift = f0 != l0 ? Long.numberOfLeadingZeros(f0 ^ l0) : 64;
        long span = window(l0, l1, shift) - window(f0, f1, shift);
        long offset = window(k0, k1, shift) - window(f0, f1, shift);
        int below = 0; // an item known smaller than the key
        int above = last; // an item known greater
        int guess = 1 + (int) (unsigned(offset) / unsigned(span) * (last - 1));
        if (guess >= last) {
            guess = last - 1;
        }
        c = compare(key, keyOffset, keyLength, k0, k1, b, base + guess * ITEM);
        if (c == 0) {
            return guess;
        }
        if (c > 0) {
            below = guess;
            for (int step = 1; below + step < above; step <<= 1) {
                int i = below + step;
                c = compare(key, keyOffset, keyLength, k0, k1, b, base + i * ITEM);
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
                c = compare(key, keyOffset, keyLength, k0, k1, b, base + i * ITEM);
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
        return absolute(search(key, keyOffset, keyLength, k0, k1, b, base + lo * ITEM, above - lo), lo);
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

    private static double unsigned(long v) {
        return (v >>> 1) * 2.0 + (v & 1);
    }

    /** Binary search over items at base. @return the index, or -(insertion point) - 1 */
    int search(byte[] key, int keyOffset, int keyLength, long k0, int k1, ByteBuffer b, int base, int n) {
        int lo = 0;
        int hi = n - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int c = compare(key, keyOffset, keyLength, k0, k1, b, base + mid * ITEM);
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
     * Compares the key (whose first 12 bytes, zero-padded, are k0 and k1) with an item's key, unsigned
     * byte order. Equal padded prefixes with a key of at most 12 bytes mean one key starts the other, so
     * lengths decide; only longer keys that tie are compared with the row.
     */
    int compare(byte[] key, int keyOffset, int keyLength, long k0, int k1, ByteBuffer b, int item) {
        long s0 = b.getLong(item + 12);
        if (k0 != s0) {
            return Long.compareUnsigned(k0, s0);
        }
        int s1 = b.getInt(item + 20);
        if (k1 != s1) {
            return Integer.compareUnsigned(k1, s1);
        }
        int stored = b.getInt(item + 8) & ~GHOST;
        if (keyLength <= PREFIX || stored <= PREFIX) {
            return Integer.compare(keyLength, stored);
        }
        return rows.compareKeyTail(b.getLong(item), key, keyOffset, keyLength, PREFIX);
    }

    /** Key bytes 0-7, zero-padded, as a big-endian long. */
    public static long prefixHigh(byte[] key, int offset, int length) {
        if (length >= 8) {
            return (long) LONG_BE.get(key, offset);
        }
        long p = 0;
        for (int i = 0; i < 8; i++) {
            p = p << 8 | (i < length ? key[offset + i] & 0xFF : 0);
        }
        return p;
    }

    /** Key bytes 8-11, zero-padded, as a big-endian int. */
    public static int prefixLow(byte[] key, int offset, int length) {
        if (length >= PREFIX) {
            return (int) INT_BE.get(key, offset + 8);
        }
        int p = 0;
        for (int i = 8; i < length; i++) {
            p = p << 8 | key[offset + i] & 0xFF;
        }
        return length <= 8 ? 0 : p << 8 * (PREFIX - length); // zero-padded to 4 bytes
    }
}
