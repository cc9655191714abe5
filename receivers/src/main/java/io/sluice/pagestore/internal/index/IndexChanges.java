package io.sluice.pagestore.internal.index;

import io.sluice.DataRegionFullException;
import io.sluice.protocol.internal.EntryBatch;
import io.sluice.pagestore.internal.page.RowBatchWriter;
import io.sluice.pagestore.internal.page.RowStore;
import io.sluice.pagestore.internal.tree.SortedWalk;
import java.util.Arrays;

/**
 * What a write does to a partition's indexes, gathered while the partition's own tree is written and applied
 * after it: for each index, the old value's index key removed ({@link #removed}, read from the old row before it
 * is freed or rewritten) and the new value's put ({@link #put}); an old key the new value keeps is not removed,
 * and if the entry's row did not move either, that index is not touched at all (an update of a field no index
 * covers). Then either one sorted pass per index ({@link #applySorted}: a batch) or a descent per change
 * ({@link #applyEach}: a single entry).
 *
 * <pre>{@code
 * changes.begin(indexes);            // nothing to do if !changes.active()
 * changes.removed(oldLink);          // before the old row is freed or rewritten
 * changes.put(key, value, newLink, true);
 * ...
 * changes.applySorted(walk, writer); // or applyEach()
 * }</pre>
 *
 * <p>A streamed batch uses {@link #hold} instead of {@link #begin}: its changes are added to the partition's held
 * ones ({@link HeldIndexChanges}) and applied with later batches'; {@link #begin} requires that none are held
 * ({@link #applyHeld} first).
 *
 * <p>Reused from write to write (one per writing thread for batches, one per partition for single entries);
 * not thread-safe: used under the written partition's write lock. An index the region has no room for is
 * marked incomplete ({@link PartitionIndexes}) and the write that filled the region stands.
 */
public final class IndexChanges {

    private final RowStore rows;
    private static final IndexTree[] NONE = new IndexTree[0];

    private IndexTree[] trees = NONE;
    private IndexedFields fields = IndexedFields.NONE;
    /** The located fields of the value at hand ({@link IndexedFields#locate}). */
    private long[] ranges = new long[4];
    /** The changes of the write at hand, per index: {@link #own}, or the partition's held ones ({@link #hold}). */
    private IndexOps[] ops = new IndexOps[0];
    /** This writer's own change arrays (a write applied at once). */
    private IndexOps[] own = new IndexOps[0];
    /** Lends its sort arrays to held changes' passes ({@link HeldIndexChanges}): they keep none. */
    private final IndexOps scratch = new IndexOps();
    /** The partition whose changes this write adds to its held ones, or null (applied at once). */
    private PartitionIndexes holder;
    /** Per index, the change {@link #removed} made for the entry being written, or -1. */
    private int[] oldOp = new int[0];
    private final byte[] lengths = new byte[EntryBatch.ENTRY_HEADER];
    private byte[] row = new byte[256];

    public IndexChanges(RowStore rows) {
        this.rows = rows;
    }

    /** Starts gathering the changes of one write to the partition whose indexes these are. */
    public void begin(PartitionIndexes indexes) {
        if (indexes.holding()) {
            throw new IllegalStateException("the partition holds index changes: apply them first (applyHeld)");
        }
        begin(indexes, false);
    }

    /**
     * Starts gathering the changes of a batch into the partition's held changes ({@link HeldIndexChanges}):
     * {@link #applySorted} then applies them with the ones held before, or keeps them all for a later pass.
     */
    public void hold(PartitionIndexes indexes) {
        begin(indexes, true);
    }

    private void begin(PartitionIndexes indexes, boolean hold) {
        trees = indexes.trees();
        fields = indexes.fields();
        if (ranges.length < fields.count()) {
            ranges = new long[fields.count()];
        }
        int n = trees.length;
        if (own.length < n) {
            int from = own.length;
            own = Arrays.copyOf(own, n);
            for (int i = from; i < n; i++) {
                own[i] = new IndexOps();
            }
            ops = new IndexOps[n];
            oldOp = new int[n];
        }
        holder = hold ? indexes : null;
        if (hold) {
            indexes.held().opsFor(trees, ops);
        } else {
            for (int i = 0; i < n; i++) {
                ops[i] = own[i];
                ops[i].clear();
            }
        }
        for (int i = 0; i < n; i++) {
            oldOp[i] = -1;
        }
    }

    /**
     * Applies the partition's held changes ({@link HeldIndexChanges}), one sorted pass per index: before its
     * index trees are read, or written otherwise. Under the partition's write lock; not during a write of this
     * writer.
     */
    public void applyHeld(PartitionIndexes indexes, SortedWalk walk, RowBatchWriter writer) {
        if (indexes.holding()) {
            indexes.held().apply(indexes.trees(), walk, writer, scratch);
        }
    }

