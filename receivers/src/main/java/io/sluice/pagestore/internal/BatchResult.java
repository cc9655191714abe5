package io.sluice.pagestore.internal;

/**
 * What a batch did to a partition.
 *
 * @param inserted keys that were absent and now hold the batch's value
 * @param updated  present keys whose value was replaced (UPSERT)
 * @param skipped  present keys left as they were (INSERT_IF_ABSENT), and removals of absent keys
 * @param removed  keys removed
 */
public record BatchResult(int inserted, int updated, int skipped, int removed) {

    /** Every entry the batch held, each counted once. */
    public int entries() {
        return inserted + updated + skipped + removed;
    }
}
