package io.sluice.pagestore.internal.tree;

import static io.sluice.pagestore.internal.tree.TreePageIO.ITEMS;
import static io.sluice.pagestore.internal.tree.TreePageIO.child;
import static io.sluice.pagestore.internal.tree.TreePageIO.count;

import io.sluice.pagestore.internal.page.PageCheck;
import io.sluice.pagestore.internal.page.PageHeader;
import io.sluice.pagestore.internal.page.PageMemory;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Checks one {@link BPlusTree} page by page: every page is a tree page used once, leaves exactly at the
 * tree's height and inner pages above, counts within capacity, keys strictly ascending within and across
 * leaves, every key of child {@code i} within (separator(i-1), separator(i)], every item (leaf entry or
 * separator) pointing at a sound row whose stored key is the item's key (length and in-page prefix
 * included) or, for a key the item holds whole ({@link BPlusTree#keyInItem}), a leaf item's link leading to a
 * live row (not counted as the tree's), and the leaves' items adding up to the tree's size. Problems go to
 * the {@link PageCheck}.
 *
 * <p>The caller holds the partition's lock (no writer on the tree).
 */
public final class TreeCheck {

    private final BPlusTree tree;
    private final PageCheck check;
    private final PageMemory memory;
    private final String where;
    private final int separators;
    private final int leafCapacity;
    private final int innerCapacity;
    private final int itemSize;
    /** Whether the caller's links in items that hold their keys whole must lead to live rows. */
    private final boolean callersLinksLive;
    /** The last key seen in key order (leaf items only), to check order across leaves. */
    private byte[] previous;
    private long items;

    private TreeCheck(BPlusTree tree, PageCheck check, String where, boolean callersLinksLive) {
        this.tree = tree;
        this.callersLinksLive = callersLinksLive;
        this.check = check;
        this.memory = check.memory();
        this.where = where;
        this.itemSize = tree.itemSize();
        this.leafCapacity = tree.leafCapacity();
        this.innerCapacity = tree.innerCapacity();
        this.separators = tree.separatorsStart();
    }

    /**
     * Checks the tree; problems are recorded in {@code check}, each starting with {@code where}.
     *
     * @return the entries found in its leaves
     */
    public static long check(BPlusTree tree, PageCheck check, String where) {
        return check(tree, check, where, true);
    }

    /**
     * {@link #check(BPlusTree, PageCheck, String)}, checking the caller's links of keys held whole in items (leaf
     * items') only if {@code callersLinksLive}: an index that missed changes (the region filled up in its pass,
     * the index marked incomplete) may hold links to rows its entries no longer have.
     *
     * @return the entries found in its leaves
     */
    public static long check(BPlusTree tree, PageCheck check, String where, boolean callersLinksLive) {
        TreeCheck c = new TreeCheck(tree, check, where, callersLinksLive);
        long root = tree.root();
        if (root == PageMemory.NULL_PAGE) {
            if (tree.size() != 0) {
                check.problem(where + ": the tree has no root but counts " + tree.size() + " entries");
            }
            return 0;
        }
        c.page(root, 0, null, null);
        if (c.items != tree.size()) {
            check.problem(where + ": the tree counts " + tree.size() + " entries but its leaves hold " + c.items);
        }
        return c.items;
    }

    /** Checks the subtree at {@code page}, whose keys must lie in (low, high] (null: unbounded). */
    private void page(long page, int depth, byte[] low, byte[] high) {
        String at = where + ": tree page " + page + " (depth " + depth + " of height " + tree.height() + ")";
        if (!check.claim(page, PageCheck.TREE, at)) {
            return;
        }
        ByteBuffer b = memory.buffer(page);
        int p = memory.offset(page);
        byte type = PageHeader.type(b, p);
        boolean leafLevel = depth == tree.height() - 1;
        if (type != (leafLevel ? PageHeader.TYPE_LEAF : PageHeader.TYPE_INNER)) {
            check.problem(at + " has type " + type + "; a page at this depth must be "
                    + (leafLevel ? "a leaf (every leaf at the same depth)" : "an inner page"));
            return;
        }
        int n = count(b, p);
        if (leafLevel) {
            if (n > leafCapacity) {
                check.problem(at + " counts " + n + " items; a leaf holds " + leafCapacity);
                return;
            }
            for (int i = 0; i < n; i++) {
                byte[] key = item(b, TreePageIO.leafItem(p, i, itemSize), true, true, at + " item " + i);
                items++;
                if (key == null) {
                    continue;
                }
                if (previous != null && Arrays.compareUnsigned(previous, key) >= 0) {
                    check.problem(at + " item " + i + ": its key is not greater than the key before it in key order"
                            + (i == 0 ? " (the previous leaf's last)" : ""));
                }
                if (low != null && Arrays.compareUnsigned(key, low) <= 0
                        || high != null && Arrays.compareUnsigned(key, high) > 0) {
                    check.problem(at + " item " + i + ": its key is outside the bounds its parent's separators give");
                }
                previous = key;
            }
            return;
        }
        if (n < 1 || n > innerCapacity) {
            check.problem(at + " counts " + n + " separators; an inner page holds 1.." + innerCapacity);
            return;
        }
        byte[][] keys = new byte[n][];
        for (int i = 0; i < n; i++) {
            int sep = TreePageIO.separatorItem(p, separators, i, itemSize);
            keys[i] = item(b, sep, false, TreePageIO.ghost(b, sep), at + " separator " + i);
            if (keys[i] == null) {
                return; // bounds unknown: checking the children against them would only repeat the problem
            }
            if (i > 0 && Arrays.compareUnsigned(keys[i - 1], keys[i]) >= 0) {
                check.problem(at + " separator " + i + " is not greater than separator " + (i - 1));
                return;
            }
            if (low != null && Arrays.compareUnsigned(keys[i], low) <= 0
                    || high != null && Arrays.compareUnsigned(keys[i], high) > 0) {
                check.problem(at + " separator " + i + " is outside the bounds its parent's separators give");
            }
        }
        for (int i = 0; i <= n; i++) {
            page(child(b, p, i), depth + 1, i == 0 ? low : keys[i - 1], i == n ? high : keys[i]);
        }
    }

    /**
     * Reads an item's row and compares its stored key with the item (length and in-page prefix). A leaf item
     * counts its row against the data page; a separator only if it is a ghost (it owns the row), since a live
     * separator's row is a leaf item's row as well. An item that holds its key whole ({@link BPlusTree#keyInItem})
     * has no row of the tree's: its key is the item's; a leaf item's link (the caller's, an entry's row in an
     * index tree) must be a live row, which it does not own; a separator's is not read (its entry may be gone).
     *
     * @return the row's key, or null if row or item is damaged
     */
    private byte[] item(ByteBuffer b, int item, boolean leaf, boolean owner, String at) {
        long link = TreePageIO.link(b, item);
        int stored = TreePageIO.keyLength(b, item);
        if (tree.keyInItem(stored)) {
            if (TreePageIO.ghost(b, item)) {
                check.problem(at + ": an item that holds its key whole is marked as owning a row");
                return null;
            }
            if (leaf && callersLinksLive && check.rowKey(link, false, at) == null) {
                return null;
            }
            return TreePageIO.itemKey(b, item, stored);
        }
        byte[] key = check.rowKey(link, owner, at);
        if (key == null) {
            return null;
        }
        int keyLength = TreePageIO.keyLength(b, item);
        boolean wideDiffers = itemSize == TreePageIO.WIDE_ITEM
                && (TreePageIO.extensionHigh(b, item) != TreePageIO.keyLong(key, 0, key.length, TreePageIO.PREFIX)
                || TreePageIO.extensionLow(b, item) != TreePageIO.keyLong(key, 0, key.length, TreePageIO.PREFIX + 8));
        if (keyLength != key.length || TreePageIO.prefixHigh(b, item) != TreePageIO.prefixHigh(key, 0, key.length)
                || TreePageIO.prefixLow(b, item) != TreePageIO.prefixLow(key, 0, key.length) || wideDiffers) {
            check.problem(at + ": the item's key (" + keyLength + " bytes, prefix "
                    + Long.toHexString(TreePageIO.prefixHigh(b, item)) + ") is not its row's stored key ("
                    + key.length + " bytes, prefix " + Long.toHexString(TreePageIO.prefixHigh(key, 0, key.length)) + ")");
            return null;
        }
        return key;
    }
}
