package io.sluice.pagestore.internal.wal;

import io.sluice.pagestore.internal.wal.WalSettings.Durability;

import java.nio.ByteBuffer;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.zip.CRC32C;

/**
 * The log's two buffers: appenders copy records ({@link WalFormat} record header and body) into the
 * <i>filling</i> one while the writer thread writes the other, and the writer swaps them
 * ({@link #swapLocked}). Holds the log's monitor ({@link #lock}): held only for memory copies, never for
 * I/O; it guards the buffers, the appended position, the writer's doorbell ({@link #awaitWorkLocked},
 * {@link #wakeWriterLocked}) and whatever else the log's parts keep under it.
 *
 * <p>Each buffer (direct, aligned to {@link #ALIGN}), as indexes into it:
 * <pre>
 * [0, start)                 room for the segment's last partial block (the writer's, for a direct write)
 * [start, start + 4 MiB)     records; start = ALIGN + the file offset the first will have, mod ALIGN
 * [.., capacity)             room for the zeros that pad a direct write to whole blocks (at least ALIGN)
 * </pre>
 *
 * <p>A full buffer makes an appender wait for the writer's swap (it holds its partition's write lock then,
 * so it never waits for the disk itself, only for the buffer the disk is freeing).
 */
final class AppendBuffer {

    private static final int BUFFER_SIZE = 4 << 20;
    /**
     * The buffers' memory alignment, and the room before a buffer's records and after them: the writer puts the
     * segment's last partial block before the records and zeros after them, so that a direct write of whole
     * blocks goes straight from the buffer ({@link WalSegments#write}).
     */
    static final int ALIGN = 4096;
    /** A buffer's room around its records: up to 2 ALIGN before them (start is in [ALIGN, 2 ALIGN)), ALIGN after. */
    private static final int ROOM = 3 * ALIGN;
    private static final ThreadLocal<CRC32C> CRCS = ThreadLocal.withInitial(CRC32C::new);

    /** The log's monitor. */
    final ReentrantLock lock = new ReentrantLock();
    /** Signalled when the writer may have work: data, a waiter, closing. */
    private final Condition writerWork = lock.newCondition();
    /** Signalled when the writer swapped buffers (room for appenders) or the log failed. */
    private final Condition room = lock.newCondition();
    private final Durability mode;
    private final WalProgress progress;
    private final LongSupplier typesVersion;
    private final Supplier<byte[]> typesExport;
    // ---- guarded by lock ----
    private ByteBuffer filling = forRecords(newBuffer(BUFFER_SIZE), ALIGN);
    private ByteBuffer spare = newBuffer(BUFFER_SIZE);
    /** Where the filling buffer's records start: {@link #ALIGN} plus the file offset of the first one, mod ALIGN. */
    private int fillingStart = ALIGN;
    private long appended;
    private long loggedTypesVersion = -1;
    private boolean writerWaiting;
    private boolean appenderWaiting;
    private boolean closing;

    /**
     * @param typesVersion the node's binary type registry version; a TYPES record is logged whenever it changed
     * @param typesExport  the registry's bytes for that record
     */
    AppendBuffer(WalProgress progress, LongSupplier typesVersion, Supplier<byte[]> typesExport) {
        this.progress = progress;
        this.mode = progress.mode();
        this.typesVersion = typesVersion;
        this.typesExport = typesExport;
    }

    // ---- appenders ----

