package io.sluice.pagestore.internal;

import io.sluice.DataRegionFullException;
import io.sluice.protocol.internal.EntryBatch;
import io.sluice.pagestore.internal.index.IndexChanges;
import io.sluice.pagestore.internal.index.PartitionIndexes;
import io.sluice.pagestore.internal.page.RowBatchWriter;
import io.sluice.pagestore.internal.page.RowStore;
import io.sluice.pagestore.internal.tree.BPlusTree;
import io.sluice.pagestore.internal.tree.SortedWalk;
import io.sluice.pagestore.internal.tree.TreePageIO;

/**
 * Applies an {@link EntryBatch} to a partition in one ordered pass: entry indexes sorted by key, the
 * last entry of each key wins, then for each key in order the tree is positioned (staying on a leaf
 * while keys belong to it), presence decides, and only rows that go in are written (their heads
 * packed into pages taken once from the free list). Nothing is allocated per entry.
 *
 * <p>Runs under the partition's write lock. If the region fills up midway, the keys before the
 * failing one are applied, the rest are not, and the tree and pages are consistent.
 *
 * <p>Its working state (the sort's arrays, the tree walk, the page being filled) is reused from batch
 * to batch by one thread: a region keeps one writer per writing thread ({@link DataRegion}), not one per
 * partition, so an idle partition holds none of it.
 */
final class BatchWriter {

    private final RowStore rows;
    private final BatchOrder order = new BatchOrder();
    private final RowBatchWriter rowWriter;
    private final SortedWalk walk;
    /** The batch's changes to the partition's field indexes, applied in one sorted pass per index after the rows. */
    private final IndexChanges indexChanges;
    private boolean inUse;

    BatchWriter(RowStore rows) {
        this.rows = rows;
        this.rowWriter = new RowBatchWriter(rows);
        this.walk = new SortedWalk(TreePageIO.leafCapacity(rows.memory().pageSize()));
        this.indexChanges = new IndexChanges(rows);
    }

    /** Applies the batch to the partition's tree, rows and indexes (under the partition's write lock). */
    BatchResult apply(BPlusTree tree, PartitionIndexes indexes, EntryBatch batch, BatchMode mode) {
        return apply(tree, indexes, batch, mode, true);
    }

    /**
     * {@link #apply}; {@code sortedIndexPass} false applies the index changes entry by entry instead (a descent
     * per change: the baseline the sorted pass is measured against, {@link RowByRowBaseline}).
     */
    BatchResult apply(BPlusTree tree, PartitionIndexes indexes, EntryBatch batch, BatchMode mode,
                      boolean sortedIndexPass) {
        if (inUse) { // a batch applied inside a batch (none today): a writer of its own
            return new BatchWriter(rows).apply(tree, indexes, batch, mode, sortedIndexPass);
        }
        inUse = true;
        try {
            return applyInOrder(tree, indexes, batch, mode, sortedIndexPass);
        } finally {
            inUse = false;
        }
    }

