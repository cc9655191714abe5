package io.sluice.pagestore.internal;

import io.sluice.DataRegionFullException;
import io.sluice.protocol.internal.EntryBatch;
import io.sluice.pagestore.internal.index.PartitionIndexes;
import io.sluice.pagestore.internal.page.RowStore;
import io.sluice.pagestore.internal.tree.BPlusTree;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * One partition: a B+ tree from encoded key to row link, and the rows in data pages. Keys and
 * values are encoded bytes, passed as (array, offset, length) so callers need not copy them.
 *
 * <p>Thread-safe: every method takes the partition's lock (readers share it, a writer holds it
 * alone), so a reader sees a batch either wholly before or wholly after it was applied.
 *
 * <p>A write that cannot get memory throws {@link DataRegionFullException} and changes nothing.
 *
 * <p>Field indexes ({@link #index()}) are kept by every write path under the same write lock: a batch
 * gathers its index changes while its own tree pass runs and applies them in one sorted pass per index
 * ({@link BatchWriter}); a single-entry write ({@link #put}, {@link #remove}, {@link StoredEntry}) one descent
 * per index whose key changed. A write whose index rows find the region full still stands; that index is marked
 * incomplete and its scans fail until it is dropped and created again.
 */
public final class PartitionStore {

    private final RowStore rows;
    private final BPlusTree tree;
    /** The region's batch writers, one per writing thread (working state a partition does not keep). */
    private final ThreadLocal<BatchWriter> batchWriters;
    private final ReentrantReadWriteLock lock;
    /** Single-entry writes: the put closure, the removal, their index changes (under the write lock). */
    private final EntryWriter writer;
    /** Why this partition may no longer be used (its cache was destroyed, its region closed), or null (owner's). */
    private String retired;
    private final java.util.function.Consumer<PartitionStore> onRetire;
    /** Where each write is logged, under the write lock (the write-ahead log of a persistent region). */
    private final StoreJournal journal;
    /** The partition itself: this, or the one this is the {@link #skippingStore()} view of. */
    private final PartitionStore owner;
    /** Whether writes through this view come from a streamer's skipStore batch (the journal is told so). */
    private final boolean skipStore;
    /** The owner's skip-store view, made when first asked. */
    private volatile PartitionStore skippingStore;
    /** The partition's field indexes (shared with the skip-store view). */
    private final PartitionIndexes indexes;
    /** What callers do with the indexes (the owner's; the skip-store view uses it). */
    private final PartitionIndexAccess indexAccess;

    PartitionStore(RowStore rows, ThreadLocal<BatchWriter> batchWriters, StoreJournal journal,
                   java.util.function.Consumer<PartitionStore> onRetire, io.sluice.binary.internal.BinaryContext binary,
                   io.sluice.pagestore.internal.index.HeldChangesBudget heldBudget) {
        this.onRetire = onRetire;
        this.indexes = new PartitionIndexes(rows, binary, heldBudget);
        this.journal = journal;
        this.rows = rows;
        this.tree = new BPlusTree(rows);
        this.batchWriters = batchWriters;
        this.lock = new ReentrantReadWriteLock();
        this.writer = new EntryWriter(rows, tree, indexes, () -> batchWriters.get().applyHeld(indexes));
        this.owner = this;
        this.skipStore = false;
        this.indexAccess = new PartitionIndexAccess(this);
    }

    /** The skip-store view of {@code owner}: the same partition (tree, rows, lock, state). */
    private PartitionStore(PartitionStore owner) {
        this.onRetire = owner.onRetire;
        this.journal = owner.journal;
        this.rows = owner.rows;
        this.tree = owner.tree;
        this.batchWriters = owner.batchWriters;
        this.lock = owner.lock;
        this.writer = owner.writer;
        this.owner = owner;
        this.skipStore = true;
        this.indexes = owner.indexes;
        this.indexAccess = owner.indexAccess;
    }

    /**
     * This partition, for the writes of a streamer's {@code skipStore} batch: everything is shared with it
     * (reads, writes, locks, destruction), but the journal records each write made through the view as one that
     * leaves the cache's store alone, so that recovery does not hand it to the store either.
     */
    public PartitionStore skippingStore() {
        if (skipStore) {
            return this;
        }
        PartitionStore view = skippingStore;
        if (view == null) {
            view = new PartitionStore(this);
            skippingStore = view;
        }
        return view;
    }

    /** {@link #skippingStore()} of each partition. */
    public static PartitionStore[] skippingStores(PartitionStore[] stores) {
        PartitionStore[] views = new PartitionStore[stores.length];
        for (int i = 0; i < stores.length; i++) {
            views[i] = stores[i].skippingStore();
        }
        return views;
    }

    /** Whether the partition's single-entry writer holds index-change scratch (only once an indexed write made it). */
    boolean madeIndexChanges() {
        return writer.madeIndexChanges();
    }

    /** The journal this partition's writes go to. */
    StoreJournal journal() {
        return journal;
    }

    /** Whether this is the {@link #skippingStore()} view: its writes leave the cache's store alone. */
    boolean skipsStore() {
        return skipStore;
    }

    /** The value stored for the key, or {@code null}. */
    public byte[] get(byte[] key, int keyOffset, int keyLength) {
        lock.readLock().lock();
        try {
            checkAlive();
            long link = tree.find(key, keyOffset, keyLength);
            return link == 0 ? null : rows.value(link);
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Stores the value, replacing any. @return true if the key was absent */
    public boolean put(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength) {
        lock.writeLock().lock();
        try {
            checkAlive();
            journal.checkWritable();
            boolean inserted = write(key, keyOffset, keyLength, value, valueOffset, valueLength, true) == EntryWriter.INSERTED;
            journal.entry(key, keyOffset, keyLength, value, valueOffset, valueLength, BatchMode.UPSERT, skipStore);
            return inserted;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Stores the value if the key is absent. @return true if it was stored */
    public boolean putIfAbsent(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength) {
        lock.writeLock().lock();
        try {
            checkAlive();
            journal.checkWritable();
            boolean inserted = write(key, keyOffset, keyLength, value, valueOffset, valueLength, false) == EntryWriter.INSERTED;
            if (inserted) {
                journal.entry(key, keyOffset, keyLength, value, valueOffset, valueLength, BatchMode.INSERT_IF_ABSENT,
                        skipStore);
            }
            return inserted;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Removes the key. @return true if it was present */
    public boolean remove(byte[] key, int keyOffset, int keyLength) {
        lock.writeLock().lock();
        try {
            checkAlive();
            journal.checkWritable();
            boolean removed = delete(key, keyOffset, keyLength);
            if (removed) {
                journal.entry(key, keyOffset, keyLength, null, 0, 0, BatchMode.UPSERT, skipStore);
            }
            return removed;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * Runs a read-modify-write under one hold of the partition's write lock: the work positions the
     * {@link StoredEntry} it is given on each key it visits (in key order, for a sorted pass) and reads
     * and changes it. Readers see every change the work made, or none yet.
     *
     * @throws RuntimeException whatever the work throws; changes it made before stay
     */
    public void update(EntryUpdate work) {
        lock.writeLock().lock();
        try {
            checkAlive();
            journal.checkWritable();
            work.run(new StoredEntry(this, rows, writer));
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** A read-modify-write of some of a partition's entries ({@link #update}). */
    @FunctionalInterface
    public interface EntryUpdate {
        void run(StoredEntry entry);
    }

    /** Entries in the partition. */
    public long size() {
        lock.readLock().lock();
        try {
            checkAlive();
            return tree.size();
        } finally {
            lock.readLock().unlock();
        }
    }

    /**
     * A cursor over the entries in key order. It takes the read lock for each chunk of entries it
     * copies out, so it never blocks writers for the whole walk.
     */
    public StoreCursor cursor() {
        return new PartitionCursor(this, null);
    }

    /** A cursor over the entries whose keys come after {@code afterKey} (exclusive), in key order. */
    public StoreCursor cursorAfter(byte[] afterKey) {
        return new PartitionCursor(this, afterKey);
    }

    /**
     * Applies a batch under one hold of the partition's write lock: puts (by mode) and removals,
     * duplicated keys resolving to the last one in the batch (earlier ones count as skipped). The batch
     * is sorted by key, rows are packed into pages taken once from the free list, and the tree is
     * updated in one ordered pass.
     *
     * @throws BatchApplyException if the batch failed part way (the region filled up); the partition
     *                             stays consistent, and the {@link BatchApplyException#applied()}
     *                             entries applied are those whose keys come first in key order
     */
    public BatchResult applyBatch(EntryBatch batch, BatchMode mode) {
        lock.writeLock().lock();
        try {
            checkAlive();
            journal.checkWritable();
            BatchResult result;
            try {
                result = batchWriters.get().apply(tree, indexes, batch, mode);
            } catch (BatchApplyException e) {
                if (e.applied() > 0) {
                    journal.batch(batch, mode, true, skipStore);
                }
                throw e;
            }
            journal.batch(batch, mode, false, skipStore);
            return result;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Fills a partition whose entries are being replaced ({@link #replaceAll}). */
    @FunctionalInterface
    public interface Refill {
        /**
         * Hands the new entries to {@code apply}, batch after batch (each applied at once, insert-if-absent; entries in
         * strictly ascending key order across the batches are built in bulk, see {@link #replaceAll}).
         *
         * @return the entries handed over
         */
        long fill(java.util.function.Consumer<EntryBatch> apply) throws java.io.IOException;
    }

    /**
     * Replaces every entry of this partition by those the refill gives, under one hold of the write lock (readers
     * and writers wait for the whole load): the entries and their field index rows are freed, the indexes kept
     * (empty, then filled by the refill's batches, one sorted pass per index and batch). Entries that come in
     * strictly ascending key order (a partition file's) are built in bulk ({@link BulkLoad}): rows appended to data
     * pages one after the other, the tree built bottom-up, with no sort or descent per entry; from the first entry
     * out of that order on, the rest go through the batch write path (insert-if-absent, any order). The journal is told once, {@link StoreJournal#adopted} naming
     * {@code source}, after the refill succeeded: its entries are not logged one by one. If the refill fails, the
     * partition is left empty and the journal told so (an empty name).
     *
     * @return the entries the refill handed over
     * @throws java.io.IOException   what the refill throws (the partition is then empty)
     * @throws BatchApplyException   if the region filled up during the load (the partition is then empty)
     * @throws IllegalStateException if the partition was destroyed
     */
    public long replaceAll(Refill refill, String source) throws java.io.IOException {
        return replaceAll(refill, source, true);
    }

    /**
     * {@link #replaceAll} through the normal batch write path (a sorted pass of the batch writer per batch) instead
     * of the bulk build: the baseline the bulk build is measured against (benchmarks, tests).
     */
    public long replaceAllByBatches(Refill refill, String source) throws java.io.IOException {
        return replaceAll(refill, source, false);
    }

    /**
     * Fills this partition, which must be empty, from the refill as {@link #replaceAll} does (in bulk while the
     * entries ascend), telling the journal nothing: a restart's load of the node's own checkpoint, which the log
     * must not record again.
     *
     * @return the entries the refill handed over
     * @throws java.io.IOException   what the refill throws (the partition is then empty)
     * @throws BatchApplyException   if the region filled up during the load (the partition is then empty)
     * @throws IllegalStateException if the partition holds entries or was destroyed
     */
    public long load(Refill refill) throws java.io.IOException {
        return replaceAll(refill, null, true);
    }

    /** {@link #replaceAll}, {@link #load} ({@code source} null: the journal is not told). */
    private long replaceAll(Refill refill, String source, boolean bulk) throws java.io.IOException {
        lock.writeLock().lock();
        try {
            checkAlive();
            journal.checkWritable();
            if (source == null && !tree.isEmpty()) {
                throw new IllegalStateException("a partition is loaded only while it is empty");
            }
            empty();
            BatchWriter batchWriter = batchWriters.get();
            BulkLoad load = bulk ? new BulkLoad(rows, tree, indexes, batchWriter) : null;
            long entries;
            try {
                if (load != null) {
                    entries = refill.fill(load);
                    load.finish();
                } else {
                    entries = refill.fill(batch -> batchWriter.apply(tree, indexes, batch, BatchMode.INSERT_IF_ABSENT));
                }
            } catch (java.io.IOException | RuntimeException | Error e) {
                try {
                    if (load != null) {
                        load.abort();
                    }
                    empty();
                    if (source != null) {
                        journal.adopted("");
                    }
                } catch (RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            }
            if (source != null) {
                journal.adopted(source);
            }
            return entries;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Frees every entry and index row, keeping the indexes (under the write lock). */
    private void empty() {
        tree.destroy();
        indexes.clear();
    }

    /** This partition's field indexes: declaring, reading, applying held changes (each under this partition's lock). */
    public PartitionIndexAccess index() {
        return owner.indexAccess;
    }

    /**
     * For a checkpoint: if writes were made since the journal counted {@code sinceChanges} (see
     * {@link StoreJournal#changes()}), copies every entry into {@code out} (cleared first, key order) under the
     * read lock, so the copy is this partition exactly between two writes; writers wait only for the copy.
     *
     * @return the journal's count the copy corresponds to, or -1 if nothing changed (nothing copied)
     * @throws IllegalStateException if the partition was destroyed
     */
    public long copyIfChanged(long sinceChanges, EntryImage out) {
        lock.readLock().lock();
        try {
            checkAlive();
            long changes = journal.changes();
            if (changes == sinceChanges) {
                return -1;
            }
            out.clear();
            byte[] lengths = new byte[EntryBatch.ENTRY_HEADER];
            tree.scan(null, link -> {
                rows.read(link, 0, lengths, 0, EntryBatch.ENTRY_HEADER);
                int keyLength = intAt(lengths, 0);
                int valueLength = intAt(lengths, 4);
                int bytes = EntryBatch.ENTRY_HEADER + keyLength + valueLength;
                byte[] into = out.reserve(bytes);
                rows.read(link, 0, into, out.length(), bytes);
                out.added(bytes);
                return true;
            });
            return changes;
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Writes the journal has counted so far (see {@link StoreJournal#changes()}). */
    public long changes() {
        lock.readLock().lock();
        try {
            return journal.changes();
        } finally {
            lock.readLock().unlock();
        }
    }

    private static int intAt(byte[] a, int at) {
        return (a[at] & 0xFF) << 24 | (a[at + 1] & 0xFF) << 16 | (a[at + 2] & 0xFF) << 8 | (a[at + 3] & 0xFF);
    }

    /** Takes the partition's write lock for a caller in this package. @throws IllegalStateException if destroyed */
    void lockForWrite() {
        lock.writeLock().lock();
        try {
            checkAlive();
        } catch (RuntimeException e) {
            lock.writeLock().unlock();
            throw e;
        }
    }

    void unlockForWrite() {
        lock.writeLock().unlock();
    }

    /** Takes the partition's read lock. @throws IllegalStateException if destroyed */
    void lockForRead() {
        lock.readLock().lock();
        try {
            checkAlive();
        } catch (RuntimeException e) {
            lock.readLock().unlock();
            throw e;
        }
    }

    void unlockForRead() {
        lock.readLock().unlock();
    }

    /** Applies the index changes the partition holds, if any, under the write lock; nothing if it was destroyed. */
    void applyHeldIndexChanges() {
        lockForIndexRead();
        lock.readLock().unlock();
    }

    /**
     * Takes the read lock with no index changes held ({@link PartitionIndexes#holding()}): if some are, takes the
     * write lock, applies them and keeps the read lock (a downgrade), so the reader sees the indexes exact (index
     * reads, a consistency check: writers wait, readers go on). Released with {@link #unlockForRead()}.
     */
    void lockForIndexRead() {
        lock.readLock().lock();
        if (!indexes.holding()) {
            return;
        }
        lock.readLock().unlock();
        lock.writeLock().lock();
        try {
            if (owner.retired == null) {
                batchWriters.get().applyHeld(indexes);
            }
            lock.readLock().lock();
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Whether the partition was destroyed or its region closed (its pages are no longer its own). */
    boolean retired() {
        return owner.retired != null;
    }

    /** The partition's tree (for a consistency check, under {@link #lockForIndexRead()}). */
    BPlusTree tree() {
        return tree;
    }

    /** This thread's batch writer (under the write lock). */
    BatchWriter batchWriter() {
        return batchWriters.get();
    }

    /** The partition's field indexes (under its lock). */
    PartitionIndexes indexes() {
        return indexes;
    }

    /**
     * Gives every page of this partition back to the region's free list (its cache is dropped). Every
     * later call fails with {@link IllegalStateException} giving the reason; a call running now
     * finishes first.
     */
    public void destroy(String reason) {
        retire(reason, true);
    }

    /** {@link #destroy(String)} for a partition that belongs to no cache (tests, benchmarks). */
    public void destroy() {
        destroy("the partition was destroyed");
    }

    /** Makes the partition unusable without touching its pages (the region is about to free them all). */
    void retire(String reason) {
        retire(reason, false);
    }

    private void retire(String reason, boolean freePages) {
        if (owner != this) {
            owner.retire(reason, freePages);
            return;
        }
        lock.writeLock().lock();
        try {
            if (retired == null) {
                if (freePages) {
                    tree.destroy();
                    indexes.destroy();
                }
                retired = reason;
            }
        } finally {
            lock.writeLock().unlock();
        }
        onRetire.accept(this);
    }

    // ---- under the write lock ----

    /** The key's row link, or 0 (under the lock). */
    long find(byte[] key, int keyOffset, int keyLength) {
        return tree.find(key, keyOffset, keyLength);
    }

    int write(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength,
              boolean overwrite) {
        return writer.write(key, keyOffset, keyLength, value, valueOffset, valueLength, overwrite);
    }

    boolean delete(byte[] key, int keyOffset, int keyLength) {
        return writer.delete(key, keyOffset, keyLength);
    }

    void checkAlive() {
        String reason = owner.retired;
        if (reason != null) {
            throw new IllegalStateException(reason);
        }
    }

    /**
     * Copies up to {@code keys.length} entries whose keys come after {@code afterKey} ({@code null}: from the
     * first) into the arrays, in key order, under one hold of the read lock (for {@link PartitionCursor}).
     *
     * @return the number copied; fewer than asked means the entries ended
     * @throws IllegalStateException if the partition was destroyed
     */
    int copyChunk(byte[] afterKey, long[] links, byte[][] keys, byte[][] values) {
        int[] count = {0};
        lock.readLock().lock();
        try {
            checkAlive();
            tree.scan(afterKey, link -> {
                links[count[0]++] = link;
                return count[0] < keys.length;
            });
            rows.readEntries(links, count[0], keys, values);
        } finally {
            lock.readLock().unlock();
        }
        return count[0];
    }
}
