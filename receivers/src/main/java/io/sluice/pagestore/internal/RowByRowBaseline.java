package io.sluice.pagestore.internal;

import io.sluice.DataRegionFullException;
import io.sluice.protocol.internal.EntryBatch;

/**
 * The baseline the batch write path is measured and tested against: a batch applied entry by entry
 * (a descent and a free-list visit per entry) under the partition's write lock. Not used by the node;
 * the batch benchmarks and the batch model test call it.
 */
public final class RowByRowBaseline {

    private RowByRowBaseline() {
    }

    /**
     * The same as {@link PartitionStore#applyBatch}, entry by entry (a descent and a free-list visit per entry): the
     * baseline the batch path is measured and tested against.
     *
     * @throws BatchApplyException if the batch failed part way; the partition stays consistent, and the
     *                             entries applied are the first {@link BatchApplyException#applied()}
     *                             ones in batch order
     */
    public static BatchResult apply(PartitionStore store, EntryBatch batch, BatchMode mode) {
        store.lockForWrite();
        try {
            return applyRowByRow(store, batch, mode);
        } finally {
            store.unlockForWrite();
        }
    }

    /**
     * The same as {@link PartitionStore#applyBatch} (the partition's own tree in one sorted pass), but each index
     * change applied on its own, a descent of the index tree per change in the order the pass made them (the
     * entries' key order), instead of one sorted
     * pass per index: the baseline the batch index pass is measured against. The journal is not told.
     */
    public static BatchResult applyIndexesEntryByEntry(PartitionStore store, EntryBatch batch, BatchMode mode) {
        store.lockForWrite();
        try {
            return store.batchWriter().apply(store.tree(), store.indexes(), batch, mode, false);
        } finally {
            store.unlockForWrite();
        }
    }

    private static BatchResult applyRowByRow(PartitionStore store, EntryBatch batch, BatchMode mode) {
        int n = batch.size();
        boolean[] superseded = BatchWriter.superseded(batch);
        int inserted = 0;
        int updated = 0;
        int skipped = 0;
        int removed = 0;
        byte[] data = batch.data();
        for (int i = 0; i < n; i++) {
            try {
                if (superseded[i]) {
                    skipped++;
                } else if (batch.isRemoval(i)) {
                    if (store.delete(data, batch.keyOffset(i), batch.keyLength(i))) {
                        removed++;
                    } else {
                        skipped++;
                    }
                } else {
                    int r = store.write(data, batch.keyOffset(i), batch.keyLength(i), data, batch.valueOffset(i),
                            batch.valueLength(i), mode == BatchMode.UPSERT);
                    if (r == EntryWriter.INSERTED) {
                        inserted++;
                    } else if (r == EntryWriter.UPDATED) {
                        updated++;
                    } else {
                        skipped++;
                    }
                }
            } catch (DataRegionFullException e) {
                throw new BatchApplyException(i, n - i, e);
            }
        }
        return new BatchResult(inserted, updated, skipped, removed);
    }
}