    private BatchResult applyInOrder(BPlusTree tree, PartitionIndexes indexes, EntryBatch batch, BatchMode mode,
                                     boolean sortedIndexPass) {
        int n = batch.size();
        int[] sorted = order.sort(batch);
        byte[] data = batch.data();
        // Head bytes still to write (a row's head is at most a page; +4: row header and slot): lets the
        // row writer take a page with room for many of them.
        int pageSize = rows.memory().pageSize();
        long bytesAhead = 0;
        for (int i = 0; i < n; i++) {
            int v = order.valueLength(i);
            if (v >= 0) {
                bytesAhead += Math.min(EntryBatch.ENTRY_HEADER + (long) order.keyLength(i) + v, pageSize) + 4;
            }
        }
        int inserted = 0;
        int updated = 0;
        int skipped = 0;
        int removed = 0;
        int applied = 0;
        boolean indexed = !indexes.isEmpty();
        IndexChanges changes = indexChanges;
        if (indexed && sortedIndexPass) {
            changes.hold(indexes); // applied with later batches' changes once enough are held (HeldIndexChanges)
        } else if (indexed) {
            applyHeld(indexes);
            changes.begin(indexes);
        }
        rowWriter.begin();
        walk.start(tree);
        try {
            int i = 0;
            while (i < n) {
                // a run of equal keys: the last entry of the batch (highest index, sorted last) wins
                int run = 1;
                while (i + run < n && order.sameKey(data, sorted[i], sorted[i + run])) {
                    run++;
                }
                int e = sorted[i + run - 1];
                int ko = order.keyOffset(e);
                int kl = order.keyLength(e);
                int vl = order.valueLength(e);
                boolean present = walk.seek(data, ko, kl, order.prefixHigh(e), order.prefixLow(e));
                if (vl == EntryBatch.REMOVAL) {
                    if (present) {
                        if (indexed) {
                            changes.removedEntry(walk.link());
                        }
                        walk.remove(data, ko, kl);
                        removed++;
                    } else {
                        skipped++;
                    }
                } else {
                    bytesAhead -= Math.min(EntryBatch.ENTRY_HEADER + (long) kl + vl, pageSize) + 4;
                    if (!present) {
                        walk.reserveForInsert(); // allocate before mutating: no row without its tree pages
                        // an entry's bytes are the row's stream: its head is copied in one go
                        long link = rowWriter.add(data, ko - EntryBatch.ENTRY_HEADER, kl, vl, bytesAhead);
                        walk.insert(link, data, ko, kl);
                        if (indexed) {
                            changes.put(data, ko, kl, data, ko + kl, vl, link, false);
                        }
                        inserted++;
                    } else if (mode == BatchMode.UPSERT) {
                        if (indexed) {
                            changes.removed(walk.link()); // before the old row is freed
                        }
                        long link = rowWriter.add(data, ko - EntryBatch.ENTRY_HEADER, kl, vl, bytesAhead);
                        walk.replace(link);
                        if (indexed) {
                            changes.put(data, ko, kl, data, ko + kl, vl, link, true);
                        }
                        updated++;
                    } else {
                        skipped++;
                    }
                }
                skipped += run - 1;
                applied += run;
                i += run;
            }
        } catch (DataRegionFullException e) {
            if (indexed) {
                changes.cancelRemoved(); // the failing entry kept its row and value
            }
            throw new BatchApplyException(applied, n - applied, e);
        } finally {
            walk.end(); // queued inserts reference rows already written: they always go in
            rowWriter.finish();
            if (indexed && sortedIndexPass) { // the entries applied, also of a batch that failed part way
                changes.applySorted(walk, rowWriter);
            } else if (indexed) {
                changes.applyEach();
            }
        }
        return new BatchResult(inserted, updated, skipped, removed);
    }

    /**
     * Applies the partition's held index changes ({@link io.sluice.pagestore.internal.index.HeldIndexChanges}),
     * one sorted pass per index, with this thread's walk and row writer (under the partition's write lock).
     */
    void applyHeld(PartitionIndexes indexes) {
        if (indexes.holding()) {
            indexChanges.applyHeld(indexes, walk, rowWriter);
        }
    }

    /** Marks entries that a later entry of the same key overrides (open addressing over entry indexes). */
    static boolean[] superseded(EntryBatch batch) {
        int n = batch.size();
        boolean[] result = new boolean[n];
        int capacity = Integer.highestOneBit(Math.max(4, n * 2) - 1) << 1;
        int[] table = new int[capacity];
        int mask = capacity - 1;
        byte[] data = batch.data();
        for (int i = n - 1; i >= 0; i--) {
            int ko = batch.keyOffset(i);
            int kl = batch.keyLength(i);
            int slot = hash(data, ko, kl) & mask;
            while (true) {
                int j = table[slot] - 1;
                if (j < 0) {
                    table[slot] = i + 1;
                    break;
                }
                int jo = batch.keyOffset(j);
                if (java.util.Arrays.equals(data, ko, ko + kl, data, jo, jo + batch.keyLength(j))) {
                    result[i] = true;
                    break;
                }
                slot = (slot + 1) & mask;
            }
        }
        return result;
    }

    private static int hash(byte[] data, int offset, int length) {
        int h = 1;
        for (int i = 0; i < length; i++) {
            h = 31 * h + data[offset + i];
        }
        int x = h * 0x9E3779B9;
        return x ^ (x >>> 16);
    }
}
