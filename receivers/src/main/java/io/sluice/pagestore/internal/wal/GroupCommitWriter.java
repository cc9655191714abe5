package io.sluice.pagestore.internal.wal;

import io.sluice.pagestore.internal.wal.WalSettings.Durability;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

/**
 * The log's writer thread ({@code sluice-wal-writer}), the permanent leader of each commit group: it swaps
 * the {@link AppendBuffer}'s buffers, writes the full one to the segment with one {@code write} and, when the
 * mode or a checkpoint asks, one {@code fsync}, then completes the {@link DurabilityWaiters}. Every record
 * appended during one fsync shares the next one.
 *
 * <p>It also starts a new segment where a checkpoint's mark asks ({@link #markForCheckpoint}, so that the
 * segment before the mark can be deleted once the checkpoint commits) or where the segment is full, and
 * fsyncs up to a position on request ({@link #sync}). The request fields are guarded by the log's monitor
 * ({@link AppendBuffer#lock}); the positions reached are published in {@link WalProgress}.
 */
final class GroupCommitWriter {

    private static final Logger LOG = LoggerFactory.getLogger(GroupCommitWriter.class);

    private final AppendBuffer buffer;
    private final WalSegments segments;
    private final DurabilityWaiters waiters;
    private final WalProgress progress;
    private final Durability mode;
    private final long flushIntervalNanos;
    /** Signalled when the synced position advanced, a mark's roll happened, or the log failed. */
    private final Condition syncedAdvanced;
    // ---- guarded by buffer.lock ----
    /** The writer must write and fsync up to here whatever the mode (a checkpoint waits for it). */
    private long forceRequested;
    /**
     * A checkpoint's mark: the writer starts a new segment exactly at this log position (-1: none asked), so that
     * once the checkpoint commits, the whole segment before it can be deleted.
     */
    private long rollAt = -1;
    // ---- written by the writer ----
    private volatile long writes;
    private volatile long syncs;
    private Thread thread;

    GroupCommitWriter(AppendBuffer buffer, WalSegments segments, DurabilityWaiters waiters, WalProgress progress,
                      long flushIntervalNanos) {
        this.buffer = buffer;
        this.segments = segments;
        this.waiters = waiters;
        this.progress = progress;
        this.mode = progress.mode();
        this.flushIntervalNanos = flushIntervalNanos;
        this.syncedAdvanced = buffer.lock.newCondition();
    }

    /** Starts the thread (once, after recovery opened the segment to write). */
    void start() {
        thread = new Thread(this::writeLoop, "sluice-wal-writer");
        thread.setDaemon(true);
        thread.start();
    }

