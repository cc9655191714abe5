package io.sluice.pagestore.internal;

/**
 * Walks a partition's entries in key order (unsigned byte order of the encoded keys). Each
 * {@link #next()} copies one entry out, so the cursor stays valid while writers change the
 * partition; it sees each entry as it was at some moment during the walk.
 */
public interface StoreCursor {

    /** Moves to the next entry. @return false when there is none */
    boolean next();

    /** The current entry's key bytes. */
    byte[] key();

    /** The current entry's value bytes. */
    byte[] value();
}
