package io.sluice.pagestore.internal.wal;

import io.sluice.protocol.internal.EntryBatch;
import io.sluice.pagestore.internal.BatchMode;
import io.sluice.pagestore.internal.StoreJournal;
import io.sluice.pagestore.internal.wal.WalSettings.Durability;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The write-ahead log of a persistent data region: one record per store write (a whole batch is one
 * record), appended to a segment file by one writer thread, with <b>group commit</b>.
 *
 * <p>How a write becomes durable: the thread that applied it (holding the partition's write lock, so
 * a partition's records are in the order its writes were applied) computes the record's CRC32C and
 * copies header and bytes into the log's <i>filling</i> buffer under the log's monitor — a memory copy,
 * no I/O. The writer thread ({@code sluice-wal-writer}) swaps the filling buffer with its spare, writes
 * the whole buffer with one {@code write} (direct I/O where the file system allows it) and, in
 * {@link Durability#FSYNC}, one {@code fsync}; while it does,
 * appenders fill the other buffer, so every batch applied during one fsync shares the next one (the
 * writer is the permanent leader of RocksDB's write group; the appenders are its followers, and never
 * wait for the disk while holding a lock). A caller then waits for its position
 * ({@link #whenDurable}, {@link #awaitDurable}): until it is written (LOG_ONLY) or synced (FSYNC); not at
 * all in BACKGROUND and NONE. Completion callbacks run on the writer thread and must not block.
 *
 * <p>A position is the number of log bytes appended before a point, over all segments since the log
 * began (a segment header records the position of its first record). Byte layouts: {@link WalFormat}.
 *
 * <p>An I/O error (a full disk) is sticky: every waiting and later write fails with a
 * {@link WalFailedException} naming the cause; what was synced before it stays valid.
 *
 * <p>This class is the log's face: it encodes the records and wires the parts, each with one job —
 * {@link DirectoryLock} (one node per directory), {@link AppendBuffer} (the two buffers and the log's
 * monitor), {@link GroupCommitWriter} (the writer thread: write, fsync, roll at a checkpoint's mark),
 * {@link DurabilityWaiters} (writes waiting for their position), {@link WalSegments} (the files: create,
 * roll, delete) and {@link WalProgress} (the positions written and synced, the sticky failure).
 *
 * <p>Life cycle: {@link #WriteAheadLog} locks the directory; {@link #recover} replays the existing
 * segments (appends before it ends are ignored: they are the replay's own writes, already logged) and
 * then opens a new segment and starts the writer; {@link #close} writes and fsyncs everything.
 */
public final class WriteAheadLog implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(WriteAheadLog.class);
    private static final ThreadLocal<ByteBuffer> FIXED = ThreadLocal.withInitial(() -> ByteBuffer.allocate(64));

    private final Path directory;
    private final Durability mode;
    private final DirectoryLock directoryLock;
    private final WalProgress progress;
    private final AppendBuffer buffer;
    private final WalSegments segments;
    private final DurabilityWaiters waiters;
    private final GroupCommitWriter writer;
    /** Until recovery ends, appends are the replay's own writes (already logged) and are ignored. */
    private volatile boolean recovering = true;

    /**
     * Opens the log's directory (creating it) and takes its lock file, so that one node at a time uses it.
     *
     * @param typesVersion the node's binary type registry version; a TYPES record is logged whenever it changed
     * @param typesExport  the registry's bytes for that record
     * @throws WalFailedException if the directory cannot be created or another process holds it
     */
    public WriteAheadLog(WalSettings settings, LongSupplier typesVersion, Supplier<byte[]> typesExport) {
        this(settings, typesVersion, typesExport, new DirectSegmentOpener());
    }

    /** Opens a new segment file for writing (a test wraps the channel to inject I/O errors). */
    @FunctionalInterface
    interface SegmentOpener {
        FileChannel open(Path file) throws IOException;

        /** The alignment the file last opened needs for its writes (it was opened for direct I/O), or 0 (buffered). */
        default int directAlignment() {
            return 0;
        }
    }

    WriteAheadLog(WalSettings settings, LongSupplier typesVersion, Supplier<byte[]> typesExport,
                  SegmentOpener segmentOpener) {
        this.directory = settings.directory();
        this.mode = settings.durability();
        this.progress = new WalProgress(mode, directory);
        this.buffer = new AppendBuffer(progress, typesVersion, typesExport);
        this.segments = new WalSegments(directory, mode, settings.segmentSize(), segmentOpener);
        this.waiters = new DurabilityWaiters(buffer, progress);
        this.writer = new GroupCommitWriter(buffer, segments, waiters, progress, settings.flushInterval().toNanos());
        this.directoryLock = new DirectoryLock(directory);
    }

    /** The directory holding the segments. */
    public Path directory() {
        return directory;
    }

    /** When a write counts as done. */
    public Durability mode() {
        return mode;
    }

    /**
     * Replays every record of the existing segments into the handler (torn tail dropped and logged, see
     * {@link WalReader}), then opens a new segment after them and starts the writer thread.
     *
     * @throws WalCorruptedException if the log is damaged before its tail
     * @throws WalFailedException if a segment cannot be read or the new one created
     */
    public WalReader.Summary recover(WalReader.Handler handler) {
        return recover(handler, 0);
    }

    /**
     * {@link #recover(WalReader.Handler)} from a checkpoint's mark: records before log position {@code from}
     * are checked but not replayed.
     */
    public WalReader.Summary recover(WalReader.Handler handler, long from) {
        WalReader.Summary summary = new WalReader(directory).replay(handler, from);
        segments.addExisting(WalReader.segmentStarts(directory));
        buffer.startAt(summary.endPosition());
        progress.startAt(summary.endPosition());
        try {
            segments.open(summary.lastSegment() + 1, summary.endPosition());
        } catch (IOException e) {
            throw new WalFailedException("cannot create a log segment in " + directory + ": " + e, e);
        }
        recovering = false;
        writer.start();
        return summary;
    }

    /** A journal for one partition of a cache: its writes become BATCH records of that cache id and partition. */
    public StoreJournal journal(int cacheId, int partition) {
        return new PartitionJournal(cacheId, partition);
    }

    // ---- appending ----

    /** Logs that a cache was destroyed (a replay destroys it again). */
    public void appendDrop(int cacheId) {
        if (recovering) {
            return;
        }
        ByteBuffer fixed = FIXED.get().clear();
        fixed.put(WalFormat.DROP).putInt(cacheId);
        buffer.append(fixed, new byte[0], 0, 0, null, 0, 0);
    }

    /** Logs that a cache was created (its id is what BATCH records name). */
    public void appendCache(int cacheId, int partitions, String name) {
        if (recovering) {
            return;
        }
        byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
        ByteBuffer fixed = FIXED.get().clear();
        fixed.put(WalFormat.CACHE).putInt(cacheId).putInt(partitions);
        buffer.append(fixed, utf8, 0, utf8.length, null, 0, 0);
    }

    /** Logs that a cache was put in front of a store (the attachment in the CacheStoreWire layout). */
    public void appendStore(int cacheId, byte[] attachment) {
        if (recovering) {
            return;
        }
        ByteBuffer fixed = FIXED.get().clear();
        fixed.put(WalFormat.STORE).putInt(cacheId);
        buffer.append(fixed, attachment, 0, attachment.length, null, 0, 0);
    }

    /** Logs a cache's options (the CacheOptionsWire layout): replay gives the cache these from here on. */
    public void appendOptions(int cacheId, byte[] options) {
        if (recovering) {
            return;
        }
        ByteBuffer fixed = FIXED.get().clear();
        fixed.put(WalFormat.OPTIONS).putInt(cacheId);
        buffer.append(fixed, options, 0, options.length, null, 0, 0);
    }

    /**
     * Logs that a partition's entries were replaced by those of the partition file {@code file} (its name in the
     * moves directory; empty: the partition was left empty).
     *
     * @throws WalFailedException if the log has failed
     */
    public void appendAdopt(int cacheId, int partition, String file) {
        if (recovering) {
            return;
        }
        byte[] utf8 = file.getBytes(StandardCharsets.UTF_8);
        ByteBuffer fixed = FIXED.get().clear();
        fixed.put(WalFormat.ADOPT).putInt(cacheId).putInt(partition);
        buffer.append(fixed, utf8, 0, utf8.length, null, 0, 0);
    }

    /**
     * Logs one store write of a batch: the batch's entry bytes as they are ({@code skipStore}: a streamer's
     * skipStore batch, flagged so that recovery leaves its keys out of the store's queue).
     *
     * @throws WalFailedException if the log has failed
     */
    public void appendBatch(int cacheId, int partition, BatchMode mode, boolean partial, boolean skipStore,
                            EntryBatch batch) {
        if (recovering || batch.size() == 0) {
            return;
        }
        ByteBuffer fixed = FIXED.get().clear();
        byte flags = (byte) ((partial ? WalFormat.FLAG_PARTIAL : 0) | skipStoreFlag(skipStore));
        fixed.put(WalFormat.BATCH).put(modeByte(mode)).put(flags).putInt(cacheId).putInt(partition).putInt(batch.size());
        buffer.append(fixed, batch.data(), batch.base(), batch.length(), null, 0, 0);
    }

    /**
     * Logs a single-entry write as a BATCH record of one entry ({@code value == null}: a removal;
     * {@code skipStore} as for {@link #appendBatch}).
     *
     * @throws WalFailedException if the log has failed
     */
    public void appendEntry(int cacheId, int partition, BatchMode mode, boolean skipStore, byte[] key, int keyOffset,
                            int keyLength, byte[] value, int valueOffset, int valueLength) {
        if (recovering) {
            return;
        }
        ByteBuffer fixed = FIXED.get().clear();
        fixed.put(WalFormat.BATCH).put(modeByte(mode)).put(skipStoreFlag(skipStore)).putInt(cacheId).putInt(partition).putInt(1)
                .putInt(keyLength).putInt(value == null ? EntryBatch.REMOVAL : valueLength);
        if (value == null) {
            buffer.append(fixed, key, keyOffset, keyLength, null, 0, 0);
        } else {
            buffer.append(fixed, key, keyOffset, keyLength, value, valueOffset, valueLength);
        }
    }

    private static byte skipStoreFlag(boolean skipStore) {
        return skipStore ? WalFormat.FLAG_SKIP_STORE : 0;
    }

    private static byte modeByte(BatchMode mode) {
        return mode == BatchMode.INSERT_IF_ABSENT ? WalFormat.MODE_INSERT_IF_ABSENT : WalFormat.MODE_UPSERT;
    }

    /** @throws WalFailedException if the log failed (its cause) */
    public void checkWritable() {
        progress.checkWritable();
    }

    // ---- waiting ----

    /** Buffer writes the writer thread made (each holds every record appended while the previous one was written). */
    public long writes() {
        return writer.writes();
    }

    /** Fsyncs the writer thread made for records (segment creation not counted). */
    public long syncs() {
        return writer.syncs();
    }

    /**
     * A checkpoint's mark: the position after the last record appended so far, where the writer will start a
     * new segment (when it next writes, or when the log is synced to the mark with nothing after it), so that
     * the segment holding the records before the mark can be deleted once the checkpoint commits.
     */
    public long markForCheckpoint() {
        return writer.markForCheckpoint();
    }

    /** The position after the last record appended so far. */
    public long end() {
        buffer.lock.lock();
        try {
            return buffer.appendedLocked();
        } finally {
            buffer.lock.unlock();
        }
    }

    /**
     * Calls {@code done} once everything up to the position is durable per the mode — with null, or with
     * the log's failure. Runs it on this thread if it already is, else on the writer thread (so it must not block).
     */
    public void whenDurable(long position, Consumer<Throwable> done) {
        waiters.whenDurable(position, done);
    }

    /**
     * Waits until everything up to the position is durable per the mode.
     *
     * @throws WalFailedException if the log failed before that
     */
    public void awaitDurable(long position) {
        waiters.awaitDurable(position);
    }

    /**
     * Writes and fsyncs the log up to {@code position} whatever the mode, and waits for it (a checkpoint's mark
     * must be on disk before the checkpoint counts). If {@code position} is the pending mark of
     * {@link #markForCheckpoint}, it also waits until the writer started the new segment there.
     *
     * @throws WalFailedException if the log failed or closed first
     */
    public void sync(long position) {
        writer.sync(position);
    }

    /**
     * Deletes the segments that hold only records before log position {@code position} (a completed
     * checkpoint's mark): a segment goes when the next one starts at or before it. The segment being
     * written is never deleted.
     *
     * @return the number of segments deleted
     */
    public int deleteSegmentsBefore(long position) {
        return segments.deleteBefore(position);
    }

    /** Bytes of log segments on disk now. */
    public long diskBytes() {
        return segments.diskBytes();
    }

    /**
     * Writes and fsyncs everything appended, completes every waiter, stops the writer and closes the
     * segment and the directory lock. Calling it again has no effect.
     */
    @Override
    public void close() {
        buffer.lock.lock();
        try {
            if (!buffer.closeLocked()) {
                return;
            }
        } finally {
            buffer.lock.unlock();
        }
        writer.join();
        try {
            segments.close();
        } catch (IOException e) {
            LOG.warn("closing the log segment {}: {}", segments.currentName(), e.toString());
        }
        try {
            directoryLock.close();
        } catch (IOException e) {
            LOG.warn("releasing the lock of {}: {}", directory, e.toString());
        }
    }

    /** One partition's journal: its writes as BATCH records. */
    private final class PartitionJournal implements StoreJournal {
        private final int cacheId;
        private final int partition;
        /** Writes made to the partition (under its write lock): a checkpoint rewrites a partition only if it grew. */
        private volatile long changes;

        PartitionJournal(int cacheId, int partition) {
            this.cacheId = cacheId;
            this.partition = partition;
        }

        @Override
        public void batch(EntryBatch batch, BatchMode mode, boolean partial, boolean skipStore) {
            changes++;
            appendBatch(cacheId, partition, mode, partial, skipStore, batch);
        }

        @Override
        public void entry(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength,
                          BatchMode mode, boolean skipStore) {
            changes++;
            appendEntry(cacheId, partition, mode, skipStore, key, keyOffset, keyLength, value, valueOffset, valueLength);
        }

        @Override
        public void adopted(String file) {
            changes++;
            appendAdopt(cacheId, partition, file);
        }

        @Override
        public long changes() {
            return changes;
        }

        @Override
        public void checkWritable() {
            WriteAheadLog.this.checkWritable();
        }
    }
}
