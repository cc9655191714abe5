package io.sluice.store.internal.wal;

import io.sluice.node.PersistenceConfig;
import io.sluice.node.WalMode;
import io.sluice.protocol.internal.EntryBatch;
import io.sluice.store.internal.BatchMode;
import io.sluice.store.internal.SkipStoreWrites;
import io.sluice.store.internal.StoreJournal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.zip.CRC32C;

/**
 * The write-ahead log of a persistent data region: one record per store write (a whole batch is one
 * record), appended to a segment file by one writer thread, with <b>group commit</b>.
 *
 * <p>How a write becomes durable: the thread that applied it (holding the partition's write lock, so
 * a partition's records are in the order its writes were applied) computes the record's CRC32C and
 * copies header and bytes into the log's <i>filling</i> buffer under the log's monitor — a memory copy,
 * no I/O. The writer thread ({@code sluice-wal-writer}) swaps the filling buffer with its spare, writes
 * the whole buffer with one {@code write} and, in {@link WalMode#FSYNC}, one {@code fsync}; while it does,
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
 * <p>Life cycle: {@link #WriteAheadLog} locks the directory; {@link #recover} replays the existing
 * segments (appends before it ends are ignored: they are the replay's own writes, already logged) and
 * then opens a new segment and starts the writer; {@link #close} writes and fsyncs everything.
 */
