package io.sluice.pagestore.internal;

import java.util.List;

/**
 * What a store consistency check ({@link DataRegion#checkConsistency}) found: nothing wrong, or a list of
 * specific problems, each naming the cache, partition and page (at most 100 listed; {@link #problemCount()}
 * counts all), with what was walked.
 *
 * @param problems     problems found, at most 100 (empty: the store is consistent)
 * @param problemCount every problem found
 * @param partitions   partitions checked
 * @param entries      entries found in their trees
 * @param treePages    tree pages walked
 * @param dataPages    data pages reached (through rows or the free list)
 * @param fragmentPages fragment pages reached through rows
 * @param freePages    pages in the free list's reuse bucket
 * @param allocatedPages pages the region had allocated
 * @param nanos        how long the check took, the partitions' locks held
 */
public record ConsistencyReport(List<String> problems, long problemCount, int partitions, long entries,
                                long treePages, long dataPages, long fragmentPages, long freePages,
                                long allocatedPages, long nanos) {

    public ConsistencyReport {
        problems = List.copyOf(problems);
    }

    /** Whether nothing was found wrong. */
    public boolean ok() {
        return problemCount == 0;
    }

    @Override
    public String toString() {
        String walked = partitions + " partitions, " + entries + " entries, " + treePages + " tree pages, "
                + dataPages + " data pages, " + fragmentPages + " fragment pages, " + freePages + " free pages of "
                + allocatedPages + " allocated, in " + nanos / 1_000_000 + " ms";
        if (ok()) {
            return "consistent: " + walked;
        }
        return problemCount + " problems (" + walked + "):\n  " + String.join("\n  ", problems)
                + (problemCount > problems.size() ? "\n  ... and " + (problemCount - problems.size()) + " more" : "");
    }
}
