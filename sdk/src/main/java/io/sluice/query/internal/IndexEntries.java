package io.sluice.query.internal;

/**
 * Entries in index order, one at a time: {@link #next()} moves to the next one, whose index key (the indexed
 * fields' bytes, then the entry's key), key and value the getters return until the next move. Not thread-safe.
 */
public interface IndexEntries extends AutoCloseable {

    /** Moves to the next entry. @return false once there is none (the getters then return nothing useful) */
    boolean next();

    /** The current entry's index key: its fields' encoded values, then its encoded key. */
    byte[] indexKey();

    /** The current entry's encoded key. */
    byte[] key();

    /** The current entry's encoded value. */
    byte[] value();

    /** Releases what the source holds (nothing by default). */
    @Override
    default void close() {
    }
}