    /** Waits for the thread to end (the buffer was closed first). */
    void join() {
        if (thread != null) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Buffer writes made (each holds every record appended while the previous one was written). */
    long writes() {
        return writes;
    }

    /** Fsyncs made for records (segment creation not counted). */
    long syncs() {
        return syncs;
    }

    /** See {@link WriteAheadLog#markForCheckpoint()}. */
    long markForCheckpoint() {
        buffer.lock.lock();
        try {
            rollAt = buffer.appendedLocked();
            buffer.wakeWriterIfWaitingLocked();
            return rollAt;
        } finally {
            buffer.lock.unlock();
        }
    }

    /** See {@link WriteAheadLog#sync(long)}. */
    void sync(long position) {
        buffer.lock.lock();
        try {
            // A checkpoint syncing to its mark also waits for the roll there (markForCheckpoint): the writer then
            // writes through what follows the mark too, so that the segment before it can be deleted at once.
            long target = rollAt == position ? Math.max(position, buffer.appendedLocked()) : position;
            forceRequested = Math.max(forceRequested, target);
            buffer.wakeWriterLocked();
            while (progress.synced() < target || rollAt == position) {
                progress.checkWritable();
                if (progress.writerEnded()) {
                    throw progress.closed();
                }
                syncedAdvanced.await(100, TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new WalFailedException("interrupted while syncing the log", e);
        } finally {
            buffer.lock.unlock();
        }
    }

    private void writeLoop() {
        long nextForce = System.nanoTime() + flushIntervalNanos;
        while (true) {
            ByteBuffer batch;
            long end;
            boolean stop;
            boolean forcing;
            long roll;
            buffer.lock.lock();
            try {
                while (!buffer.closingLocked() && progress.failure() == null && !mustWriteLocked(nextForce)) {
                    if (mode == Durability.BACKGROUND) {
                        long wait = nextForce - System.nanoTime();
                        if (wait <= 0) { // nothing to force: the next interval starts now
                            nextForce = System.nanoTime() + flushIntervalNanos;
                            wait = flushIntervalNanos;
                        }
                        buffer.awaitWorkLocked(wait);
                    } else {
                        buffer.awaitWorkLocked(-1);
                    }
                }
                if (progress.failure() != null) {
                    break;
                }
                stop = buffer.closingLocked();
                forcing = forceRequested > progress.synced();
                roll = rollAt;
                end = buffer.appendedLocked();
                batch = buffer.swapLocked(nextPhase(end, roll));
            } finally {
                buffer.lock.unlock();
            }
            try {
                long start = progress.written(); // the log position of the batch's first byte
                boolean rollHere = roll >= start && roll <= end;
                if (batch.hasRemaining()) {
                    if (segments.full()) {
                        segments.roll(start, forcing);
                    }
                    if (rollHere) { // the mark is in this batch: its bytes before the mark end the segment
                        int limit = batch.limit();
                        batch.limit(batch.position() + (int) (roll - start));
                        segments.write(batch);
                        batch.limit(limit);
                    }
                    if (rollHere && segments.hasRecords()) {
                        segments.roll(roll, true);
                    }
                    segments.write(batch);
                    writes++;
                } else if (rollHere && segments.hasRecords()) {
                    segments.roll(roll, true); // synced to the mark with nothing after it: a clean stop's checkpoint
                }
                if (rollHere) {
                    buffer.lock.lock();
                    try {
                        if (rollAt == roll) {
                            rollAt = -1;
                        }
                        syncedAdvanced.signalAll();
                    } finally {
                        buffer.lock.unlock();
                    }
                }
                progress.written(end);
                boolean force = mode == Durability.FSYNC || stop || forcing
                        || (mode == Durability.BACKGROUND && System.nanoTime() - nextForce >= 0);
                if (force && progress.synced() < end) {
                    segments.force();
                    syncs++;
                }
                if (force) {
                    progress.synced(end);
                    nextForce = System.nanoTime() + flushIntervalNanos;
                    if (forcing) {
                        buffer.lock.lock();
                        try {
                            syncedAdvanced.signalAll();
                        } finally {
                            buffer.lock.unlock();
                        }
                    }
                }
            } catch (IOException | RuntimeException e) {
                fail(e);
                break;
            } finally {
                buffer.giveBack(batch);
            }
            waiters.complete();
            if (stop) {
                buffer.lock.lock();
                try {
                    if (buffer.filledLocked() == 0) {
                        break;
                    }
                } finally {
                    buffer.lock.unlock();
                }
            }
        }
        buffer.lock.lock();
        try {
            progress.writerEnded(true);
        } finally {
            buffer.lock.unlock();
        }
        waiters.complete();
    }

    /**
     * Where the next buffer's first record will be in its segment, mod {@link AppendBuffer#ALIGN}, once the buffer
     * taken now (the log up to {@code end}) is written: placed in memory as they will be in the file, the next
     * buffer's records are written straight from it ({@link WalSegments#write}). A roll this does not foresee costs
     * a copy, nothing else.
     */
    private int nextPhase(long end, long roll) {
        long start = progress.written();
        long offset;
        if (roll >= start && roll <= end) {
            offset = WalFormat.SEGMENT_HEADER + end - roll; // a checkpoint's mark in this write starts a segment
        } else if (segments.full() && end > start) {
            offset = WalFormat.SEGMENT_HEADER + end - start; // this write starts the next segment
        } else {
            offset = segments.size() + end - start;
        }
        return (int) (offset % AppendBuffer.ALIGN);
    }

    /** Whether the writer has something to do now. */
    private boolean mustWriteLocked(long nextForce) {
        int filled = buffer.filledLocked();
        boolean data = filled > 0;
        long appended = buffer.appendedLocked();
        if (forceRequested > progress.synced() || rollAt >= 0 && rollAt == appended && rollAt == progress.written()) {
            return true; // a checkpoint waits for the sync, or its mark is the idle log's end: roll there now
        }
        return switch (mode) {
            case FSYNC, LOG_ONLY -> data;
            case BACKGROUND -> buffer.appenderWaitingLocked() || buffer.halfFullLocked()
                    || System.nanoTime() - nextForce >= 0 && (data || progress.synced() < progress.written());
            case NONE -> buffer.appenderWaitingLocked() || buffer.halfFullLocked();
        };
    }

    private void fail(Exception e) {
        LOG.error("the write-ahead log in {} failed; writes to the persistent region now fail until a restart",
                progress.directory(), e);
        buffer.lock.lock();
        try {
            progress.fail(new WalFailedException("writing the log segment " + segments.currentName() + " failed: "
                    + e, e));
            buffer.failedLocked();
            syncedAdvanced.signalAll();
        } finally {
            buffer.lock.unlock();
        }
        waiters.complete();
    }
}
