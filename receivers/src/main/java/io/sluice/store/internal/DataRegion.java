package io.sluice.store.internal;

import io.sluice.DataRegionFullException;
import io.sluice.store.internal.freelist.FreeList;
import io.sluice.store.internal.page.PageMemory;
import io.sluice.store.internal.page.RowStore;

/**
 * A region of off-heap page memory with its free list; the partitions of every cache of a node
 * keep their trees and rows in it. Thread-safe. Close it to release the memory.
 *
 * <p>The region reserves {@link DataRegionConfig#initialSize()} at start and grows in chunks of up to
 * 64 MiB until {@link DataRegionConfig#maxSize()}; past that, writes fail with
 * {@link DataRegionFullException} and nothing stored is damaged. The memory comes from a
 * {@link io.sluice.store.internal.page.ChunkAllocator} (memory-file-system mappings by default, not
 * bounded by {@code -XX:MaxDirectMemorySize}) and goes back to the system on {@link #close()}.
 */
public final class DataRegion implements AutoCloseable {

    private final DataRegionConfig config;
    private final PageMemory memory;
    private final FreeList freeList;
    private final RowStore rows;
    /** Batch writers' working state belongs to the thread writing, not to a partition. */
    private final ThreadLocal<BatchWriter> batchWriters;
    private final java.util.Set<PartitionStore> partitions = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private boolean closed; // guarded by this

    public DataRegion(DataRegionConfig config) {
        this.config = config;
        this.memory = new PageMemory(config.pageSize(), config.initialSize(), config.maxSize());
        this.freeList = new FreeList(memory);
        this.rows = new RowStore(memory, freeList);
        this.batchWriters = ThreadLocal.withInitial(() -> new BatchWriter(rows));
    }

    /** A new, empty partition whose tree and rows live in this region; its writes are not journaled. */
    public PartitionStore createPartition() {
        return createPartition(StoreJournal.NONE);
    }

    /** A new, empty partition whose tree and rows live in this region and whose writes go to the journal. */
    public PartitionStore createPartition(StoreJournal journal) {
        PartitionStore partition = new PartitionStore(rows, batchWriters, journal, partitions::remove);
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("the data region is closed");
            }
            partitions.add(partition);
        }
        return partition;
    }

    /** What the pages are taken from, for logs. */
    public String describeMemory() {
        return memory.describeMemory();
    }

    /** Pages allocated from the OS so far (in use or free for reuse). */
    public long allocatedPages() {
        return memory.allocatedPages();
    }

    /** Pages in use by trees and rows. */
    public long usedPages() {
        return memory.allocatedPages() - freeList.reusePages();
    }

    public int pageSize() {
        return config.pageSize();
    }

    /** This region's configuration. */
    public DataRegionConfig config() {
        return config;
    }

    /**
     * Retires every partition (a call running on one finishes first; later ones fail with
     * {@link IllegalStateException}), then gives the memory back to the system.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        for (PartitionStore p : partitions.toArray(new PartitionStore[0])) {
            p.retire("the node is closed");
        }
        memory.close();
    }
}