    /**
     * Appends a record whose body is fixed's bytes [0, position), then a's range, then b's (if any).
     *
     * @throws WalFailedException       if the log failed or is closed
     * @throws IllegalArgumentException if the record is over {@link WalFormat#MAX_BODY}
     */
    void append(ByteBuffer fixed, byte[] a, int aOffset, int aLength, byte[] b, int bOffset, int bLength) {
        progress.checkWritable();
        int fixedLength = fixed.position();
        long bodyLong = (long) fixedLength + aLength + bLength;
        if (bodyLong > WalFormat.MAX_BODY) {
            throw new IllegalArgumentException("a log record of " + bodyLong + " bytes is over the limit of "
                    + WalFormat.MAX_BODY);
        }
        int body = (int) bodyLong;
        CRC32C crc = CRCS.get();
        crc.reset();
        crc.update(fixed.array(), 0, fixedLength);
        crc.update(a, aOffset, aLength);
        if (b != null) {
            crc.update(b, bOffset, bLength);
        }
        int checksum = (int) crc.getValue();
        long version = typesVersion.getAsLong();
        lock.lock();
        try {
            if (closing) {
                throw new WalFailedException("the write-ahead log in " + progress.directory()
                        + " is closed (the node is stopping)", null);
            }
            if (version != loggedTypesVersion) {
                appendTypesLocked(version);
            }
            ByteBuffer out = reserveLocked(WalFormat.RECORD_HEADER + body);
            WalFormat.putRecordHeader(out, body, checksum);
            out.put(fixed.array(), 0, fixedLength);
            out.put(a, aOffset, aLength);
            if (b != null) {
                out.put(b, bOffset, bLength);
            }
            appended += WalFormat.RECORD_HEADER + body;
            if (writerWaiting && (mode == Durability.FSYNC || mode == Durability.LOG_ONLY || halfFullLocked())) {
                writerWork.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    /** The type registry changed since the last TYPES record: log it whole before the record that may use it. */
    private void appendTypesLocked(long version) {
        byte[] types = typesExport.get();
        int body = 1 + types.length;
        CRC32C crc = new CRC32C();
        crc.update(WalFormat.TYPES);
        crc.update(types, 0, types.length);
        ByteBuffer out = reserveLocked(WalFormat.RECORD_HEADER + body);
        WalFormat.putRecordHeader(out, body, (int) crc.getValue());
        out.put(WalFormat.TYPES).put(types);
        appended += WalFormat.RECORD_HEADER + body;
        loggedTypesVersion = version;
    }

    /** Room for a record in the filling buffer: waits for the writer to swap buffers, or grows an empty one. */
    private ByteBuffer reserveLocked(int bytes) {
        while (filling.remaining() < bytes) {
            if (filling.position() == fillingStart) {
                filling = forRecords(newBuffer(Math.max(bytes, BUFFER_SIZE)), fillingStart);
                break;
            }
            // A failure may have been set after the caller's own check (between it and taking this lock): the
            // writer has stopped and nobody would ever signal room, so the caller (a stripe thread holding its
            // partition's write lock) must not wait. failedLocked() is called with the failure set, under this lock.
            progress.checkWritable();
            appenderWaiting = true;
            writerWork.signal();
            try {
                room.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new WalFailedException("interrupted while waiting for room in the log buffer", e);
            }
            progress.checkWritable();
        }
        return filling;
    }

    /** Recovery: the log ends at this position, which the new segment's first record will take. */
    void startAt(long position) {
        lock.lock();
        try {
            appended = position;
            fillingStart = ALIGN + WalFormat.SEGMENT_HEADER;
            forRecords(filling, fillingStart);
        } finally {
            lock.unlock();
        }
    }

    /**
     * A direct buffer aligned to {@link #ALIGN} for {@code records} bytes of records, with room before them (for
     * the segment's last partial block) and after them (for the zeros that pad the write to whole blocks).
     */
    private static ByteBuffer newBuffer(int records) {
        return ByteBuffer.allocateDirect(records + ROOM + ALIGN).alignedSlice(ALIGN).slice(0, records + ROOM);
    }

    /** The buffer, empty, its records to start at {@code start} (in [ALIGN, 2 ALIGN)): its limit is their end. */
    private static ByteBuffer forRecords(ByteBuffer b, int start) {
        return b.clear().limit(start + b.capacity() - ROOM).position(start);
    }

    /** The position after the last record appended so far. */
    long appendedLocked() {
        return appended;
    }

    // ---- the writer's doorbell ----

    /** The writer waits for work (at most {@code nanos}, or until woken if negative); an interrupt just wakes it. */
    void awaitWorkLocked(long nanos) {
        writerWaiting = true;
        try {
            if (nanos >= 0) {
                writerWork.awaitNanos(nanos);
            } else {
                writerWork.await();
            }
        } catch (InterruptedException e) {
            // close() interrupts only after setting closing
        }
        writerWaiting = false;
    }

    /** Wakes the writer (it has work: a sync asked, closing, failure, an appender waiting for room). */
    void wakeWriterLocked() {
        writerWork.signal();
    }

    /** Wakes the writer if it waits (a waiter or a checkpoint's mark may need a write it would not make yet). */
    void wakeWriterIfWaitingLocked() {
        if (writerWaiting) {
            writerWork.signal();
        }
    }

    // ---- the writer's side ----

    /** Bytes waiting in the filling buffer. */
    int filledLocked() {
        return filling.position() - fillingStart;
    }

    boolean halfFullLocked() {
        return filling.position() - fillingStart > (filling.capacity() - ROOM) / 2;
    }

    /** Whether an appender waits for room. */
    boolean appenderWaitingLocked() {
        return appenderWaiting;
    }

    /**
     * Takes the filling buffer for writing, its records between position and limit, and makes the spare the
     * filling one, its first record at {@code ALIGN + nextPhase}; wakes the appenders waiting for room. The taken
     * buffer comes back with {@link #giveBack}.
     *
     * @param nextPhase the file offset the next record appended will have, mod {@link #ALIGN} (as far as the
     *                  writer knows: a segment roll before it writes them makes it wrong, which costs a copy)
     */
    ByteBuffer swapLocked(int nextPhase) {
        ByteBuffer full = filling;
        full.limit(full.position()).position(fillingStart);
        filling = spare;
        fillingStart = ALIGN + nextPhase;
        forRecords(filling, fillingStart);
        spare = null;
        appenderWaiting = false;
        room.signalAll();
        return full;
    }

    /** The buffer the writer took, written (or not: the log failed), becomes the spare again. */
    void giveBack(ByteBuffer written) {
        written.clear();
        lock.lock();
        try {
            if (spare == null) {
                spare = written;
            }
        } finally {
            lock.unlock();
        }
    }

    /** The log failed (the failure is set): appenders waiting for room and the writer must look. */
    void failedLocked() {
        room.signalAll();
        writerWork.signal();
    }

    /** No record is accepted from now on; the writer writes what is buffered and stops. @return false if already */
    boolean closeLocked() {
        if (closing) {
            return false;
        }
        closing = true;
        writerWork.signal();
        return true;
    }

    boolean closingLocked() {
        return closing;
    }
}
