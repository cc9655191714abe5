package io.sluice.store;

/**
 * A region of off-heap page memory with its free list; the partitions of every cache of a node
 * keep their trees and rows in it. Thread-safe. Close it to release the memory.
 *
 * <p>STUB: the page-memory store issue fills this in; the public signatures are the contract.
 */
public final class DataRegion implements AutoCloseable {

    public DataRegion(DataRegionConfig config) {
        throw new UnsupportedOperationException("page memory is not implemented yet");
    }

    /** A new, empty partition whose tree and rows live in this region. */
    public PartitionStore createPartition() {
        throw new UnsupportedOperationException();
    }

    /** Pages allocated from the OS so far (in use or free for reuse). */
    public long allocatedPages() {
        throw new UnsupportedOperationException();
    }

    /** Pages in use by trees and rows. */
    public long usedPages() {
        throw new UnsupportedOperationException();
    }

    public int pageSize() {
        throw new UnsupportedOperationException();
    }

    @Override
    public void close() {
    }
}
