package io.sluice.pagestore.internal;

import io.sluice.protocol.internal.EntryBatch;
import java.util.Arrays;

/**
 * A partition's entries as bytes: the rows' byte streams back to back, which is exactly the
 * {@link EntryBatch} entry layout (key length, value length, key, value), in key order. A checkpoint
 * copies a partition into one (reused from checkpoint to checkpoint); recovery reads a partition file
 * into one. One thread at a time.
 */
public final class EntryImage {

    private byte[] data = new byte[64 << 10];
    private int length;
    private int count;

    /** Empties the image, keeping its array. */
    public void clear() {
        length = 0;
        count = 0;
    }

    /** Room for {@code bytes} more bytes at {@link #length()}; returns the array to write into. */
    public byte[] reserve(int bytes) {
        long needed = (long) length + bytes;
        if (needed > Integer.MAX_VALUE - 16) {
            throw new IllegalStateException("a partition of more than 2 GiB of entries cannot be checkpointed");
        }
        if (needed > data.length) {
            data = Arrays.copyOf(data, (int) Math.min(Integer.MAX_VALUE - 16, Math.max(needed, 2L * data.length)));
        }
        return data;
    }

    /** An entry of {@code bytes} bytes was written at {@link #length()}. */
    void added(int bytes) {
        added(bytes, 1);
    }

    /** {@code count} entries of {@code bytes} bytes in all were written at {@link #length()}. */
    public void added(int bytes, int count) {
        length += bytes;
        this.count += count;
    }

    /** The entries' bytes: {@code [0, length())}. */
    public byte[] data() {
        return data;
    }

    public int length() {
        return length;
    }

    /** Entries in the image. */
    public int count() {
        return count;
    }
}
