package io.sluice.pagestore.internal.index;

import io.sluice.pagestore.internal.page.RowBatchWriter;
import io.sluice.pagestore.internal.page.RowStore;
import io.sluice.pagestore.internal.tree.BPlusTree;
import io.sluice.pagestore.internal.tree.SortedWalk;
import io.sluice.pagestore.internal.tree.TreeBuilder;
import io.sluice.pagestore.internal.tree.TreePageIO;

/**
 * One field index of one partition: a {@link BPlusTree} whose keys are index keys ({@link IndexKeys}) and whose
 * links lead to the entries' rows. The tree keeps keys in items ({@link BPlusTree#keysInItems}): an index key that
 * fits an item's key bytes (12 for narrow items, 28 for wide ones) is held whole in the item, whose link is the
 * entry's row link: no index row. A longer index key has an index row (key = the index key, value = the entry's
 * 8-byte row link; layout in {@link IndexOps}), which the item refers to. Both kinds may live in one tree.
 *
 * <pre>
 * An index entry       the item's key bytes            the item's link     index row
 * key &lt;= 12 / 28 bytes  the whole index key (zero-padded)  the entry's row     none
 * longer               its first 12 / 28 bytes           the index row       8 + key + 8 bytes
 * </pre>
 *
 * <p>The tree's item size is chosen while it is empty (at its first write, and again whenever it empties), from
 * the last index key made: narrow items ({@link TreePageIO#ITEM}) for a key of up to 12 bytes (held in the item);
 * wide ones ({@link TreePageIO#WIDE_ITEM}) for a key of up to 28 bytes (held in the item: no index rows for
 * StockOrder's {@code secCode} and {@code account} indexes); for longer keys, narrow items for field parts of up to
 * {@value #NARROW_FIELD_PART} bytes, which leave room in the item for at least 2 of the 4 bytes from the entry
 * key, and wide ones for longer field parts, so that index keys of one field value, which share their first bytes,
 * still compare in the page; only a tie on all the bytes an item carries reads the index row.
 *
 * <p>Why index rows at all for long keys, rather than items that point at the entry's row and compare by
 * extracting the fields from it: a comparison that ties on all the bytes an item carries reads a short index
 * row instead of walking to a field inside a value (fragments and footer included) on every probe. A key held in
 * its item never needs a row to compare, so its link can be the entry's own: the tree never reads, frees or keeps
 * it as a ghost (a separator copied from such an item is a key only; its link may go stale when the entry moves
 * or goes, and nothing reads it). An index row costs 8 + index key + 8 bytes and a write through the free list
 * per entry and index, and rewriting its 8-byte link when an entry's row moves; a key in its item costs neither
 * (a relink rewrites the item's link).
 *
 * <p>Under the partition's lock (readers share, a writer holds it alone).
 */
final class IndexTree {

    /**
     * Field parts longer than this get wide items: a narrow item's 12 bytes then hold fewer than 2 of the 4 bytes
     * from the entry key, and keys of one field value would compare by reading their rows. Shorter ones keep
     * narrow items (more per page, less to move per insert).
     */
    static final int NARROW_FIELD_PART = TreePageIO.PREFIX - 2;

    final IndexSpec spec;
    final BPlusTree tree;
    final IndexKeys keys;
    /** Changes gathered over several batches and not yet applied ({@link HeldIndexChanges}), or null. */
    IndexOps held;
    private final RowStore rows;
    private final EachChange each = new EachChange();
    /** Changes made to the tree so far (index rows inserted, removed or relinked). */
    private long changesApplied;
    /** Why the index no longer holds every entry (a write found the region full), or null. */
    private volatile String incomplete;

    IndexTree(IndexSpec spec, RowStore rows) {
        this.spec = spec;
        this.rows = rows;
        this.tree = new BPlusTree(rows);
        this.tree.keysInItems(true);
        this.keys = new IndexKeys();
    }

    long changesApplied() {
        return changesApplied;
    }

    /** Null, or why the index misses entries. */
    String incomplete() {
        return incomplete;
    }

    void markIncomplete(String why) {
        if (incomplete == null) {
            incomplete = why;
        }
    }

    /**
     * Applies the changes in one ordered pass: sorted once by index key, then one {@link SortedWalk} that stays
     * on a leaf while the keys belong to it; new index rows are packed into pages taken once from the free list.
     *
     * @throws io.sluice.DataRegionFullException if the region filled up (changes before the failing one applied)
     */
    void applySorted(IndexOps ops, SortedWalk walk, RowBatchWriter writer) {
        applySorted(ops, walk, writer, false);
    }

