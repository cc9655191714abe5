package io.sluice.store;

import io.sluice.protocol.EntryBatch;
import io.sluice.store.page.RowBatchWriter;
import io.sluice.store.page.RowStore;
import io.sluice.store.tree.BPlusTree;

/**
 * Applies an {@link EntryBatch} to a partition in one ordered pass: entry indexes sorted by key, the
 * last entry of each key wins, then for each key in order the tree is positioned (staying on a leaf
 * while keys belong to it), presence decides, and only rows that go in are written (their heads
 * packed into pages taken once from the free list). Nothing is allocated per entry.
 *
 * <p>Runs under the partition's write lock. If the region fills up midway, the keys before the
 * failing one are applied, the rest are not, and the tree and pages are consistent.
 */
final class BatchWriter {

    private final RowStore rows;
    private final BPlusTree tree;
    private final BatchOrder order = new BatchOrder();
    private final RowBatchWriter rowWriter;

    BatchWriter(RowStore rows, BPlusTree tree) {
        this.rows = rows;
        this.tree = tree;
        this.rowWriter = new RowBatchWriter(rows);
    }

    BatchResult apply(EntryBatch batch, BatchMode mode) {
        int n = batch.size();
        int[] sorted = order.sort(batch);
        byte[] data = batch.data();
        long bytesAhead = 0;
        for (int i = 0; i < n; i++) {
            int v = batch.valueLength(i);
            if (v >= 0) {
                bytesAhead += Math.min(RowStore.STREAM_HEADER + (long) batch.keyLength(i) + v, 4096) + 4;
            }
        }
        int inserted = 0;
        int updated = 0;
        int skipped = 0;
        int removed = 0;
        int applied = 0;
        rowWriter.begin();
        tree.startWalk();
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
                int vl = batch.valueLength(e);
                boolean present = tree.seek(data, ko, kl, order.prefixHigh(e), order.prefixLow(e));
                if (vl == EntryBatch.REMOVAL) {
                    if (present) {
                        tree.removeSorted(data, ko, kl);
                        removed++;
                    } else {
                        skipped++;
                    }
                } else {
                    bytesAhead -= Math.min(RowStore.STREAM_HEADER + (long) kl + vl, 4096) + 4;
                    if (!present) {
                        tree.reserveForInsert();
                        long link = rowWriter.add(data, ko, kl, data, batch.valueOffset(e), vl, bytesAhead);
                        tree.insertSorted(link, data, ko, kl);
                        inserted++;
                    } else if (mode == BatchMode.UPSERT) {
                        tree.replace(rowWriter.add(data, ko, kl, data, batch.valueOffset(e), vl, bytesAhead));
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
            throw new BatchApplyException(applied, n - applied, e);
        } finally {
            tree.endWalk(); // queued inserts reference rows already written: they always go in
            rowWriter.finish();
        }
        return new BatchResult(inserted, updated, skipped, removed);
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
                if (java.util.Arrays.equals(data, ko, ko + kl, data, batch.keyOffset(j), batch.keyOffset(j) + batch.keyLength(j))) {
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
