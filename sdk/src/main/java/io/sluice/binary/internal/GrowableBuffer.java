package io.sluice.binary.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * An append-only byte buffer over a heap array that grows as needed: where encoders write keys,
 * values and whole batches. Multi-byte numbers are big-endian so that encoded keys compare in
 * numeric order byte by byte. Not thread-safe; reuse it with {@link #reset()} instead of
 * allocating a new one per entry.
 */
public final class GrowableBuffer {

    private static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final int MAX_CAPACITY = Integer.MAX_VALUE - 16;

    /**
     * A reused scratch buffer that one huge entry grew past this many bytes is given up after use
     * ({@link #oversized()}), so that it does not pin the memory for the life of its thread.
     */
    public static final int MAX_RETAINED_CAPACITY = 1 << 20;

    private byte[] array;
    private int position;

    public GrowableBuffer(int initialCapacity) {
        this.array = new byte[Math.max(16, initialCapacity)];
    }

    /** The backing array; valid bytes are {@code [0, position())}. It changes when the buffer grows. */
    public byte[] array() {
        return array;
    }

    /** Whether a reused buffer should be given up after use: its array grew past {@link #MAX_RETAINED_CAPACITY}. */
    public boolean oversized() {
        return array.length > MAX_RETAINED_CAPACITY;
    }

    /** Bytes written so far. */
    public int position() {
        return position;
    }

    /** Moves the write position (to truncate, or to skip a region patched later). */
    public void position(int newPosition) {
        if (newPosition < 0) {
            throw new IllegalArgumentException("position " + newPosition);
        }
        ensureCapacity(newPosition);
        this.position = newPosition;
    }

    /** Empties the buffer, keeping its array. */
    public void reset() {
        position = 0;
    }

    /** A copy of the written bytes. */
    public byte[] toByteArray() {
        return Arrays.copyOf(array, position);
    }

    /** Makes room for {@code extra} more bytes after the position. */
    public void ensureRemaining(int extra) {
        ensureCapacity((long) position + extra);
    }

    private void ensureCapacity(long capacity) {
        if (capacity > array.length) {
            if (capacity > MAX_CAPACITY) {
                throw new IllegalArgumentException("buffer cannot grow to " + capacity + " bytes");
            }
            long grown = Math.max(capacity, Math.min((long) array.length * 2, MAX_CAPACITY));
            array = Arrays.copyOf(array, (int) grown);
        }
    }

    public GrowableBuffer putByte(int value) {
        ensureRemaining(1);
        array[position++] = (byte) value;
        return this;
    }

    public GrowableBuffer putShort(int value) {
        ensureRemaining(2);
        SHORT.set(array, position, (short) value);
        position += 2;
        return this;
    }

    public GrowableBuffer putInt(int value) {
        ensureRemaining(4);
        INT.set(array, position, value);
        position += 4;
        return this;
    }

    public GrowableBuffer putLong(long value) {
        ensureRemaining(8);
        LONG.set(array, position, value);
        position += 8;
        return this;
    }

    public GrowableBuffer putBytes(byte[] src, int offset, int length) {
        ensureRemaining(length);
        System.arraycopy(src, offset, array, position, length);
        position += length;
        return this;
    }

    public GrowableBuffer putBytes(byte[] src) {
        return putBytes(src, 0, src.length);
    }

    /** Writes an int at an absolute index below the position (to patch a length written earlier). */
    public void putIntAt(int index, int value) {
        if (index < 0 || index + 4 > position) {
            throw new IndexOutOfBoundsException("int at " + index + " outside [0, " + position + ")");
        }
        INT.set(array, index, value);
    }

    /** Writes a byte at an absolute index below the position. */
    public void putByteAt(int index, int value) {
        if (index < 0 || index >= position) {
            throw new IndexOutOfBoundsException("byte at " + index + " outside [0, " + position + ")");
        }
        array[index] = (byte) value;
    }

    /** Writes a short at an absolute index below the position. */
    public void putShortAt(int index, int value) {
        if (index < 0 || index + 2 > position) {
            throw new IndexOutOfBoundsException("short at " + index + " outside [0, " + position + ")");
        }
        SHORT.set(array, index, (short) value);
    }

    /** Reads a big-endian int from any array; shared by the readers of what this buffer writes. */
    public static int getInt(byte[] array, int index) {
        return (int) INT.get(array, index);
    }

    /** Reads a big-endian long from any array. */
    public static long getLong(byte[] array, int index) {
        return (long) LONG.get(array, index);
    }

    /** Reads a big-endian short from any array. */
    public static short getShort(byte[] array, int index) {
        return (short) SHORT.get(array, index);
    }
}
