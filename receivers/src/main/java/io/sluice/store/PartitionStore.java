package io.sluice.store;

import io.sluice.protocol.EntryBatch;

/**
 * One partition: a B+ tree from encoded key to row link, and the rows in data pages. Keys and
 * values are encoded bytes, passed as (array, offset, length) so callers need not copy them.
 *
 * <p>Thread-safe: every method takes the partition's lock (readers share it, a writer holds it
 * alone), so a reader sees a batch either wholly before or wholly after it was applied.
 *
 * <p>STUB: the page-memory store issue fills this in; the public signatures are the contract.
 */
public final class PartitionStore {

    PartitionStore() {
    }

    /** The value stored for the key, or {@code null}. */
    public byte[] get(byte[] key, int keyOffset, int keyLength) {
        throw new UnsupportedOperationException();
    }

    /** Stores the value, replacing any. @return true if the key was absent */
    public boolean put(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength) {
        throw new UnsupportedOperationException();
    }

    /** Stores the value if the key is absent. @return true if it was stored */
    public boolean putIfAbsent(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength) {
        throw new UnsupportedOperationException();
    }

    /** Removes the key. @return true if it was present */
    public boolean remove(byte[] key, int keyOffset, int keyLength) {
        throw new UnsupportedOperationException();
    }

    /** Entries in the partition. */
    public long size() {
        throw new UnsupportedOperationException();
    }

    /** A cursor over the entries in key order. */
    public StoreCursor cursor() {
        throw new UnsupportedOperationException();
    }

    /**
     * Applies a batch under one hold of the partition's write lock: puts (by mode) and removals,
     * duplicated keys resolving to the last one in the batch.
     *
     * @throws BatchApplyException if the batch failed part way; the partition stays consistent
     */
    public BatchResult applyBatch(EntryBatch batch, BatchMode mode) {
        throw new UnsupportedOperationException();
    }

    /** Frees every page of this partition (dropping the cache). */
    public void destroy() {
        throw new UnsupportedOperationException();
    }
}
