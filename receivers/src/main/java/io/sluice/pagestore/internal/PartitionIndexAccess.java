package io.sluice.pagestore.internal;

import io.sluice.DataRegionFullException;
import io.sluice.pagestore.internal.index.IndexSpec;
import io.sluice.pagestore.internal.index.IndexVisitor;
import io.sluice.query.internal.IndexPage;

/**
 * A partition's field indexes as the node uses them ({@link PartitionStore#index()}): adding and dropping an index,
 * scans, pages and first keys of a query, and the index changes the partition holds for a later pass
 * ({@link io.sluice.pagestore.internal.index.HeldIndexChanges}). Every method takes the partition's lock; a read
 * first applies what the partition holds, so that it sees the indexes exact. The writes that keep indexes exact are
 * the partition's own ({@link PartitionStore}).
 */
public final class PartitionIndexAccess {

    private final PartitionStore partition;

    PartitionIndexAccess(PartitionStore partition) {
        this.partition = partition;
    }

    /**
     * Adds a field index to this partition and fills it from the partition's rows, under the write lock (writers
     * wait for the fill). Idempotent: an index with the same id and fields is left as it is. Values that are not
     * binary objects, or lack the index's first field, are not in the index; a missing later field of a composite
     * index is indexed as NULL. The index is derived data: the journal records nothing, and after a restart the
     * node creates its indexes again before the partition is loaded (the load and the replay fill them).
     *
     * @throws IllegalArgumentException if an index with this id but other fields exists
     * @throws DataRegionFullException  if the region has no room for the index (the index is not added)
     * @throws IllegalStateException    if the partition was destroyed
     */
    public void create(IndexSpec spec) {
        partition.lockForWrite();
        try {
            partition.indexes().create(spec, partition.tree());
        } finally {
            partition.unlockForWrite();
        }
    }

    /** Drops the index and frees its pages; nothing if there is none with this id. @throws IllegalStateException if destroyed */
    public void drop(int id) {
        partition.lockForWrite();
        try {
            partition.indexes().drop(id);
        } finally {
            partition.unlockForWrite();
        }
    }

    /** The ids of this partition's indexes, ascending. */
    public int[] ids() {
        partition.lockForRead();
        try {
            return partition.indexes().ids();
        } finally {
            partition.unlockForRead();
        }
    }

    /**
     * Visits, in index order under the read lock, the entries whose index key's field part lies within the
     * bounds. A bound compares with the first {@code bound.length} bytes of an index key (a key that starts with
     * the bound compares equal), so {@code [enc(v), enc(v)]} inclusive is "equals v" and a bound made of a
     * composite index's first fields is a prefix; a null bound is open. {@code after} (a full index key a visit
     * received, or null) resumes a paged scan after that key.
     *
     * @throws io.sluice.pagestore.internal.index.UnknownIndexException if the partition has no such index
     * @throws IllegalStateException if the partition was destroyed, or the index is incomplete (the region
     *                               filled up while it was written: drop and create it again)
     */
    public void scan(int id, byte[] lower, boolean lowerInclusive, byte[] upper, boolean upperInclusive,
                          byte[] after, IndexVisitor visitor) {
        partition.lockForIndexRead();
        try {
            partition.checkAlive();
            partition.indexes().scan(id, lower, lowerInclusive, upper, upperInclusive, after, visitor);
        } finally {
            partition.unlockForRead();
        }
    }

    /**
     * Reads a page of an index scan (see {@link #scan} for the bounds and {@code after}): up to {@code max}
     * entries appended to {@code page} in index order, all under one read lock, so that a streamed batch is seen
     * wholly or not at all in it.
     *
     * @return whether the page got {@code max} entries (more may follow)
     * @throws io.sluice.pagestore.internal.index.UnknownIndexException if the partition has no such index
     * @throws IllegalStateException if the partition was destroyed, or the index is incomplete
     */
    public boolean page(int id, byte[] lower, boolean lowerInclusive, byte[] upper, boolean upperInclusive,
                             byte[] after, int max, IndexPage page) {
        partition.lockForIndexRead();
        try {
            partition.checkAlive();
            return partition.indexes().readPage(id, lower, lowerInclusive, upper, upperInclusive, after, max, page);
        } finally {
            partition.unlockForRead();
        }
    }

    /**
     * The first index key of index {@code id} at or after {@code from} (null: the first), or null if there is none;
     * reads no entry.
     *
     * @throws io.sluice.pagestore.internal.index.UnknownIndexException if the partition has no such index
     * @throws IllegalStateException if the partition was destroyed, or the index is incomplete
     */
    public byte[] firstKey(int id, byte[] from) {
        partition.lockForIndexRead();
        try {
            partition.checkAlive();
            return partition.indexes().firstKey(id, from);
        } finally {
            partition.unlockForRead();
        }
    }

    /**
     * The most index changes one of this partition's indexes holds, not yet applied (0: none); read without the
     * lock, so a hint of which partition to apply first ({@link #applyHeld}).
     */
    public int heldChanges() {
        return partition.indexes().heldChanges();
    }

    /**
     * Applies the index changes this partition holds ({@link io.sluice.pagestore.internal.index.HeldIndexChanges}),
     * if any, under the write lock: every index read does so itself; a query over many partitions calls this first
     * to apply them on several threads. Nothing if the partition was destroyed.
     */
    public void applyHeld() {
        partition.applyHeldIndexChanges();
    }
}