    /** Whether the partition has indexes (else nothing needs telling). */
    public boolean active() {
        return trees.length > 0;
    }

    /**
     * The entry whose row this is loses its index keys for good (it is removed): call before the row is freed.
     */
    public void removedEntry(long oldLink) {
        removed(oldLink);
        Arrays.fill(oldOp, -1); // nothing to pair with a put, nothing for cancelRemoved to take back
    }

    /**
     * The entry whose row this is loses its index keys, and gets new ones by the {@link #put} that follows (call
     * before the row is freed or rewritten).
     */
    public void removed(long oldLink) {
        int keyLength = readRow(oldLink);
        int valueLength = IndexOps.getInt(lengths, 4);
        fields.locate(row, keyLength, valueLength, ranges);
        int hash = IndexKeys.keyHash(row, 0, keyLength);
        for (int i = 0; i < trees.length; i++) {
            oldOp[i] = trees[i].keys.append(ops[i], IndexOps.REMOVE, oldLink, row, 0, keyLength, row, ranges,
                    fields.slots(i), hash);
        }
    }

    /**
     * The entry gets index keys for its new value, stored at {@code link}. {@code afterRemoved}: the entry's old
     * keys were just given to {@link #removed}; an old key equal to a new one is not removed, and if the link is
     * the old one too, neither change is made.
     */
    public void put(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength,
                    long link, boolean afterRemoved) {
        fields.locate(value, valueOffset, valueLength, ranges);
        int hash = IndexKeys.keyHash(key, keyOffset, keyLength);
        for (int i = 0; i < trees.length; i++) {
            IndexOps o = ops[i];
            int op = trees[i].keys.append(o, IndexOps.PUT, link, key, keyOffset, keyLength, value, ranges,
                    fields.slots(i), hash);
            int old = afterRemoved ? oldOp[i] : -1;
            if (op >= 0 && old >= 0 && o.sameKey(old, op)) {
                o.kind(old, IndexOps.SKIP);
                if (o.link(old) == link) {
                    o.dropLast();
                }
            }
            oldOp[i] = -1;
        }
    }

    /**
     * Forgets the changes the last {@link #removed} made: the entry's write failed before its row was touched
     * (the region filled up), so it keeps its old value and its index keys.
     */
    public void cancelRemoved() {
        for (int i = 0; i < trees.length; i++) {
            if (oldOp[i] >= 0) {
                ops[i].dropLast();
                oldOp[i] = -1;
            }
        }
    }

    /** {@link #put} for the value now stored in the row at {@code link} (an in-place rewrite of its bytes). */
    public void putRow(long link, boolean afterRemoved) {
        int keyLength = readRow(link);
        int valueLength = IndexOps.getInt(lengths, 4);
        put(row, 0, keyLength, row, keyLength, valueLength, link, afterRemoved);
    }

    /**
     * Applies the changes: one sorted pass per index (a batch). Changes {@link #hold held} are added to the
     * partition's, applied with them once enough are held ({@link HeldIndexChanges#written}).
     */
    public void applySorted(SortedWalk walk, RowBatchWriter writer) {
        if (holder != null) {
            try {
                holder.held().written(trees, walk, writer, scratch);
            } finally {
                end();
            }
            return;
        }
        for (int i = 0; i < trees.length; i++) {
            if (ops[i].count() > 0) {
                try {
                    trees[i].applySorted(ops[i], walk, writer);
                } catch (DataRegionFullException e) {
                    trees[i].markIncomplete(e.getMessage());
                }
            }
        }
        end();
    }

    /** Applies the changes: a descent per change (a single entry). */
    public void applyEach() {
        for (int i = 0; i < trees.length; i++) {
            if (ops[i].count() > 0) {
                try {
                    trees[i].applyEach(ops[i]);
                } catch (DataRegionFullException e) {
                    trees[i].markIncomplete(e.getMessage());
                }
            }
        }
        end();
    }

    /** Forgets the write's changes and the partition's trees (keeps the arrays for the next write). */
    public void end() {
        for (int i = 0; i < trees.length; i++) {
            if (holder == null) {
                ops[i].clear();
            }
            ops[i] = null;
        }
        holder = null;
        trees = NONE;
        fields = IndexedFields.NONE;
    }

    /** Reads the row's key and value into {@link #row} (key first). @return the key's length */
    private int readRow(long link) {
        rows.read(link, 0, lengths, 0, EntryBatch.ENTRY_HEADER);
        int keyLength = IndexOps.getInt(lengths, 0);
        int valueLength = IndexOps.getInt(lengths, 4);
        int total = keyLength + valueLength;
        if (row.length < total) {
            row = new byte[Math.max(total, row.length * 2)];
        }
        rows.read(link, EntryBatch.ENTRY_HEADER, row, 0, total);
        return keyLength;
    }
}
