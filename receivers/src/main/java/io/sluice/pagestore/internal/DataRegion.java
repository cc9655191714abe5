package io.sluice.pagestore.internal;

import io.sluice.DataRegionFullException;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.pagestore.internal.freelist.FreeList;
import io.sluice.pagestore.internal.page.PageCheck;
import io.sluice.pagestore.internal.page.PageMemory;
import io.sluice.pagestore.internal.page.RowStore;
import io.sluice.pagestore.internal.tree.TreeCheck;

/**
 * A region of off-heap page memory with its free list; the partitions of every cache of a node
 * keep their trees and rows in it. Thread-safe. Close it to release the memory.
 *
 * <p>The region reserves {@link DataRegionConfig#initialSize()} at start and grows in chunks of up to
 * 64 MiB until {@link DataRegionConfig#maxSize()}; past that, writes fail with
 * {@link DataRegionFullException} and nothing stored is damaged. The memory comes from a
 * {@link io.sluice.pagestore.internal.page.ChunkAllocator} (memory-file-system mappings by default, not
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
    /** The type registry field indexes find fields by (schema id to field positions). */
    private final BinaryContext binary;
    /** The heap the partitions' held index changes may take, and their arrays for reuse (one per region). */
    private final io.sluice.pagestore.internal.index.HeldChangesBudget heldIndexChanges;

    /**
     * A region whose partitions' field indexes read binary objects through a registry of their own (empty: such
     * indexes find no fields; tests and benchmarks of the store without indexes).
     */
    public DataRegion(DataRegionConfig config) {
        this(config, new BinaryContext());
    }

    /** A region whose partitions' field indexes locate fields through {@code binary}'s schemas (the node's registry). */
    public DataRegion(DataRegionConfig config, BinaryContext binary) {
        this(config, binary, io.sluice.pagestore.internal.index.HeldChangesBudget.withDefaultLimit());
    }

    /** {@link #DataRegion(DataRegionConfig, BinaryContext)} whose partitions hold index changes within this budget. */
    public DataRegion(DataRegionConfig config, BinaryContext binary,
               io.sluice.pagestore.internal.index.HeldChangesBudget heldIndexChanges) {
        this.heldIndexChanges = heldIndexChanges;
        this.binary = java.util.Objects.requireNonNull(binary, "binary");
        this.config = config;
        this.memory = new PageMemory(config.pageSize(), config.initialSize(), config.maxSize());
        // the pages the held index changes will take are taken ahead of the pass that writes them: about their bytes
        // again as index items, half as much more for leaves ~2/3 full after inserts (a bottom-up build fills 90%)
        heldIndexChanges.whenHeld(changeBytes -> memory.expect(changeBytes * 3 / 2 / config.pageSize()));
        this.freeList = new FreeList(memory);
        this.rows = new RowStore(memory, freeList);
        this.batchWriters = ThreadLocal.withInitial(() -> new BatchWriter(rows));
    }

    /** Bytes of index changes the region's partitions hold now, not yet applied (0: none); read without a lock. */
    public long heldIndexChangeBytes() {
        return heldIndexChanges.held();
    }

    /** A new, empty partition whose tree and rows live in this region; its writes are not journaled. */
    public PartitionStore createPartition() {
        return createPartition(StoreJournal.NONE);
    }

    /** A new, empty partition whose tree and rows live in this region and whose writes go to the journal. */
    public PartitionStore createPartition(StoreJournal journal) {
        PartitionStore partition = new PartitionStore(rows, batchWriters, journal, partitions::remove, binary,
                heldIndexChanges);
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("the data region is closed");
            }
            partitions.add(partition);
        }
        return partition;
    }

    /**
     * A new, empty partition with these field indexes, whose writes go to the journal (the indexes exist before
     * anything is written, so a checkpoint's load and the log's replay fill them as they write).
     */
    public PartitionStore createPartition(StoreJournal journal, java.util.List<io.sluice.pagestore.internal.index.IndexSpec> indexes) {
        PartitionStore partition = createPartition(journal);
        for (io.sluice.pagestore.internal.index.IndexSpec spec : indexes) {
            partition.index().create(spec);
        }
        return partition;
    }

    /**
     * Checks the whole region's store: every partition's B+ tree page by page ({@link TreeCheck}: key order
     * within and across leaves, separators bounding their children, every leaf at the same depth, every item's
     * row sound and holding the item's key, fragment chains that end, the tree's count equal to its items),
     * the free list ({@link FreeList#check}: pages with the room they claim, lists without cycles), that no page
     * is both free and in use or used twice, and that every data page's live rows are exactly those the trees
     * refer to.
     *
     * <p>It takes every partition's read lock first and holds them all for the walk, so the store is
     * checked as of one moment: readers go on, writers wait for the whole check (about a second per
     * million entries; a node runs it after recovery, before it serves).
     *
     * @param names each partition's name in the report ("cache 'orders' partition 7"), from the node
     * @return the report; {@link ConsistencyReport#ok()} if nothing is wrong
     */
    public ConsistencyReport checkConsistency(java.util.function.Function<PartitionStore, String> names) {
        long start = System.nanoTime();
        java.util.List<PartitionStore> all = new java.util.ArrayList<>(partitions);
        java.util.List<PartitionStore> locked = new java.util.ArrayList<>(all.size());
        try {
            for (PartitionStore p : all) {
                p.lockForIndexRead();
                locked.add(p);
            }
            PageCheck check = new PageCheck(memory);
            long entries = 0;
            int checked = 0;
            for (PartitionStore p : all) {
                if (!p.retired()) {
                    String name = names.apply(p);
                    entries += TreeCheck.check(p.tree(), check, name);
                    for (io.sluice.pagestore.internal.index.IndexSpec spec : p.indexes().specs()) {
                        // the index trees' pages and rows are the partition's too (their entries are not counted)
                        TreeCheck.check(p.indexes().indexTree(spec.id()), check, name + " index " + spec.id()
                                + " " + spec.fields(), p.indexes().complete(spec.id()));
                    }
                    checked++;
                }
            }
            freeList.check(check);
            check.checkDataPages();
            long[] byUse = check.pagesByUse();
            return new ConsistencyReport(check.problems(), check.problemCount(), checked, entries,
                    byUse[PageCheck.TREE], byUse[PageCheck.DATA], byUse[PageCheck.FRAGMENT], byUse[PageCheck.FREE],
                    check.pages(), System.nanoTime() - start);
        } finally {
            for (PartitionStore p : locked) {
                p.unlockForRead();
            }
        }
    }

    /** The region's page memory (tests write into it to check the consistency check). */
    PageMemory memory() {
        return memory;
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
