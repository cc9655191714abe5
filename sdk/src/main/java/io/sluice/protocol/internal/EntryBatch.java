package io.sluice.protocol.internal;

import io.sluice.binary.internal.GrowableBuffer;

/**
 * A batch of encoded entries of one partition, as the streamer buffers it, the wire carries it
 * and the store reads it: the bytes are written once, by the streamer, and never re-encoded.
 *
 * <p>Layout of each entry, back to back (big-endian). It is also the byte stream of a stored row
 * ({@code pagestore.internal.page.RowStore}; a stored row is never a removal), so a streamed entry is
 * copied into its row as it is. This table is the one definition of both:
 * <pre>
 * offset        size      meaning
 * 0             4         key length K (&gt;= 1)
 * 4             4         value length V, or -1 for a removal
 * 8             K         key, tagged encoding
 * 8 + K         max(V,0)  value, tagged encoding
 * </pre>
 *
 * <p>An index of entry offsets is built once per batch when it is first read (one {@code int[]}
 * per batch, or an array the reading thread lends it: {@link #checkStructure(int[])}). Not thread-safe for concurrent first reads; a batch is read by
 * one thread at a time.
 */
public final class EntryBatch {

    /** Bytes before each entry's key. */
    public static final int ENTRY_HEADER = 8;
    /** The value length that marks a removal. */
    public static final int REMOVAL = -1;

    private final byte[] data;
    /** Where the first entry starts in {@link #data}: batches received over the network lie inside a pooled buffer. */
    private final int base;
    private final int length;
    private final int count;
    private int[] offsets;
    /** What {@link #touchLines} read; never used otherwise. */
    @SuppressWarnings("unused")
    private byte touched;

    /**
     * Wraps bytes written with {@link #appendHeader} (or {@link #append}).
     *
     * @param data   the entries
     * @param length valid bytes of data
     * @param count  number of entries in it
     */
    public EntryBatch(byte[] data, int length, int count) {
        this(data, 0, length, count);
    }

    /**
     * Wraps bytes that lie at {@code [base, base + length)} of the array (a received frame in a pooled
     * buffer); every offset this batch returns is an index into {@code data}.
     */
    public EntryBatch(byte[] data, int base, int length, int count) {
        if (base < 0 || length < 0 || base > data.length - length || count < 0) {
            throw new IllegalArgumentException("batch of " + count + " entries, " + length
                    + " bytes at " + base + ", array of " + data.length);
        }
        this.data = data;
        this.base = base;
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

    /** Where the first entry starts in {@link #data()}. */
    public int base() {
        return base;
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

    private void ensureIndexed() {
        if (offsets == null) {
            offsets = index();
        }
    }

    private int[] index() {
        return index(new int[count]);
    }

    private int[] index(int[] result) {
        int at = base;
        int end = base + length;
        touchLines(end);
        for (int i = 0; i < count; i++) {
            if (end - at < ENTRY_HEADER) {
                throw new CorruptBatchException("entry " + i + " of " + count + " starts at byte " + (at - base)
                        + " but the batch ends at " + length);
            }
            int k = GrowableBuffer.getInt(data, at);
            int v = GrowableBuffer.getInt(data, at + 4);
            if (k < 1 || v < REMOVAL) {
                throw new CorruptBatchException("entry " + i + " at byte " + (at - base) + " has key length " + k
                        + " and value length " + v);
            }
            long next = (long) at + ENTRY_HEADER + k + Math.max(v, 0);
            if (next > end) {
                throw new CorruptBatchException("entry " + i + " at byte " + (at - base) + " ends at " + (next - base)
                        + ", past the batch's " + length + " bytes");
            }
            result[i] = at;
            at = (int) next;
        }
        if (at != end) {
            throw new CorruptBatchException("batch of " + count + " entries has " + (end - at)
                    + " bytes left over after the last entry");
        }
        return result;
    }

    /**
     * Reads one byte of every cache line of the batch, in order, before the walk from header to header. Why: a batch
     * is indexed by a thread other than the one that wrote it (a streamer's adding thread, or the network's), so its
     * lines are not in this core's cache; the walk reads them one after another, each read waiting for the one
     * before (the next header's place depends on this one's lengths): about 30 ns per entry of a StockOrder load
     * (docs/benchmarks-results.md, issue 29). These reads depend on nothing, so the core has many lines on their way
     * at once; the walk, and the apply after it, then find them cached. What they read goes into a field, so that
     * the compiler keeps them.
     */
    private void touchLines(int end) {
        byte x = 0;
        for (int at = base; at < end; at += 64) {
            x ^= data[at];
        }
        touched = x;
    }

    /**
     * Checks the entries' lengths against the batch (what {@link #keyOffset} and the others would
     * otherwise find out on first use), so that a malformed batch from the network fails before any
     * entry is applied.
     *
     * @throws CorruptBatchException naming the entry and its byte offset
     */
    public void checkStructure() {
        ensureIndexed();
    }

    /**
     * As {@link #checkStructure()}, but the index of entry offsets is written into the caller's array
     * rather than a new one, so that a thread applying batch after batch allocates no index per batch.
     * Until {@link #releaseIndex} the batch reads its offsets from that array: the caller must not reuse
     * it meanwhile. Does nothing if the batch is indexed already.
     *
     * @param index at least {@link #size()} ints
     * @throws CorruptBatchException naming the entry and its byte offset (the batch stays unindexed)
     * @throws IllegalArgumentException if the array is shorter than the batch
     */
    public void checkStructure(int[] index) {
        if (offsets != null) {
            return;
        }
        if (index.length < count) {
            throw new IllegalArgumentException("an index of " + index.length + " ints for " + count + " entries");
        }
        offsets = index(index);
    }

    /**
     * Lets go of an index array given to {@link #checkStructure(int[])}; a later read of the batch indexes
     * it again into an array of its own.
     */
    public void releaseIndex(int[] index) {
        if (offsets == index) {
            offsets = null;
        }
    }

    /** A batch whose bytes do not match its entry count. */
    public static final class CorruptBatchException extends io.sluice.SluiceException {
        public CorruptBatchException(String message) {
            super("corrupt batch: " + message);
        }
    }
}
