package io.sluice.pagestore.internal;

import java.util.NoSuchElementException;

/**
 * A {@link StoreCursor} over one partition: copies chunks of entries out under the partition's read lock
 * ({@link PartitionStore#copyChunk}), so it never blocks writers for the whole walk, and resumes after the
 * last key it returned. Used by one thread.
 */
final class PartitionCursor implements StoreCursor {

    /** Entries a chunk copies: a descent of the tree and a hold of the read lock per chunk. */
    private static final int CHUNK = 256;

    private final PartitionStore store;
    private final long[] links = new long[CHUNK];
    private final byte[][] keys = new byte[CHUNK][];
    private final byte[][] values = new byte[CHUNK][];
    private int count;
    private int position = -1;
    private boolean exhausted;
    private byte[] lastKey;

    /** @param afterKey the cursor starts after this key (exclusive), or at the first key if null */
    PartitionCursor(PartitionStore store, byte[] afterKey) {
        this.store = store;
        this.lastKey = afterKey;
    }

    @Override
    public boolean next() {
        if (position + 1 < count) {
            position++;
            return true;
        }
        if (exhausted) {
            position = count;
            return false;
        }
        fill();
        position = 0;
        return count > 0;
    }

    private void fill() {
        count = 0; // stays so if the partition was destroyed (copyChunk throws)
        count = store.copyChunk(lastKey, links, keys, values);
        if (count < CHUNK) {
            exhausted = true;
        }
        if (count > 0) {
            lastKey = keys[count - 1];
        }
    }

    @Override
    public byte[] key() {
        return current(keys);
    }

    @Override
    public byte[] value() {
        return current(values);
    }

    private byte[] current(byte[][] column) {
        if (position < 0 || position >= count) {
            throw new NoSuchElementException("cursor is not on an entry: call next() first");
        }
        return column[position];
    }
}