public final class WriteAheadLog implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(WriteAheadLog.class);
    private static final int BUFFER_SIZE = 4 << 20;
    private static final ThreadLocal<CRC32C> CRCS = ThreadLocal.withInitial(CRC32C::new);
    private static final ThreadLocal<ByteBuffer> FIXED = ThreadLocal.withInitial(() -> ByteBuffer.allocate(64));

    private final Path directory;
    private final WalMode mode;
    private final long flushIntervalNanos;
    private final long segmentSize;
    private final LongSupplier typesVersion;
    private final Supplier<byte[]> typesExport;
    private final FileChannel lockChannel;
    private final FileLock dirLock;
    private final SegmentOpener segmentOpener;

    /** Guards the buffers, positions and waiters; held only for memory copies, never for I/O. */
    private final ReentrantLock lock = new ReentrantLock();
    /** Signalled when the writer may have work: data, a waiter, closing. */
    private final Condition writerWork = lock.newCondition();
    /** Signalled when the writer swapped buffers (room for appenders) or the log failed. */
    private final Condition room = lock.newCondition();
    // ---- guarded by lock ----
    private ByteBuffer filling = ByteBuffer.allocateDirect(BUFFER_SIZE);
    private ByteBuffer spare = ByteBuffer.allocateDirect(BUFFER_SIZE);
    private long appended;
    private long loggedTypesVersion = -1;
    private List<Waiter> waiters = new ArrayList<>();
    private boolean writerWaiting;
    private boolean appenderWaiting;
    private boolean closing;
    // ---- written by the writer ----
    private volatile long written;
    private volatile long synced;
    private volatile WalFailedException failure;
    private volatile boolean recovering = true;
    /** The writer thread has ended (closed or failed): nobody will complete a new waiter. */
    private boolean writerEnded;
    private volatile long writes;
    private volatile long syncs;

    private FileChannel segment;
    private long segmentNumber;
    private long segmentBytes;
    private Thread writer;
    /** Log position of each segment's first record, by segment number (segments not deleted yet). */
    private final java.util.concurrent.ConcurrentSkipListMap<Long, Long> segmentStarts =
            new java.util.concurrent.ConcurrentSkipListMap<>();
    /** The writer must write and fsync up to here whatever the mode (a checkpoint waits for it). */
    private long forceRequested; // guarded by lock
    /**
     * A checkpoint's mark: the writer starts a new segment exactly at this log position (-1: none asked), so that
     * once the checkpoint commits, the whole segment before it can be deleted. Guarded by lock.
     */
    private long rollAt = -1;
    /** Signalled when {@link #synced} advanced or the log failed. */
    private final Condition syncedAdvanced = lock.newCondition();

    /**
     * Opens the log's directory (creating it) and takes its lock file, so that one node at a time uses it.
     *
     * @param typesVersion the node's binary type registry version; a TYPES record is logged whenever it changed
     * @param typesExport  the registry's bytes for that record
     * @throws WalFailedException if the directory cannot be created or another process holds it
     */
    public WriteAheadLog(PersistenceConfig config, LongSupplier typesVersion, Supplier<byte[]> typesExport) {
        this(config, typesVersion, typesExport, file -> FileChannel.open(file, StandardOpenOption.CREATE_NEW,
                StandardOpenOption.WRITE));
    }

    /** Opens a new segment file for writing (a test wraps the channel to inject I/O errors). */
    @FunctionalInterface
    interface SegmentOpener {
        FileChannel open(Path file) throws IOException;
    }

    WriteAheadLog(PersistenceConfig config, LongSupplier typesVersion, Supplier<byte[]> typesExport,
                  SegmentOpener segmentOpener) {
        this.segmentOpener = segmentOpener;
        if (!config.enabled()) {
            throw new IllegalArgumentException("persistence is disabled: no write-ahead log");
        }
        this.directory = config.directory();
        this.mode = config.walMode();
        this.flushIntervalNanos = config.walFlushInterval().toNanos();
        this.segmentSize = config.walSegmentSize();
        this.typesVersion = typesVersion;
        this.typesExport = typesExport;
        try {
            Files.createDirectories(directory);
            lockChannel = FileChannel.open(directory.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock l;
            try {
                l = lockChannel.tryLock();
            } catch (OverlappingFileLockException e) {
                l = null;
            }
            if (l == null) {
                lockChannel.close();
                throw new WalFailedException("the persistence directory " + directory + " is in use by another node"
                        + " (its lock file is held); one node per directory", null);
            }
            dirLock = l;
        } catch (IOException e) {
            throw new WalFailedException("cannot open the persistence directory " + directory + ": " + e, e);
        }
    }

    /** The directory holding the segments. */
    public Path directory() {
        return directory;
    }

    public WalMode mode() {
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
        segmentStarts.putAll(WalReader.segmentStarts(directory));
        lock.lock();
        try {
            appended = summary.endPosition();
        } finally {
            lock.unlock();
        }
        written = summary.endPosition();
        synced = summary.endPosition();
        try {
            openSegment(summary.lastSegment() + 1, summary.endPosition());
        } catch (IOException e) {
            throw new WalFailedException("cannot create a log segment in " + directory + ": " + e, e);
        }
        recovering = false;
        writer = new Thread(this::writeLoop, "sluice-wal-writer");
        writer.setDaemon(true);
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
        append(fixed, new byte[0], 0, 0, null, 0, 0);
    }

    /** Logs that a cache was created (its id is what BATCH records name). */
    public void appendCache(int cacheId, int partitions, String name) {
        if (recovering) {
            return;
        }
        byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
        ByteBuffer fixed = FIXED.get().clear();
        fixed.put(WalFormat.CACHE).putInt(cacheId).putInt(partitions);
        append(fixed, utf8, 0, utf8.length, null, 0, 0);
    }

    /** Logs that a cache was put in front of a store (the attachment in the CacheStoreWire layout). */
    public void appendStore(int cacheId, byte[] attachment) {
        if (recovering) {
            return;
        }
        ByteBuffer fixed = FIXED.get().clear();
        fixed.put(WalFormat.STORE).putInt(cacheId);
        append(fixed, attachment, 0, attachment.length, null, 0, 0);
    }

    /**
     * Logs one store write of a batch: the batch's entry bytes as they are.
     *
     * @throws WalFailedException if the log has failed
     */
    public void appendBatch(int cacheId, int partition, BatchMode mode, boolean partial, EntryBatch batch) {
        if (recovering || batch.size() == 0) {
            return;
        }
        ByteBuffer fixed = FIXED.get().clear();
        byte flags = (byte) ((partial ? WalFormat.FLAG_PARTIAL : 0) | skipStoreFlag());
        fixed.put(WalFormat.BATCH).put(modeByte(mode)).put(flags).putInt(cacheId).putInt(partition).putInt(batch.size());
        append(fixed, batch.data(), batch.base(), batch.length(), null, 0, 0);
    }

    /**
     * Logs a single-entry write as a BATCH record of one entry ({@code value == null}: a removal).
     *
     * @throws WalFailedException if the log has failed
     */
    public void appendEntry(int cacheId, int partition, BatchMode mode, byte[] key, int keyOffset, int keyLength,
                            byte[] value, int valueOffset, int valueLength) {
        if (recovering) {
            return;
        }
        ByteBuffer fixed = FIXED.get().clear();
        fixed.put(WalFormat.BATCH).put(modeByte(mode)).put(skipStoreFlag()).putInt(cacheId).putInt(partition).putInt(1)
                .putInt(keyLength).putInt(value == null ? EntryBatch.REMOVAL : valueLength);
        if (value == null) {
            append(fixed, key, keyOffset, keyLength, null, 0, 0);
        } else {
            append(fixed, key, keyOffset, keyLength, value, valueOffset, valueLength);
        }
    }

    private static byte skipStoreFlag() {
        return SkipStoreWrites.active() ? WalFormat.FLAG_SKIP_STORE : 0;
    }

    private static byte modeByte(BatchMode mode) {
        return mode == BatchMode.INSERT_IF_ABSENT ? WalFormat.MODE_INSERT_IF_ABSENT : WalFormat.MODE_UPSERT;
    }

    /** Appends a record whose body is fixed's bytes [0, position), then a's range, then b's (if any). */
    private void append(ByteBuffer fixed, byte[] a, int aOffset, int aLength, byte[] b, int bOffset, int bLength) {
        checkWritable();
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
                throw new WalFailedException("the write-ahead log in " + directory + " is closed (the node is stopping)",
                        null);
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
            wakeWriterLocked();
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
            if (filling.position() == 0) {
                filling = ByteBuffer.allocateDirect(Math.max(bytes, BUFFER_SIZE));
                break;
            }
            // A failure may have been set after the caller's own check (between it and taking this lock): the
            // writer has stopped and nobody would ever signal room, so the caller (a stripe thread holding its
            // partition's write lock) must not wait. fail() sets the failure and signals under this lock.
            checkWritable();
            appenderWaiting = true;
            writerWork.signal();
            try {
                room.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new WalFailedException("interrupted while waiting for room in the log buffer", e);
            }
            checkWritable();
        }
        return filling;
    }

    private void wakeWriterLocked() {
        if (writerWaiting && (mode == WalMode.FSYNC || mode == WalMode.LOG_ONLY
                || filling.position() > filling.capacity() / 2)) {
            writerWork.signal();
        }
    }

    /** @throws WalFailedException if the log failed (its cause) or is closed */
    public void checkWritable() {
        WalFailedException f = failure;
        if (f != null) {
            throw new WalFailedException("the write-ahead log in " + directory + " failed earlier; no write is accepted"
                    + " until the node restarts: " + f.getMessage(), f.getCause());
        }
    }

    // ---- waiting ----

    /** Buffer writes the writer thread made (each holds every record appended while the previous one was written). */
    public long writes() {
        return writes;
    }

    /** Fsyncs the writer thread made for records (segment creation not counted). */
    public long syncs() {
        return syncs;
    }

    /**
     * A checkpoint's mark: the position after the last record appended so far, where the writer will start a
     * new segment (when it next writes, or when the log is synced to the mark with nothing after it), so that
     * the segment holding the records before the mark can be deleted once the checkpoint commits.
     */
    public long markForCheckpoint() {
        lock.lock();
        try {
            rollAt = appended;
            if (writerWaiting) {
                writerWork.signal();
            }
            return appended;
        } finally {
            lock.unlock();
        }
    }

    /** The position after the last record appended so far. */
    public long end() {
        lock.lock();
        try {
            return appended;
        } finally {
            lock.unlock();
        }
    }

    /** Whether a write at or before this position counts as done in this mode. */
    private boolean acknowledged(long position) {
        return switch (mode) {
            case FSYNC -> synced >= position;
            case LOG_ONLY -> written >= position;
            case BACKGROUND, NONE -> true;
        };
    }

    /**
     * Calls {@code done} once everything up to the position is durable per the mode — with null, or with
     * the log's failure. Runs it on this thread if it already is, else on the writer thread (so it must not block).
     */
    public void whenDurable(long position, Consumer<Throwable> done) {
        WalFailedException f = failure;
        if (f == null && acknowledged(position)) {
            done.accept(null);
            return;
        }
        lock.lock();
        try {
            f = failure;
            if (f == null && !acknowledged(position) && writerEnded) {
                f = new WalFailedException("the write-ahead log in " + directory + " is closed", null);
            }
            if (f == null && !acknowledged(position)) {
                waiters.add(new Waiter(position, done));
                if (writerWaiting) {
                    writerWork.signal();
                }
                return;
            }
        } finally {
            lock.unlock();
        }
        done.accept(f);
    }

    /**
     * Waits until everything up to the position is durable per the mode.
     *
     * @throws WalFailedException if the log failed before that
     */
    public void awaitDurable(long position) {
        if (failure == null && acknowledged(position)) {
            return;
        }
        CountDownLatch latch = new CountDownLatch(1);
        Throwable[] error = new Throwable[1];
        whenDurable(position, e -> {
            error[0] = e;
            latch.countDown();
        });
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (error[0] != null) {
            throw new WalFailedException("the write was applied in memory but the log could not make it durable: "
                    + error[0].getMessage(), error[0]);
        }
    }

    private record Waiter(long position, Consumer<Throwable> done) {
    }

    // ---- the writer thread ----

    private void writeLoop() {
        long nextForce = System.nanoTime() + flushIntervalNanos;
        while (true) {
            ByteBuffer batch;
            long end;
            boolean stop;
            boolean forcing;
            long roll;
            lock.lock();
            try {
                while (!closing && failure == null && !mustWriteLocked(nextForce)) {
                    writerWaiting = true;
                    try {
                        if (mode == WalMode.BACKGROUND) {
                            long wait = nextForce - System.nanoTime();
                            if (wait <= 0) { // nothing to force: the next interval starts now
                                nextForce = System.nanoTime() + flushIntervalNanos;
                                wait = flushIntervalNanos;
                            }
                            writerWork.awaitNanos(wait);
                        } else {
                            writerWork.await();
                        }
                    } catch (InterruptedException e) {
                        // close() interrupts only after setting closing
                    }
                    writerWaiting = false;
                }
                if (failure != null) {
                    break;
                }
                stop = closing;
                forcing = forceRequested > synced;
                roll = rollAt;
                batch = filling;
                filling = spare;
                spare = null;
                end = appended;
                appenderWaiting = false;
                room.signalAll();
            } finally {
                lock.unlock();
            }
            try {
                batch.flip();
                long start = written; // the log position of the batch's first byte
                boolean rollHere = roll >= start && roll <= end;
                if (batch.hasRemaining()) {
                    if (segmentBytes >= segmentSize) {
                        rollSegment(start, forcing);
                    }
                    if (rollHere) { // the mark is in this batch: its bytes before the mark end the segment
                        int limit = batch.limit();
                        batch.limit(batch.position() + (int) (roll - start));
                        while (batch.hasRemaining()) {
                            segmentBytes += segment.write(batch);
                        }
                        batch.limit(limit);
                    }
                    if (rollHere && segmentBytes > WalFormat.SEGMENT_HEADER) {
                        rollSegment(roll, true);
                    }
                    while (batch.hasRemaining()) {
                        segmentBytes += segment.write(batch);
                    }
                    writes++;
                } else if (rollHere && segmentBytes > WalFormat.SEGMENT_HEADER) {
                    rollSegment(roll, true); // synced to the mark with nothing after it: a clean stop's checkpoint
                }
                if (rollHere) {
                    lock.lock();
                    try {
                        if (rollAt == roll) {
                            rollAt = -1;
                        }
                        syncedAdvanced.signalAll();
                    } finally {
                        lock.unlock();
                    }
                }
                written = end;
                boolean force = mode == WalMode.FSYNC || stop || forcing
                        || (mode == WalMode.BACKGROUND && System.nanoTime() - nextForce >= 0);
                if (force && synced < end) {
                    segment.force(false);
                    syncs++;
                }
                if (force) {
                    synced = end;
                    nextForce = System.nanoTime() + flushIntervalNanos;
                    if (forcing) {
                        lock.lock();
                        try {
                            syncedAdvanced.signalAll();
                        } finally {
                            lock.unlock();
                        }
                    }
                }
            } catch (IOException | RuntimeException e) {
                fail(e);
                break;
            } finally {
                batch.clear();
                lock.lock();
                try {
                    if (spare == null) {
                        spare = batch;
                    }
                } finally {
                    lock.unlock();
                }
            }
            completeWaiters();
            if (stop) {
                lock.lock();
                try {
                    if (filling.position() == 0) {
                        break;
                    }
                } finally {
                    lock.unlock();
                }
            }
        }
        lock.lock();
        try {
            writerEnded = true;
        } finally {
            lock.unlock();
        }
        completeWaiters();
    }

    /** Whether the writer has something to do now. */
    private boolean mustWriteLocked(long nextForce) {
        boolean data = filling.position() > 0;
        if (forceRequested > synced || rollAt >= 0 && rollAt == appended && rollAt == written) {
            return true; // a checkpoint waits for the sync, or its mark is the idle log's end: roll there now
        }
        return switch (mode) {
            case FSYNC, LOG_ONLY -> data;
            case BACKGROUND -> appenderWaiting || filling.position() > filling.capacity() / 2
                    || System.nanoTime() - nextForce >= 0 && (data || synced < written);
            case NONE -> appenderWaiting || filling.position() > filling.capacity() / 2;
        };
    }

    private void completeWaiters() {
        List<Waiter> all;
        boolean ended;
        lock.lock();
        try {
            if (waiters.isEmpty()) {
                return;
            }
            all = waiters;
            waiters = new ArrayList<>();
            ended = writerEnded;
        } finally {
            lock.unlock();
        }
        WalFailedException f = failure;
        if (f == null && ended) { // a waiter the closed log never wrote for (it cannot happen through the node)
            f = new WalFailedException("the write-ahead log in " + directory + " is closed", null);
        }
        List<Waiter> later = null;
        for (Waiter w : all) {
            if (f == null && !acknowledged(w.position)) {
                if (later == null) {
                    later = new ArrayList<>();
                }
                later.add(w);
                continue;
            }
            try {
                w.done.accept(acknowledged(w.position) ? null : f);
            } catch (RuntimeException | Error e) {
                LOG.error("a completion callback of the write-ahead log threw", e);
            }
        }
        if (later != null) {
            lock.lock();
            try {
                waiters.addAll(later);
            } finally {
                lock.unlock();
            }
        }
    }

    private void fail(Exception e) {
        LOG.error("the write-ahead log in {} failed; writes to the persistent region now fail until a restart",
                directory, e);
        lock.lock();
        try {
            failure = new WalFailedException("writing the log segment " + segmentName() + " failed: " + e, e);
            room.signalAll();
            syncedAdvanced.signalAll();
            writerWork.signal();
        } finally {
            lock.unlock();
        }
        completeWaiters();
    }

    private String segmentName() {
        return directory.resolve(WalFormat.segmentName(segmentNumber)).toString();
    }

    /**
     * Writes and fsyncs the log up to {@code position} whatever the mode, and waits for it (a checkpoint's mark
     * must be on disk before the checkpoint counts). If {@code position} is the pending mark of
     * {@link #markForCheckpoint}, it also waits until the writer started the new segment there.
     *
     * @throws WalFailedException if the log failed or closed first
     */
    public void sync(long position) {
        lock.lock();
        try {
            // A checkpoint syncing to its mark also waits for the roll there (markForCheckpoint): the writer then
            // writes through what follows the mark too, so that the segment before it can be deleted at once.
            long target = rollAt == position ? Math.max(position, appended) : position;
            forceRequested = Math.max(forceRequested, target);
            writerWork.signal();
            while (synced < target || rollAt == position) {
                checkWritable();
                if (writerEnded) {
                    throw new WalFailedException("the write-ahead log in " + directory + " is closed", null);
                }
                syncedAdvanced.await(100, java.util.concurrent.TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new WalFailedException("interrupted while syncing the log", e);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Deletes the segments that hold only records before log position {@code position} (a completed
     * checkpoint's mark): a segment goes when the next one starts at or before it. The segment being
     * written is never deleted.
     *
     * @return the number of segments deleted
     */
    public int deleteSegmentsBefore(long position) {
        int deleted = 0;
        for (var e : segmentStarts.entrySet()) {
            Long next = segmentStarts.higherKey(e.getKey());
            if (next == null || segmentStarts.get(next) > position) {
                break;
            }
            Path file = directory.resolve(WalFormat.segmentName(e.getKey()));
            try {
                Files.deleteIfExists(file);
                segmentStarts.remove(e.getKey());
                deleted++;
            } catch (IOException ex) {
                LOG.warn("cannot delete the log segment {} (the checkpoint covers it): {}", file, ex.toString());
                break;
            }
        }
        return deleted;
    }

    /** Bytes of log segments on disk now. */
    public long diskBytes() {
        long total = 0;
        for (Long n : segmentStarts.keySet()) {
            try {
                total += Files.size(directory.resolve(WalFormat.segmentName(n)));
            } catch (IOException e) {
                // deleted meanwhile
            }
        }
        return total;
    }

    /** Closes the segment (fsynced unless in NONE and not forced) and starts the next one at {@code position}. */
    private void rollSegment(long position, boolean force) throws IOException {
        if (mode != WalMode.NONE || force) {
            segment.force(false);
        }
        segment.close();
        openSegment(segmentNumber + 1, position);
    }

    private void openSegment(long number, long firstPosition) throws IOException {
        Path file = directory.resolve(WalFormat.segmentName(number));
        FileChannel channel = segmentOpener.open(file);
        ByteBuffer header = ByteBuffer.allocate(WalFormat.SEGMENT_HEADER);
        WalFormat.putSegmentHeader(header, number, firstPosition);
        header.flip();
        while (header.hasRemaining()) {
            channel.write(header);
        }
        if (mode != WalMode.NONE) {
            channel.force(true);
            syncDirectory();
        }
        segment = channel;
        segmentStarts.put(number, firstPosition);
        segmentNumber = number;
        segmentBytes = WalFormat.SEGMENT_HEADER;
    }

    /** Makes a new file's directory entry durable (a no-op where the OS cannot open directories). */
    private void syncDirectory() {
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException e) {
            // Windows cannot open a directory; its file system orders metadata itself
        }
    }

    /**
     * Writes and fsyncs everything appended, completes every waiter, stops the writer and closes the
     * segment and the directory lock. Calling it again has no effect.
     */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closing) {
                return;
            }
            closing = true;
            writerWork.signal();
        } finally {
            lock.unlock();
        }
        if (writer != null) {
            try {
                writer.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            if (segment != null) {
                segment.close();
            }
        } catch (IOException e) {
            LOG.warn("closing the log segment {}: {}", segmentName(), e.toString());
        }
        try {
            dirLock.release();
            lockChannel.close();
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
        public void batch(EntryBatch batch, BatchMode mode, boolean partial) {
            changes++;
            appendBatch(cacheId, partition, mode, partial, batch);
        }

        @Override
        public void entry(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength,
                          BatchMode mode) {
            changes++;
            appendEntry(cacheId, partition, mode, key, keyOffset, keyLength, value, valueOffset, valueLength);
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
