package io.sluice.pagestore.internal.index;

import io.sluice.query.internal.IndexPage;

import io.sluice.binary.internal.BinaryContext;
import io.sluice.protocol.internal.EntryBatch;
import io.sluice.pagestore.internal.page.RowBatchWriter;
import io.sluice.pagestore.internal.page.RowStore;
import io.sluice.pagestore.internal.tree.BPlusTree;
import io.sluice.pagestore.internal.tree.SortedWalk;
import io.sluice.pagestore.internal.tree.TreePageIO;
import java.util.Arrays;

/**
 * The field indexes of one partition ({@link IndexTree} each), by id. Creating one fills it from the partition's
 * rows in sorted passes; scans read it in index order. Every method runs under the partition's lock, which the
 * caller holds (the write lock to create, drop or destroy; the read lock at least to scan).
 *
 * <p>Indexes are derived data and are not written to checkpoints or the log: a checkpoint holds entries, and a
 * restarted node creates the partition's indexes before it loads the checkpoint and replays the log, whose
 * batches fill them through the ordinary sorted pass. Copying index pages into checkpoints would double what a
 * checkpoint writes (and change its format) to save a pass the load makes anyway.
 */
public final class PartitionIndexes {

    /** Changes gathered before a sorted pass while an index is filled (bounds the fill's working memory). */
    static final int FILL_CHUNK = 64 * 1024;

    private final RowStore rows;
    private final BinaryContext binary;
    /** Replaced, never changed in place, under the write lock: a reader holding the read lock sees a stable array. */
    private volatile IndexTree[] trees = new IndexTree[0];
    /** The trees' fields, located once per entry for all of them; replaced with {@link #trees} (the write lock). */
    private IndexedFields fields = IndexedFields.NONE;

    /** Index changes of streamed batches not yet applied to the trees (under the write lock). */
    private final HeldIndexChanges held;

    public PartitionIndexes(RowStore rows, BinaryContext binary) {
        this(rows, binary, HeldChangesBudget.withDefaultLimit());
    }

    /** Indexes whose batches' changes are held within the region's {@code budget} ({@link HeldIndexChanges}). */
    public PartitionIndexes(RowStore rows, BinaryContext binary, HeldChangesBudget budget) {
        this.rows = rows;
        this.binary = binary;
        this.held = new HeldIndexChanges(budget);
    }

    HeldIndexChanges held() {
        return held;
    }

    /**
     * Whether index changes are held, not yet in the trees: apply them ({@link IndexChanges#applyHeld}) under the
     * write lock before the trees are read or written otherwise. Under the partition's lock (read or write).
     */
    public boolean holding() {
        return held.any();
    }

    /** The most changes one index holds (0: none); read without the partition's lock, a hint (see {@link #holding}). */
    public int heldChanges() {
        return held.largest();
    }

    IndexTree[] trees() {
        return trees;
    }

    /** The fields of {@link #trees()}, in the same order (under the write lock). */
    IndexedFields fields() {
        return fields;
    }

    /** Replaces the trees (under the write lock), and their fields with them. */
    private void trees(IndexTree[] t) {
        IndexSpec[] specs = new IndexSpec[t.length];
        for (int i = 0; i < t.length; i++) {
            specs[i] = t[i].spec;
        }
        fields = IndexedFields.of(binary, specs);
        held.treesAdded(t.length - trees.length);
        trees = t;
    }

    public boolean isEmpty() {
        return trees.length == 0;
    }

    /** The ids of the indexes, ascending. */
    public int[] ids() {
        IndexTree[] t = trees;
        int[] ids = new int[t.length];
        for (int i = 0; i < t.length; i++) {
            ids[i] = t[i].spec.id();
        }
        Arrays.sort(ids);
        return ids;
    }

    /**
     * Whether index {@code id} holds every entry (no write found the region full in its pass): then the entries'
     * links its items hold lead to live rows (for a consistency check). @throws UnknownIndexException if none
     */
    public boolean complete(int id) {
        IndexTree t = find(id);
        if (t == null) {
            throw new UnknownIndexException(id);
        }
        return t.incomplete() == null;
    }

    /** The tree of index {@code id} (for a consistency check of the partition's pages). @throws UnknownIndexException if none */
    public BPlusTree indexTree(int id) {
        IndexTree t = find(id);
        if (t == null) {
            throw new UnknownIndexException(id);
        }
        return t.tree;
    }

    /**
     * Index rows inserted, removed or relinked in index {@code id} since it was created (its fill included): what
     * the writes cost it; a write that leaves its key and row alone adds nothing.
     *
     * @throws UnknownIndexException if there is no such index
     */
    public long changesApplied(int id) {
        IndexTree t = find(id);
        if (t == null) {
            throw new UnknownIndexException(id);
        }
        return t.changesApplied();
    }

    /** The spec of every index. */
    public IndexSpec[] specs() {
        IndexTree[] t = trees;
        IndexSpec[] result = new IndexSpec[t.length];
        for (int i = 0; i < t.length; i++) {
            result[i] = t[i].spec;
        }
        return result;
    }

