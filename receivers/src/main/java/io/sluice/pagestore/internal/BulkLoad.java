package io.sluice.pagestore.internal;

import io.sluice.DataRegionFullException;
import io.sluice.pagestore.internal.index.IndexBulkBuild;
import io.sluice.pagestore.internal.index.PartitionIndexes;
import io.sluice.pagestore.internal.page.RowBatchWriter;
import io.sluice.pagestore.internal.page.RowStore;
import io.sluice.pagestore.internal.tree.BPlusTree;
import io.sluice.pagestore.internal.tree.TreeBuilder;
import io.sluice.pagestore.internal.tree.TreePageIO;
import io.sluice.protocol.internal.EntryBatch;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * Fills an emptied partition ({@link PartitionStore#replaceAll}) from batches whose entries come in strictly
 * ascending key order across the whole load (a partition file: a tree's scan): each entry's row is appended to
 * data pages filled one after the other, and the partition's tree is built bottom-up ({@link TreeBuilder}) with
 * no sort, descent or search per entry. The order is checked as the entries come, not assumed: at the first
 * entry that is not above the one before it (or a removal), the tree built so far is finished and that entry and
 * every later one go through the normal batch write path ({@link BatchWriter}, insert-if-absent), which takes any
 * order. Field indexes are built in bulk too ({@link IndexBulkBuild}: each index's keys gathered over the load,
 * sorted once, their tree built bottom-up at the end).
 *
 * <p>Use {@link #accept} per batch, then {@link #finish} (or {@link #abort} after a failure: the rows and pages
 * of the tree being built are freed; the caller then empties the partition). Under the partition's write lock;
 * one per load.
 */
final class BulkLoad implements Consumer<EntryBatch> {

    private final BPlusTree tree;
    private final PartitionIndexes indexes;
    private final BatchWriter fallback;
    private final RowBatchWriter rowWriter;
    private final TreeBuilder builder;
    private final IndexBulkBuild indexBuild;
    /** The key of the last entry built in (in the batch's array, or copied into {@link #kept}), to check the next. */
    private byte[] previous;
    private int previousOffset;
    private int previousLength = -1;
    private long previousHigh;
    private int previousLow;
    /** The last key of a batch, copied out of it (the batch's array is reused for the next). */
    private byte[] kept = new byte[64];
    /** Whether the entries left ascending order: the rest go through {@link #fallback}. */
    private boolean unordered;

    BulkLoad(RowStore rows, BPlusTree tree, PartitionIndexes indexes, BatchWriter fallback) {
        this.tree = tree;
        this.indexes = indexes;
        this.fallback = fallback;
        this.rowWriter = new RowBatchWriter(rows);
        this.builder = new TreeBuilder(tree);
        this.indexBuild = new IndexBulkBuild(rows);
        indexBuild.begin(indexes);
    }

    /** Entries built in so far (those handed to the batch path after the order broke not counted). */
    long built() {
        return builder.size();
    }

    /**
     * Builds the batch's entries in.
     *
     * @throws BatchApplyException if the region filled up (call {@link #abort})
     */
    @Override
    public void accept(EntryBatch batch) {
        if (unordered) {
            fallback.apply(tree, indexes, batch, BatchMode.INSERT_IF_ABSENT);
            return;
        }
        int n = batch.size();
        byte[] data = batch.data();
        boolean indexed = indexBuild.active();
        long ahead = batch.length() + 4L * n; // rows still to write with their slots: a hint for the page to take
        int i = 0;
        rowWriter.begin();
        try {
            for (; i < n; i++) {
                int ko = batch.keyOffset(i);
                int kl = batch.keyLength(i);
                int vl = batch.valueLength(i);
                long high = TreePageIO.prefixHigh(data, ko, kl);
                int low = TreePageIO.prefixLow(data, ko, kl);
                if (vl == EntryBatch.REMOVAL || !abovePrevious(data, ko, kl, high, low)) {
                    break;
                }
                builder.reserve(); // before the row: a full region fails with nothing to undo
                ahead -= EntryBatch.ENTRY_HEADER + kl + vl + 4;
                long link = rowWriter.add(data, ko - EntryBatch.ENTRY_HEADER, kl, vl, Math.max(0, ahead));
                builder.add(link, data, ko, kl, high, low);
                if (indexed) {
                    indexBuild.put(data, ko, kl, data, ko + kl, vl, link);
                }
                previous = data;
                previousOffset = ko;
                previousLength = kl;
                previousHigh = high;
                previousLow = low;
            }
        } catch (DataRegionFullException e) {
            throw new BatchApplyException(i, n - i, e);
        } finally {
            rowWriter.finish();
        }
        keepPrevious();
        if (i < n) {
            unordered = true;
            builder.finish();
            indexBuild.finish();
            int from = batch.keyOffset(i) - EntryBatch.ENTRY_HEADER;
            fallback.apply(tree, indexes, new EntryBatch(data, from, batch.base() + batch.length() - from, n - i),
                    BatchMode.INSERT_IF_ABSENT);
        }
    }

    /** Ends the load: the tree gets its inner levels and root (if it is still being built). */
    void finish() {
        if (!unordered) {
            builder.finish();
            indexBuild.finish();
        }
    }

    /** After a failure: frees what the builder holds (the rows and leaves of the tree being built). */
    void abort() {
        rowWriter.finish();
        builder.abort();
        indexBuild.abort();
    }

    /** Whether the key is above the previous entry's (unsigned bytes, a shorter key first on a common prefix). */
    private boolean abovePrevious(byte[] data, int ko, int kl, long high, int low) {
        if (previousLength == -1) {
            return true;
        }
        if (high != previousHigh) {
            return Long.compareUnsigned(high, previousHigh) > 0;
        }
        if (low != previousLow) {
            return Integer.compareUnsigned(low, previousLow) > 0;
        }
        return Arrays.compareUnsigned(data, ko, ko + kl, previous, previousOffset, previousOffset + previousLength) > 0;
    }

    /** Copies the last key built in out of its batch's array. */
    private void keepPrevious() {
        if (previousLength < 0 || previous == kept) {
            return;
        }
        if (kept.length < previousLength) {
            kept = new byte[Math.max(previousLength, 2 * kept.length)];
        }
        System.arraycopy(previous, previousOffset, kept, 0, previousLength);
        previous = kept;
        previousOffset = 0;
    }
}