    /**
     * {@link #applySorted(IndexOps, SortedWalk, RowBatchWriter)}; {@code repeats}: the changes come from several
     * writes and may change one index key more than once (held changes, {@link HeldIndexChanges}): only the last
     * change of each key is applied.
     */
    void applySorted(IndexOps ops, SortedWalk walk, RowBatchWriter writer, boolean repeats) {
        int n = ops.count();
        if (n == 0) {
            return;
        }
        chooseItems();
        int[] order = ops.sorted();
        boolean empty = tree.isEmpty();
        if (repeats || empty) {
            ops.keepLastOfEachKey(order);
        }
        if (empty) {
            build(ops, order, writer);
            return;
        }
        byte[] b = ops.bytes();
        long ahead = ops.length() + 4L * n; // rows still to write, with their slots: lets the writer pick a roomy page
        writer.begin();
        walk.start(tree, true); // a batch's index keys come many to a leaf
        try {
            for (int k = 0; k < n; k++) {
                int e = order[k];
                byte kind = ops.kind(e);
                if (kind == IndexOps.SKIP) {
                    continue;
                }
                int ko = ops.keyOffset(e);
                int kl = ops.keyLength(e);
                ahead -= IndexOps.HEADER + kl + IndexOps.LINK + 4;
                changesApplied++;
                boolean present = walk.seek(b, ko, kl, ops.prefixHigh(e), ops.prefixLow(e));
                if (kind == IndexOps.REMOVE) {
                    if (present) {
                        walk.remove(b, ko, kl);
                    }
                } else if (tree.keyInItem(kl)) { // the item is the whole index entry: no index row
                    long entry = IndexOps.getLong(b, ko + kl);
                    if (present) { // the key stays, the entry's row moved
                        walk.replace(entry);
                    } else {
                        walk.reserveForInsert();
                        walk.insert(entry, b, ko, kl);
                    }
                } else if (present) {
                    rows.overwriteValue(walk.link(), kl, IndexOps.LINK, 0, b, ko + kl, IndexOps.LINK);
                } else {
                    walk.reserveForInsert(); // allocate before mutating
                    long link = writer.add(b, ops.start(e), kl, IndexOps.LINK, Math.max(0, ahead));
                    walk.insert(link, b, ko, kl);
                }
            }
        } finally {
            walk.end();
            writer.finish();
        }
    }

    /**
     * The pass into an empty tree (a partition's first after its indexes were created or emptied: all of a fresh
     * cache's first load that a query applies at once): its puts, netted to the last change of each key and sorted,
     * are written into leaves one after the other and the inner levels on top ({@link TreeBuilder}), with no
     * descent, search or item move per key; a removal finds nothing to remove. If the region fills up, the tree
     * stays empty (the builder gives back its pages and rows) and the caller marks the index incomplete, as after a
     * walk that stopped part way.
     */
    private void build(IndexOps ops, int[] order, RowBatchWriter writer) {
        byte[] b = ops.bytes();
        int n = ops.count();
        long ahead = ops.length() + 4L * n;
        TreeBuilder builder = new TreeBuilder(tree);
        writer.begin();
        try {
            try {
                for (int k = 0; k < n; k++) {
                    int e = order[k];
                    if (ops.kind(e) != IndexOps.PUT) {
                        continue;
                    }
                    int ko = ops.keyOffset(e);
                    int kl = ops.keyLength(e);
                    ahead -= IndexOps.HEADER + kl + IndexOps.LINK + 4;
                    builder.reserve(); // allocate before writing the row
                    long link = tree.keyInItem(kl) ? IndexOps.getLong(b, ko + kl)
                            : writer.add(b, ops.start(e), kl, IndexOps.LINK, Math.max(0, ahead));
                    builder.add(link, b, ko, kl, ops.prefixHigh(e), ops.prefixLow(e));
                    changesApplied++;
                }
            } finally {
                writer.finish(); // its page back to the free list before an abort frees rows in it
            }
            builder.finish(); // aborts itself if it fails
        } catch (RuntimeException e) {
            builder.abort(); // nothing after a finish
            throw e;
        }
    }

    /**
     * Applies the changes one by one, in the order they were made: a descent of the tree each (single-entry
     * writes, and the entry-by-entry baseline the batch pass is measured against).
     *
     * @throws io.sluice.DataRegionFullException if the region filled up (changes before the failing one applied)
     */
    void applyEach(IndexOps ops) {
        chooseItems();
        for (int e = 0, n = ops.count(); e < n; e++) {
            byte kind = ops.kind(e);
            if (kind == IndexOps.SKIP) {
                continue;
            }
            changesApplied++;
            each.set(ops, e);
            tree.invoke(ops.bytes(), ops.keyOffset(e), ops.keyLength(e), each);
        }
        each.set(null, 0);
    }

    /**
     * While the tree is empty: its item size for the index keys of the changes about to be applied (the last one
     * made): items that hold the whole key when it fits one (narrow up to 12 bytes, wide up to 28), else as the
     * field part needs.
     */
    private void chooseItems() {
        if (tree.isEmpty()) {
            int key = keys.lastKeyLength();
            tree.itemSize(key <= TreePageIO.PREFIX ? TreePageIO.ITEM
                    : key <= TreePageIO.WIDE_PREFIX || keys.lastFieldPart() > NARROW_FIELD_PART ? TreePageIO.WIDE_ITEM
                    : TreePageIO.ITEM);
        }
    }

    /** Frees every page and row of the index. */
    void destroy() {
        tree.destroy();
    }

    /** One change as a tree closure (reused: the write lock is held). */
    private final class EachChange implements BPlusTree.InvokeClosure {
        private IndexOps ops;
        private int op;

        void set(IndexOps ops, int op) {
            this.ops = ops;
            this.op = op;
        }

        @Override
        public long apply(long old) {
            if (ops.kind(op) == IndexOps.REMOVE) {
                return 0;
            }
            byte[] b = ops.bytes();
            int ko = ops.keyOffset(op);
            int kl = ops.keyLength(op);
            if (tree.keyInItem(kl)) {
                return ops.link(op); // inserted or relinked in the item; the tree frees nothing of the caller's
            }
            if (old != 0) {
                rows.overwriteValue(old, kl, IndexOps.LINK, 0, b, ko + kl, IndexOps.LINK);
                return old;
            }
            return rows.add(b, ko, kl, b, ko + kl, IndexOps.LINK);
        }
    }
}
