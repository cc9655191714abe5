package io.sluice.protocol;

import io.sluice.binary.internal.GrowableBuffer;

/**
 * A batch of encoded entries of one partition, as the streamer buffers it, the wire carries it
 * and the store reads it: the bytes are written once, by the streamer, and never re-encoded.
 *
 * <p>Layout of each entry, back to back (big-endian):
 * <pre>
 * offset        size      meaning
 * 0             4         key length K (&gt;= 1)
 * 4             4         value length V, or -1 for a removal
 * 8             K         key, tagged encoding
 * 8 + K         max(V,0)  value, tagged encoding
 * </pre>
 *
 * <p>An index of entry offsets is built once per batch when it is first read (one {@code int[]}
 * per batch, nothing per entry). Not thread-safe for concurrent first reads; a batch is read by
 * one thread at a time.
 */
public final class EntryBatch {

    /** Bytes before each entry's key. */
    public static final int ENTRY_HEADER = 8;
    /** The value length that marks a removal. */
    public static final int REMOVAL = -1;

    private final byte[] data;
    private final int length;
    private final int count;
    private int[] offsets;

    /**
     * Wraps bytes written with {@link #appendHeader} (or {@link #append}).
     *
     * @param data   the entries
     * @param length valid bytes of data
     * @param count  number of entries in it
     */
    public EntryBatch(byte[] data, int length, int count) {
        if (length < 0 || length > data.length || count < 0) {
            throw new IllegalArgumentException("batch of " + count + " entries, " + length
                    + " bytes, array of " + data.length);
        }
        this.data = data;
        this.length = length;
        this.count = count;
    }

    /** Appends a whole entry; {@code value == null} appends a removal. */
    public static void append(GrowableBuffer out, byte[] key, byte[] value) {
        appendHeader(out, key.length, value == null ? REMOVAL : value.length);
        out.putBytes(key);
        if (value != null) {
            out.putBytes(value);
        }
    }

    /** Appends an entry header; the caller appends the key and value bytes right after. */
    public static void appendHeader(GrowableBuffer out, int keyLength, int valueLength) {
        out.putInt(keyLength);
        out.putInt(valueLength);
    }

    public byte[] data() {
        return data;
    }

    public int length() {
        return length;
    }

    public int size() {
        return count;
    }

    public int keyOffset(int i) {
        return offset(i) + ENTRY_HEADER;
    }

    public int keyLength(int i) {
        return GrowableBuffer.getInt(data, offset(i));
    }

    public int valueOffset(int i) {
        int at = offset(i);
        return at + ENTRY_HEADER + GrowableBuffer.getInt(data, at);
    }

    /** The value's length, or {@link #REMOVAL}. */
    public int valueLength(int i) {
        return GrowableBuffer.getInt(data, offset(i) + 4);
    }

    public boolean isRemoval(int i) {
        return valueLength(i) == REMOVAL;
    }

    private int offset(int i) {
        if (offsets == null) {
            offsets = index();
        }
        return offsets[i];
    }

    private int[] index() {
        int[] result = new int[count];
        int at = 0;
        for (int i = 0; i < count; i++) {
            if (at + ENTRY_HEADER > length) {
                throw new CorruptBatchException("entry " + i + " of " + count + " starts at byte " + at
                        + " but the batch ends at " + length);
            }
            int k = GrowableBuffer.getInt(data, at);
            int v = GrowableBuffer.getInt(data, at + 4);
            if (k < 1 || v < REMOVAL) {
                throw new CorruptBatchException("entry " + i + " at byte " + at + " has key length " + k
                        + " and value length " + v);
            }
            long end = (long) at + ENTRY_HEADER + k + Math.max(v, 0);
            if (end > length) {
                throw new CorruptBatchException("entry " + i + " at byte " + at + " ends at " + end
                        + ", past the batch's " + length + " bytes");
            }
            result[i] = at;
            at = (int) end;
        }
        if (at != length) {
            throw new CorruptBatchException("batch of " + count + " entries has " + (length - at)
                    + " bytes left over after the last entry");
        }
        return result;
    }

    /** A batch whose bytes do not match its entry count. */
    public static final class CorruptBatchException extends io.sluice.SluiceException {
        public CorruptBatchException(String message) {
            super("corrupt batch: " + message);
        }
    }
}
