package io.sluice.query.internal;

import java.util.Arrays;

/**
 * Entries in index order, one at a time: {@link #next()} moves to the next one, whose bytes the accessors give until
 * the next move: its index key (the indexed fields' bytes, then the entry's key) as a range of {@link #array()} (no
 * copy) or copied ({@link #indexKey()}, {@link #key()}), and its value ({@link #value()}). Not thread-safe.
 */
public interface IndexEntries extends AutoCloseable {

    /** Moves to the next entry. @return false once there is none (the accessors then return nothing useful) */
    boolean next();

    /** The array holding the current entry's index key (valid until the next move; do not keep it). */
    byte[] array();

    /** Where the current entry's index key starts in {@link #array()}. */
    int indexKeyOffset();

    int indexKeyLength();

    /** The current entry's key length: its key is the index key's last {@code keyLength()} bytes. */
    int keyLength();

    /** The current entry's index key, copied: its fields' encoded values, then its encoded key. */
    default byte[] indexKey() {
        return Arrays.copyOfRange(array(), indexKeyOffset(), indexKeyOffset() + indexKeyLength());
    }

    /** The current entry's encoded key, copied. */
    default byte[] key() {
        int end = indexKeyOffset() + indexKeyLength();
        return Arrays.copyOfRange(array(), end - keyLength(), end);
    }

    /** The current entry's encoded value: an array of its own, which the caller may keep (no source changes it). */
    byte[] value();

    /** Releases what the source holds (nothing by default). */
    @Override
    default void close() {
    }
}
