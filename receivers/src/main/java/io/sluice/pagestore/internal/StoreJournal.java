package io.sluice.pagestore.internal;

import io.sluice.protocol.internal.EntryBatch;

/**
 * Where a {@link PartitionStore} reports each write it made, under its write lock (so the journal
 * sees a partition's writes in the order they were applied): the write-ahead log of a persistent
 * region, or {@link #NONE}. A store calls it only after the write succeeded (or, for a batch that
 * failed part way, with {@code partial} set).
 */
public interface StoreJournal {

    /** The journal of an in-memory region: records nothing. */
    StoreJournal NONE = new StoreJournal() {
        @Override
        public void batch(EntryBatch batch, BatchMode mode, boolean partial, boolean skipStore) {
        }

        @Override
        public void entry(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength,
                          BatchMode mode, boolean skipStore) {
        }

        @Override
        public void adopted(String file) {
        }

        @Override
        public void checkWritable() {
        }

        @Override
        public long changes() {
            return 0;
        }
    };

    /**
     * A batch was applied with this mode (wholly, or part way if {@code partial}); {@code skipStore}: it is a
     * streamer's skipStore batch, which leaves the cache's store alone (recovery must too).
     */
    void batch(EntryBatch batch, BatchMode mode, boolean partial, boolean skipStore);

    /** One entry was written with this mode; {@code value == null} is a removal; {@code skipStore} as for a batch. */
    void entry(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength, BatchMode mode,
               boolean skipStore);

    /**
     * Every entry of the partition was replaced by those of a partition file adopted from another node
     * ({@link PartitionStore#replaceAll}): {@code file} names it in the node's moves directory, or is empty if the
     * partition was left empty (an adoption that failed). Counts as a write. A journal that cannot record it throws
     * (the default), so that no implementation drops it silently.
     */
    default void adopted(String file) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot record an adopted partition");
    }

    /** Writes reported so far (read under the partition's lock, it says whether the partition changed since). */
    long changes();

    /** Whether it records entries at all (a write that must build an entry for it may skip that if not). */
    default boolean recording() {
        return this != NONE;
    }

    /** Called before a write: @throws RuntimeException if the journal can take no more records (its cause) */
    void checkWritable();
}
