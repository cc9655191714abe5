package io.sluice.pagestore.internal.index;

/**
 * Receives the entries of an index scan ({@link io.sluice.pagestore.internal.PartitionIndexAccess#scan}) in index
 * order, under the partition's read lock: it must not write to the partition.
 */
@FunctionalInterface
public interface IndexVisitor {

    /**
     * One entry: its full index key (the indexed fields' stored bytes, then the entry's key bytes; pass it as
     * {@code after} to resume after it), its key and its value (arrays of its own).
     *
     * @return false to stop the scan
     */
    boolean visit(byte[] indexKey, byte[] key, byte[] value);
}
