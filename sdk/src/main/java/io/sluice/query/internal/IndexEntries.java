package io.sluice.query.internal;

import java.util.Arrays;

/**
 * Entries in index order, one at a time: {@link #next()} moves to the next one, whose bytes the accessors give until
 * the next move: its index key (the indexed fields' bytes, then the entry's key) and its value as ranges of
 * {@link #array()} (no copy), or copied ({@link #indexKey()}, {@link #key()}, {@link #value()}). Not thread-safe.
 */
public interface IndexEntries extends AutoCloseable {

    /** Moves to the next entry. @return false once there is none (the accessors then return nothing useful) */
    boolean next();

    /** The array holding the current entry's index key and value (valid until the next move; do not keep it). */
    byte[] array();

    /** Where the current entry's index key starts in {@link #array()}. */
    int indexKeyOffset();

    int indexKeyLength();

    /** The current entry's key length: its key is the index key's last {@code keyLength()} bytes. */
    int keyLength();

    /** Where the current entry's value starts in {@link #array()}. */
    int valueOffset();

    int valueLength();

    /** The current entry's index key, copied: its fields' encoded values, then its encoded key. */
    default byte[] indexKey() {
        return Arrays.copyOfRange(array(), indexKeyOffset(), indexKeyOffset() + indexKeyLength());
    }

    /** The current entry's encoded key, copied. */
    default byte[] key() {
        int end = indexKeyOffset() + indexKeyLength();
        return Arrays.copyOfRange(array(), end - keyLength(), end);
    }

    /** The current entry's encoded value, copied. */
    default byte[] value() {
        return Arrays.copyOfRange(array(), valueOffset(), valueOffset() + valueLength());
    }

    /** Releases what the source holds (nothing by default). */
    @Override
    default void close() {
    }
}