    /**
     * Adds the index and fills it from the partition's tree in sorted passes of up to {@value #FILL_CHUNK}
     * entries. Nothing if the same index exists.
     *
     * @throws IllegalArgumentException if an index with the spec's id has other fields
     * @throws io.sluice.DataRegionFullException if the region has no room (the index is not added, its pages freed)
     */
    public void create(IndexSpec spec, BPlusTree partition) {
        IndexTree existing = find(spec.id());
        if (existing != null) {
            if (!existing.spec.equals(spec)) {
                throw new IllegalArgumentException("index " + spec.id() + " exists on fields " + existing.spec.fields()
                        + ", not " + spec.fields());
            }
            return;
        }
        IndexTree index = new IndexTree(spec, rows);
        IndexedFields located = IndexedFields.of(binary, new IndexSpec[] {spec});
        long[] ranges = new long[located.count()];
        int[] slots = located.slots(0);
        IndexOps ops = new IndexOps();
        SortedWalk walk = new SortedWalk(TreePageIO.leafCapacity(rows.memory().pageSize()));
        RowBatchWriter writer = new RowBatchWriter(rows);
        byte[] lengths = new byte[EntryBatch.ENTRY_HEADER];
        byte[][] row = {new byte[256]};
        try {
            partition.scan(null, link -> {
                rows.read(link, 0, lengths, 0, EntryBatch.ENTRY_HEADER);
                int kl = IndexOps.getInt(lengths, 0);
                int vl = IndexOps.getInt(lengths, 4);
                if (row[0].length < kl + vl) {
                    row[0] = new byte[Math.max(kl + vl, row[0].length * 2)];
                }
                rows.read(link, EntryBatch.ENTRY_HEADER, row[0], 0, kl + vl);
                located.locate(row[0], kl, vl, ranges);
                index.keys.append(ops, IndexOps.PUT, link, row[0], 0, kl, row[0], ranges, slots,
                        IndexKeys.keyHash(row[0], 0, kl));
                if (ops.count() >= FILL_CHUNK) {
                    index.applySorted(ops, walk, writer);
                    ops.clear();
                }
                return true;
            });
            index.applySorted(ops, walk, writer);
        } catch (RuntimeException e) {
            index.destroy();
            throw e;
        }
        IndexTree[] t = Arrays.copyOf(trees, trees.length + 1);
        t[t.length - 1] = index;
        trees(t);
    }

    /** Drops the index and frees its pages. @return false if there was none with this id */
    public boolean drop(int id) {
        IndexTree[] t = trees;
        for (int i = 0; i < t.length; i++) {
            if (t[i].spec.id() == id) {
                IndexTree[] rest = new IndexTree[t.length - 1];
                System.arraycopy(t, 0, rest, 0, i);
                System.arraycopy(t, i + 1, rest, i, t.length - i - 1);
                trees(rest);
                held.drop(t[i]);
                t[i].destroy();
                return true;
            }
        }
        return false;
    }

    /** Empties every index, keeping it (the partition's entries are all being replaced): its pages are freed. */
    public void clear() {
        IndexTree[] t = trees;
        IndexTree[] fresh = new IndexTree[t.length];
        for (int i = 0; i < t.length; i++) {
            fresh[i] = new IndexTree(t[i].spec, rows);
        }
        trees(fresh);
        held.drop(t);
        for (IndexTree index : t) {
            index.destroy();
        }
    }

    /** Frees every index's pages (the partition is destroyed). */
    public void destroy() {
        IndexTree[] t = trees;
        trees(new IndexTree[0]);
        held.drop(t);
        for (IndexTree index : t) {
            index.destroy();
        }
    }

    /**
     * Entries of index {@code id} within the bounds, in index order (see
     * {@link io.sluice.pagestore.internal.PartitionIndexAccess#scan} for the bounds' meaning).
     *
     * @throws UnknownIndexException if there is no such index
     * @throws IllegalStateException if the index is incomplete
     */
    public void scan(int id, byte[] lower, boolean lowerInclusive, byte[] upper, boolean upperInclusive,
                     byte[] after, IndexVisitor visitor) {
        IndexScan.scan(readable(id).tree, rows, lower, lowerInclusive, upper, upperInclusive, after, visitor);
    }

    /**
     * Up to {@code max} entries of index {@code id} within the bounds, after {@code after}, appended to the page in
     * index order ({@link IndexScan#readPage}).
     *
     * @return whether the page was filled (more may follow)
     * @throws UnknownIndexException if there is no such index
     * @throws IllegalStateException if the index is incomplete
     */
    public boolean readPage(int id, byte[] lower, boolean lowerInclusive, byte[] upper, boolean upperInclusive,
                            byte[] after, int max, IndexPage page) {
        return IndexScan.readPage(readable(id).tree, rows, lower, lowerInclusive, upper, upperInclusive, after, max,
                page);
    }

    /**
     * The first index key of index {@code id} at or after {@code from}, or null if there is none; reads no entry.
     *
     * @throws UnknownIndexException if there is no such index
     * @throws IllegalStateException if the index is incomplete
     */
    public byte[] firstKey(int id, byte[] from) {
        return IndexScan.firstKey(readable(id).tree, rows, from);
    }

    private IndexTree readable(int id) {
        IndexTree index = find(id);
        if (index == null) {
            throw new UnknownIndexException(id);
        }
        String incomplete = index.incomplete();
        if (incomplete != null) {
            throw new IllegalStateException("index " + id + " " + index.spec.fields()
                    + " of this partition is incomplete (" + incomplete + "); drop it and create it again");
        }
        return index;
    }

    private IndexTree find(int id) {
        for (IndexTree t : trees) {
            if (t.spec.id() == id) {
                return t;
            }
        }
        return null;
    }
}
