package io.sluice.node.internal;

import io.sluice.pagestore.internal.BatchMode;
import io.sluice.protocol.internal.EntryBatch;

/**
 * Sees every write of every partition of the node's caches, as the partition's {@link
 * io.sluice.pagestore.internal.StoreJournal} does: under the partition's write lock, after the write succeeded, in
 * the order the partition applied its writes (streamed batches as their bytes, single writes as entries). A cluster
 * member installs one ({@link NodeEngine#journalTap}) to send a primary's writes to the partition's backups.
 *
 * <p>Called with the partition's write lock held: it must be quick, must not block and must not throw (what it
 * throws is logged and ignored). It must not keep the arrays it is given: they are the caller's.
 */
public interface JournalTap {

    /** Sees nothing (a standalone node). */
    JournalTap NONE = new JournalTap() {
        @Override
        public void batch(String cache, int partition, EntryBatch batch, BatchMode mode, boolean partial,
                          boolean skipStore) {
        }

        @Override
        public void entry(String cache, int partition, byte[] key, int keyOffset, int keyLength, byte[] value,
                          int valueOffset, int valueLength, BatchMode mode, boolean skipStore) {
        }
    };

    /** A batch was applied to the cache's partition ({@code partial}: part of it, the batch failed part way). */
    void batch(String cache, int partition, EntryBatch batch, BatchMode mode, boolean partial, boolean skipStore);

    /** One entry was written ({@code value == null}: removed). */
    void entry(String cache, int partition, byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset,
               int valueLength, BatchMode mode, boolean skipStore);
}
