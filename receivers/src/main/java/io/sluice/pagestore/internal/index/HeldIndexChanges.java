package io.sluice.pagestore.internal.index;

import io.sluice.DataRegionFullException;
import io.sluice.pagestore.internal.page.RowBatchWriter;
import io.sluice.pagestore.internal.tree.SortedWalk;

/**
 * A partition's index changes gathered over several streamed batches and applied in one sorted pass per index: the
 * pass pays per leaf it lands in and per key it gallops past, so four batches' keys in one pass cost much less than
 * four passes (the 2026-11-27 07:20 entry of benchmarks-results.md: the indexes' extra CPU −45% with 4× the keys per
 * pass). A batch's changes go into its indexes' held arrays ({@link IndexTree#held}) instead of their trees; they are
 * applied once an index holds {@value #THRESHOLD} changes (fewer where the partition's share of the region's
 * {@link HeldChangesBudget} is smaller: {@link #SHARE_FROM}), once that budget is spent, and
 * before anything reads or writes the index trees otherwise: a query's page or first key, a consistency check, a
 * single-entry write (which applies its changes one by one). A partition's clear, an index's drop and a partition's
 * destroy drop the held changes with their trees; an index created on the partition starts with none (the others'
 * stay held: they are per tree).
 *
 * <p>Changes of one index key from several batches (an entry put, then moved or removed) need no netting as they
 * are gathered: the sort is stable and only the last change of a key is applied
 * ({@link IndexOps#keepLastOfEachKey}). Nothing held needs logging: indexes are derived data, rebuilt from the
 * entries when a partition loads (its held changes die with the process; the entries they came from are in the
 * log or the checkpoint).
 *
 * <p>Under the partition's write lock (reading {@link #any()} under the read lock is enough: it changes only under
 * the write lock).
 */
public final class HeldIndexChanges {

    /**
     * An index's held changes are applied once they reach this many: 32 of the streamer's default batches (512). The
     * larger a pass, the more of its keys land in each leaf it reads (measured with one partition, 65,536 entries
     * with random keys: the pass's gain over entry by entry 1.3-1.5x at 2,048 a pass, 1.7-1.9x at 8,192, 1.9-2.2x
     * at 16,384; benchmarks-results.md, 2026-11-27 13:09). Past {@link #SHARE_FROM}, only while the partition's held
     * arrays are within its share of the region's budget ({@link HeldChangesBudget#share}).
     */
    public static final int THRESHOLD = 16_384;

    /**
     * Up to this many changes an index holds whatever its share of the budget (the region's limit still applies):
     * four of the streamer's default batches. Where the share is smaller (1,024 partitions with two indexes each
     * and a 256 MiB budget: 128 KiB an index, ~2,000 changes of a StockOrder's field), the partitions' passes are
     * this size and all of them hold at once within the budget; a larger fixed threshold there let the budget
     * decide instead, and every partition that then started holding again was past it at once, its arrays taken
     * from the pool at their full size: its pass was one batch's (measured at 8,000,000 entries: 8,355 passes of
     * ~840 changes an index on average, against 4,385 of ~1,800 with this rule; benchmarks-results.md, 2026-11-27
     * 13:09).
     */
    public static final int SHARE_FROM = 2048;

    private final HeldChangesBudget budget;
    /** Bytes counted against the budget for this partition's held arrays. */
    private long counted;
    /** Bytes of this partition's held changes counted in the budget ({@link HeldChangesBudget#whenHeld}). */
    private long countedChanges;
    /** Writes whose changes are held (a pass needs no netting of repeated keys for one). */
    private int writes;
    /** The most changes an index of this partition holds: written under the write lock, read without a lock. */
    private volatile int largest;

    HeldIndexChanges(HeldChangesBudget budget) {
        this.budget = budget;
    }

    /** Whether changes are held (then the index trees are behind the entries until {@link #apply}). */
    public boolean any() {
        return writes > 0;
    }

    /**
     * The most changes one index of the partition holds (0: none), read without the partition's lock: a hint for
     * choosing which partition to apply first, not a guarantee.
     */
    public int largest() {
        return largest;
    }

    /** The held arrays of each tree, taken from the budget's pool when a tree holds none (a write starts). */
    IndexOps[] opsFor(IndexTree[] trees, IndexOps[] into) {
        for (int i = 0; i < trees.length; i++) {
            IndexOps ops = trees[i].held;
            if (ops == null) {
                ops = budget.take();
                trees[i].held = ops;
            }
            into[i] = ops;
        }
        return into;
    }

    /**
     * A write's changes were added to the held arrays: applies them all now if an index holds {@value #THRESHOLD},
     * or {@value #SHARE_FROM} and the partition's held arrays are past its share of the budget, or the budget is
     * spent; else keeps them.
     */
    void written(IndexTree[] trees, SortedWalk walk, RowBatchWriter writer, IndexOps scratch) {
        writes++;
        long bytes = 0;
        long changes = 0;
        int most = 0;
        for (IndexTree t : trees) {
            if (t.held != null) {
                bytes += t.held.capacityBytes();
                changes += t.held.length();
                most = Math.max(most, t.held.count());
            }
        }
        boolean within = budget.add(bytes - counted, changes - countedChanges);
        counted = bytes;
        countedChanges = changes;
        largest = most;
        if (most >= THRESHOLD || !within || most >= SHARE_FROM && bytes > budget.share(trees.length)) {
            apply(trees, walk, writer, scratch);
        }
    }

    /** Applies every held change, one sorted pass per index, and gives the arrays back. */
    void apply(IndexTree[] trees, SortedWalk walk, RowBatchWriter writer, IndexOps scratch) {
        if (writes == 0) {
            return;
        }
        boolean repeats = writes > 1;
        for (IndexTree t : trees) {
            IndexOps ops = t.held;
            if (ops == null) {
                continue;
            }
            t.held = null;
            if (ops.count() > 0) {
                ops.swapSortArrays(scratch);
                try {
                    t.applySorted(ops, walk, writer, repeats);
                } catch (DataRegionFullException e) {
                    t.markIncomplete(e.getMessage());
                } finally {
                    ops.swapSortArrays(scratch);
                }
            }
            budget.giveBack(ops);
        }
        forget();
    }

    /** The partition has {@code delta} index trees more (or, negative, fewer): they share the region's budget. */
    void treesAdded(int delta) {
        if (delta != 0) {
            budget.treesAdded(delta);
        }
    }

    /** Drops the held changes of these trees (they are being destroyed or emptied with their partition). */
    void drop(IndexTree[] trees) {
        for (IndexTree t : trees) {
            if (t.held != null) {
                budget.giveBack(t.held);
                t.held = null;
            }
        }
        forget();
    }

    /** Drops one tree's held changes (the index is dropped); the others' stay. */
    void drop(IndexTree tree) {
        if (tree.held != null) {
            long bytes = tree.held.capacityBytes();
            long changes = tree.held.length();
            budget.giveBack(tree.held);
            tree.held = null;
            budget.add(-bytes, -changes);
            counted -= bytes;
            countedChanges -= changes;
        }
    }

    private void forget() {
        budget.add(-counted, -countedChanges);
        counted = 0;
        countedChanges = 0;
        writes = 0;
        largest = 0;
    }
}
