package io.sluice.pagestore.internal.wal;

import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.protocol.internal.EntryBatch;
import io.sluice.pagestore.internal.BatchMode;
import io.sluice.pagestore.internal.wal.WalSettings.Durability;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The log on real files: what is appended replays as it was; torn tails and damaged records are told apart. */
@Timeout(60)
class WriteAheadLogTest {

    @TempDir
    Path dir;

    /** What a replay saw, as strings. */
    private static final class Recorder implements WalReader.Handler {
        final List<String> seen = new ArrayList<>();

        @Override
        public void types(byte[] metadata) {
            seen.add("types " + metadata.length);
        }

        @Override
        public void cache(int cacheId, int partitions, String name) {
            seen.add("cache " + cacheId + " " + partitions + " " + name);
        }

        @Override
        public void store(int cacheId, byte[] attachment) {
            seen.add("store " + cacheId + " " + new String(attachment, java.nio.charset.StandardCharsets.UTF_8));
        }

        @Override
        public void options(int cacheId, byte[] options) {
            seen.add("options " + cacheId + " " + java.util.HexFormat.of().formatHex(options));
        }

        @Override
        public void batch(int cacheId, int partition, BatchMode mode, boolean partial, boolean skipStore,
                          EntryBatch entries) {
            StringBuilder s = new StringBuilder("batch " + cacheId + "/" + partition + " " + mode + (partial ? " partial" : "")
                    + (skipStore ? " skipStore" : ""));
            for (int i = 0; i < entries.size(); i++) {
                s.append(' ').append(new String(entries.data(), entries.keyOffset(i), entries.keyLength(i)));
                s.append('=').append(entries.isRemoval(i) ? "-" : new String(entries.data(), entries.valueOffset(i),
                        entries.valueLength(i)));
            }
            seen.add(s.toString());
        }

        @Override
        public void drop(int cacheId) {
            seen.add("drop " + cacheId);
        }

        @Override
        public void adopt(int cacheId, int partition, String file) {
            seen.add("adopt " + cacheId + "/" + partition + " '" + file + "'");
        }
    }

    /** The log's settings in the test directory, with the node's default flush interval and segment size. */
    private WalSettings settings(Durability durability) {
        return new WalSettings(dir, durability, Duration.ofSeconds(1), 64L << 20);
    }

    private WriteAheadLog open(Durability mode, Recorder recorder) {
        WriteAheadLog wal = new WriteAheadLog(settings(mode), () -> 1, () -> new byte[]{7, 7});
        wal.recover(recorder);
        return wal;
    }

    private static EntryBatch batch(String... kv) {
        GrowableBuffer out = new GrowableBuffer(64);
        for (int i = 0; i < kv.length; i += 2) {
            EntryBatch.append(out, kv[i].getBytes(), kv[i + 1] == null ? null : kv[i + 1].getBytes());
        }
        return new EntryBatch(out.array(), out.position(), kv.length / 2);
    }

    private Path onlySegment() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> segments = files.filter(f -> f.getFileName().toString().startsWith("wal-")).sorted().toList();
            return segments.get(segments.size() - 1);
        }
    }

    private void writeSample() {
        try (WriteAheadLog wal = open(Durability.FSYNC, new Recorder())) {
            wal.appendCache(0, 8, "orders");
            wal.appendStore(0, "attachment".getBytes());
            wal.appendBatch(0, 3, BatchMode.INSERT_IF_ABSENT, false, false, batch("a", "1", "b", "2"));
            wal.appendEntry(0, 4, BatchMode.UPSERT, false, "k".getBytes(), 0, 1, "v".getBytes(), 0, 1);
            wal.appendEntry(0, 3, BatchMode.UPSERT, false, "a".getBytes(), 0, 1, null, 0, 0);
            wal.awaitDurable(wal.end());
        }
    }

    @Test
    void appendedRecordsReplayInOrderWithTheirBytes() {
        writeSample();
        Recorder replay = new Recorder();
        WalReader.Summary summary = new WalReader(dir).replay(replay);

        assertThat(replay.seen).containsExactly("types 2", "cache 0 8 orders", "store 0 attachment",
                "batch 0/3 INSERT_IF_ABSENT a=1 b=2", "batch 0/4 UPSERT k=v", "batch 0/3 UPSERT a=-");
        assertThat(summary.dropped()).isNull();
    }

    @Test
    void adoptRecordsReplayWithTheFileTheyNameBetweenThePartitionsBatches() {
        try (WriteAheadLog wal = open(Durability.FSYNC, new Recorder())) {
            wal.appendCache(0, 8, "orders");
            wal.appendBatch(0, 3, BatchMode.UPSERT, false, false, batch("a", "1"));
            wal.appendAdopt(0, 3, "adopt-c0-p3-x.dat");
            wal.appendBatch(0, 3, BatchMode.UPSERT, false, false, batch("b", "2"));
            wal.appendAdopt(0, 5, "");
            wal.awaitDurable(wal.end());
        }
        Recorder replay = new Recorder();
        new WalReader(dir).replay(replay);
        assertThat(replay.seen).containsExactly("types 2", "cache 0 8 orders", "batch 0/3 UPSERT a=1",
                "adopt 0/3 'adopt-c0-p3-x.dat'", "batch 0/3 UPSERT b=2", "adopt 0/5 ''");
    }

    @Test
    void anOptionsRecordReplaysWithItsBytesAfterItsCache() {
        try (WriteAheadLog wal = open(Durability.FSYNC, new Recorder())) {
            wal.appendCache(0, 8, "orders");
            wal.appendOptions(0, new byte[]{1, 0, 1, 0, 0, 0});
            wal.appendBatch(0, 3, BatchMode.INSERT_IF_ABSENT, false, false, batch("a", "1"));
            wal.awaitDurable(wal.end());
        }
        Recorder replay = new Recorder();
        new WalReader(dir).replay(replay);
        assertThat(replay.seen).containsExactly("types 2", "cache 0 8 orders", "options 0 010001000000",
                "batch 0/3 INSERT_IF_ABSENT a=1");
    }

    @Test
    void writesOfASkipStoreBatchAreMarkedSo() {
        try (WriteAheadLog wal = open(Durability.FSYNC, new Recorder())) {
            wal.appendCache(0, 8, "orders");
            wal.journal(0, 1).batch(batch("a", "1"), BatchMode.UPSERT, true, true);
            wal.journal(0, 2).entry("k".getBytes(), 0, 1, "v".getBytes(), 0, 1, BatchMode.UPSERT, true);
            wal.journal(0, 1).batch(batch("b", "2"), BatchMode.UPSERT, false, false);
            wal.awaitDurable(wal.end());
        }
        Recorder replay = new Recorder();
        new WalReader(dir).replay(replay);
        assertThat(replay.seen).containsExactly("types 2", "cache 0 8 orders", "batch 0/1 UPSERT partial skipStore a=1",
                "batch 0/2 UPSERT skipStore k=v", "batch 0/1 UPSERT b=2");
    }

    @Test
    void aTornTailIsDroppedReportedAndCutOff() throws IOException {
        writeSample();
        Path segment = onlySegment();
        long size = Files.size(segment);
        try (RandomAccessFile f = new RandomAccessFile(segment.toFile(), "rw")) {
            f.setLength(size - 3); // the last record's last 3 bytes never reached the disk
        }
        Recorder replay = new Recorder();
        WalReader.Summary summary = new WalReader(dir).replay(replay);

        assertThat(replay.seen).containsExactly("types 2", "cache 0 8 orders", "store 0 attachment",
                "batch 0/3 INSERT_IF_ABSENT a=1 b=2", "batch 0/4 UPSERT k=v");
        assertThat(summary.dropped()).contains(segment.getFileName().toString()).contains("dropped");
        long lastRecord = 12 + 15 + 8 + 1; // header, batch fields, entry header, key "a"
        assertThat(summary.droppedBytes()).isEqualTo(lastRecord - 3);
        assertThat(Files.size(segment)).isEqualTo(size - lastRecord);
        // The next start appends after the cut, and a replay sees a clean log.
        try (WriteAheadLog wal = open(Durability.FSYNC, new Recorder())) {
            wal.appendEntry(0, 5, BatchMode.UPSERT, false, "z".getBytes(), 0, 1, "9".getBytes(), 0, 1);
            wal.awaitDurable(wal.end());
        }
        Recorder again = new Recorder();
        assertThat(new WalReader(dir).replay(again).dropped()).isNull();
        assertThat(again.seen).endsWith("batch 0/4 UPSERT k=v", "types 2", "batch 0/5 UPSERT z=9");
    }

    @Test
    void zerosAtTheEndAreATornTail() throws IOException {
        writeSample();
        Path segment = onlySegment();
        try (RandomAccessFile f = new RandomAccessFile(segment.toFile(), "rw")) {
            f.setLength(Files.size(segment) + 4096); // a file system extended the file before the data came
        }
        Recorder replay = new Recorder();
        WalReader.Summary summary = new WalReader(dir).replay(replay);
        assertThat(replay.seen).hasSize(6);
        assertThat(summary.dropped()).contains("zeros");
    }

    @Test
    void aFlippedByteInARecordBeforeTheTailStopsRecoveryNamingFileAndPosition() throws IOException {
        writeSample();
        Path segment = onlySegment();
        // segment header, TYPES, CACHE, STORE: the first BATCH
        long recordAt = 32 + (12 + 1 + 2) + (12 + 9 + "orders".length()) + (12 + 5 + "attachment".length());
        try (RandomAccessFile f = new RandomAccessFile(segment.toFile(), "rw")) {
            f.seek(recordAt + 30); // inside its entries
            int b = f.read();
            f.seek(recordAt + 30);
            f.write(b ^ 0x10);
        }
        assertThatThrownBy(() -> new WalReader(dir).replay(new Recorder()))
                .isInstanceOf(WalCorruptedException.class)
                .hasMessageContaining(segment.toString() + " position " + recordAt)
                .hasMessageContaining("fails its CRC32C check")
                .hasMessageContaining("not a torn tail");
    }

    @Test
    void aFlippedByteInARecordLengthIsCaughtByItsCheck() throws IOException {
        writeSample();
        Path segment = onlySegment();
        long recordAt = 32 + (12 + 1 + 2) + (12 + 9 + "orders".length());
        try (RandomAccessFile f = new RandomAccessFile(segment.toFile(), "rw")) {
            f.seek(recordAt + 2);
            f.write(0x7F); // the length now claims far more bytes than the file has
        }
        assertThatThrownBy(() -> new WalReader(dir).replay(new Recorder()))
                .isInstanceOf(WalCorruptedException.class)
                .hasMessageContaining("position " + recordAt)
                .hasMessageContaining("damaged record header");
    }

    @Test
    void aDamagedRecordInAnOlderSegmentIsAnErrorEvenAtItsEnd() throws IOException {
        writeSample();
        Path first = onlySegment();
        try (WriteAheadLog wal = open(Durability.FSYNC, new Recorder())) { // a second segment
            wal.appendEntry(0, 5, BatchMode.UPSERT, false, "z".getBytes(), 0, 1, "9".getBytes(), 0, 1);
            wal.awaitDurable(wal.end());
        }
        try (RandomAccessFile f = new RandomAccessFile(first.toFile(), "rw")) {
            f.setLength(Files.size(first) - 1);
        }
        assertThatThrownBy(() -> new WalReader(dir).replay(new Recorder()))
                .isInstanceOf(WalCorruptedException.class)
                .hasMessageContaining(first.toString())
                .hasMessageContaining("not the last one");
    }

    @Test
    void concurrentAppendersShareFsyncs() throws Exception {
        int threads = 16;
        int perThread = 200;
        try (WriteAheadLog wal = open(Durability.FSYNC, new Recorder())) {
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < perThread; i++) {
                        byte[] key = ("t" + thread + "-" + i).getBytes();
                        wal.appendEntry(0, thread, BatchMode.UPSERT, false, key, 0, key.length, key, 0, key.length);
                        wal.awaitDurable(wal.end()); // each write waits for its own durability, as Cache.put does
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(50, TimeUnit.SECONDS);
            }
            pool.shutdown();
            // Every write waited for an fsync, yet they shared them: fewer fsyncs than writes by far.
            assertThat(wal.syncs()).isLessThan(threads * perThread / 2);
        }
        Recorder replay = new Recorder();
        new WalReader(dir).replay(replay);
        assertThat(replay.seen).hasSize(1 + threads * perThread);
    }

    @Test
    void logOnlyAcknowledgesAfterTheWriteAndBackgroundAtOnce() throws Exception {
        // Every segment write blocks (once armed) until the test lets it go: what returns meanwhile did not wait.
        CountDownLatch releaseWrites = new CountDownLatch(1);
        boolean[] armed = {false};
        WriteAheadLog.SegmentOpener blocking = file -> new FailingChannel(
                FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), () -> {
            if (armed[0]) {
                releaseWrites.await();
            }
        });
        ExecutorService waiter = Executors.newSingleThreadExecutor();
        try {
            WriteAheadLog logOnly = new WriteAheadLog(settings(Durability.LOG_ONLY),
                    () -> 1, () -> new byte[]{7, 7}, blocking);
            try {
                logOnly.recover(new Recorder());
                armed[0] = true;
                logOnly.appendEntry(0, 1, BatchMode.UPSERT, false, "k".getBytes(), 0, 1, "v".getBytes(), 0, 1);
                long end = logOnly.end();
                Future<?> waited = waiter.submit(() -> logOnly.awaitDurable(end));
                Awaitility.await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
                        .until(() -> !waited.isDone()); // LOG_ONLY waits for the write
                releaseWrites.countDown();
                waited.get(10, TimeUnit.SECONDS);
                assertThat(logOnly.writes()).isGreaterThanOrEqualTo(1);
                assertThat(logOnly.syncs()).isZero();
            } finally {
                releaseWrites.countDown();
                logOnly.close();
            }
            CountDownLatch releaseBackground = new CountDownLatch(1);
            boolean[] backgroundArmed = {false};
            WriteAheadLog background = new WriteAheadLog(settings(Durability.BACKGROUND),
                    () -> 1, () -> new byte[]{7, 7}, file -> new FailingChannel(
                            FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), () -> {
                if (backgroundArmed[0]) {
                    releaseBackground.await();
                }
            }));
            try {
                background.recover(new Recorder());
                backgroundArmed[0] = true;
                long writesBefore = background.writes();
                background.appendEntry(0, 1, BatchMode.UPSERT, false, "k".getBytes(), 0, 1, "w".getBytes(), 0, 1);
                long end = background.end();
                // BACKGROUND returns at once: while no write can complete
                waiter.submit(() -> background.awaitDurable(end)).get(10, TimeUnit.SECONDS);
                assertThat(background.writes()).as("nothing was written yet").isEqualTo(writesBefore);
            } finally {
                releaseBackground.countDown(); // before close, which writes and syncs everything
                background.close();
            }
        } finally {
            waiter.shutdownNow();
        }
        Recorder replay = new Recorder();
        new WalReader(dir).replay(replay);
        assertThat(replay.seen).containsExactly("types 2", "batch 0/1 UPSERT k=v", "types 2", "batch 0/1 UPSERT k=w");
    }

    @Test
    void theLogStartsANewSegmentAtACheckpointsMarkSoTheOldOneCanBeDeleted() throws IOException {
        long mark;
        long idleMark;
        try (WriteAheadLog wal = open(Durability.FSYNC, new Recorder())) {
            wal.appendEntry(0, 1, BatchMode.UPSERT, false, "a".getBytes(), 0, 1, "1".getBytes(), 0, 1);
            wal.appendEntry(0, 1, BatchMode.UPSERT, false, "b".getBytes(), 0, 1, "2".getBytes(), 0, 1);
            mark = wal.markForCheckpoint();
            wal.appendEntry(0, 1, BatchMode.UPSERT, false, "c".getBytes(), 0, 1, "3".getBytes(), 0, 1);
            wal.awaitDurable(wal.end());
            assertThat(WalReader.segmentStarts(dir)).containsEntry(2L, mark).hasSize(2);
            assertThat(wal.deleteSegmentsBefore(mark)).isEqualTo(1);
            Recorder fromMark = new Recorder();
            new WalReader(dir).replay(fromMark, mark);
            assertThat(fromMark.seen).containsExactly("batch 0/1 UPSERT c=3");

            // an idle log rolls at once: a clean stop's checkpoint leaves no checkpointed log behind
            idleMark = wal.markForCheckpoint();
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> WalReader.segmentStarts(dir).size() == 2);
            assertThat(WalReader.segmentStarts(dir)).containsEntry(3L, idleMark);
            assertThat(wal.deleteSegmentsBefore(idleMark)).isEqualTo(1);
            wal.appendEntry(0, 1, BatchMode.UPSERT, false, "d".getBytes(), 0, 1, "4".getBytes(), 0, 1);
            wal.awaitDurable(wal.end());
        }
        Recorder replay = new Recorder();
        new WalReader(dir).replay(replay, idleMark);
        assertThat(replay.seen).containsExactly("batch 0/1 UPSERT d=4");
    }

    /**
     * Segments written in whole blocks (direct I/O where the file system allows it: {@link DirectSegmentOpener}):
     * records of every size, across many group writes and segment rolls, each acknowledged one in what a kill -9
     * would leave (a copy of the files while the log is open) and all of them after a clean close, with no torn
     * tail then. A copy's last segment may end in the zeros that padded its last block: a torn tail, cut off.
     */
    @Test
    void recordsOfEverySizeSurviveAcrossBlockPaddedWritesAndRolls() throws IOException {
        Path log = dir.resolve("log");
        Path crash = Files.createDirectories(dir.resolve("crash"));
        java.util.Random random = new java.util.Random(29);
        List<String> expected = new ArrayList<>();
        WalSettings small = new WalSettings(log, Durability.LOG_ONLY, Duration.ofSeconds(1), 64 << 10);
        try (WriteAheadLog wal = new WriteAheadLog(small, () -> 1, () -> new byte[]{7, 7})) {
            wal.recover(new Recorder());
            expected.add("types 2");
            for (int i = 0; i < 600; i++) {
                int size = i % 50 == 0 ? 9000 + random.nextInt(9000) : random.nextInt(300);
                String key = "k" + i;
                String value = "v".repeat(size);
                wal.appendEntry(0, i % 7, BatchMode.UPSERT, false, key.getBytes(), 0, key.length(), value.getBytes(),
                        0, value.length());
                expected.add("batch 0/" + (i % 7) + " UPSERT " + key + "=" + value);
                if (random.nextInt(4) == 0) {
                    wal.awaitDurable(wal.end());
                }
            }
            wal.awaitDurable(wal.end());
            try (Stream<Path> files = Files.list(log)) {
                for (Path f : files.filter(f -> f.getFileName().toString().startsWith("wal-")).toList()) {
                    Files.copy(f, crash.resolve(f.getFileName()));
                }
            }
        }
        assertThat(WalReader.segmentStarts(log)).hasSizeGreaterThan(3);
        Recorder afterCrash = new Recorder();
        WalReader.Summary crashed = new WalReader(crash).replay(afterCrash);
        assertThat(afterCrash.seen).containsExactlyElementsOf(expected);
        if (crashed.dropped() != null) {
            assertThat(crashed.dropped()).contains("zeros");
        }
        Recorder afterClose = new Recorder();
        WalReader.Summary closed = new WalReader(log).replay(afterClose);
        assertThat(afterClose.seen).containsExactlyElementsOf(expected);
        assertThat(closed.dropped()).isNull();
    }

    /**
     * A file system that refuses direct I/O after it has created the file (as some do: the flag is checked after the
     * create): the opener falls back to buffered writes over the same file, emptied, and opens every later segment
     * buffered without trying again; what such a log acknowledges replays whole.
     */
    @Test
    void aLogWhoseFileSystemRefusesDirectIoWritesBufferedAndReplaysEverything() throws IOException {
        Path log = dir.resolve("log");
        List<Path> tried = new ArrayList<>();
        DirectSegmentOpener opener = new DirectSegmentOpener(file -> {
            tried.add(file);
            byte[] leftOver = new byte[256 << 10]; // whatever the refused open left there must not be read as log
            java.util.Arrays.fill(leftOver, (byte) 0x5A);
            Files.write(file, leftOver, StandardOpenOption.CREATE_NEW);
            throw new IOException("Invalid argument (O_DIRECT)");
        });
        List<String> expected = new ArrayList<>();
        WalSettings small = new WalSettings(log, Durability.LOG_ONLY, Duration.ofSeconds(1), 64 << 10);
        try (WriteAheadLog wal = new WriteAheadLog(small, () -> 1, () -> new byte[]{7, 7}, opener)) {
            wal.recover(new Recorder());
            expected.add("types 2");
            for (int i = 0; i < 300; i++) {
                String key = "k" + i;
                String value = "v".repeat(i % 20 == 0 ? 12_000 : i);
                wal.appendEntry(0, i % 5, BatchMode.UPSERT, false, key.getBytes(), 0, key.length(), value.getBytes(),
                        0, value.length());
                expected.add("batch 0/" + (i % 5) + " UPSERT " + key + "=" + value);
                if (i % 10 == 9) {
                    wal.awaitDurable(wal.end()); // one group write per ten records: the log rolls between them
                }
            }
            wal.awaitDurable(wal.end());
            assertThat(opener.directAlignment()).isZero();
        }
        assertThat(tried).as("direct I/O tried once, for the first segment only").hasSize(1);
        assertThat(WalReader.segmentStarts(log)).hasSizeGreaterThan(2);
        Recorder replay = new Recorder();
        WalReader.Summary summary = new WalReader(log).replay(replay);
        assertThat(replay.seen).containsExactlyElementsOf(expected);
        assertThat(summary.dropped()).isNull();
        assertThatThrownBy(() -> opener.open(tried.get(0)))
                .as("a segment file is never opened twice for writing").isInstanceOf(java.nio.file.FileAlreadyExistsException.class);
    }

    @Test
    void aWaiterTheClosedLogCannotServeIsToldSoAtOnce() {
        WriteAheadLog wal = open(Durability.FSYNC, new Recorder());
        wal.close();
        AtomicReference<Throwable> outcome = new AtomicReference<>();
        wal.whenDurable(wal.end() + 1, outcome::set);
        assertThat(outcome.get()).isInstanceOf(WalFailedException.class).hasMessageContaining("closed");
        assertThatThrownBy(() -> wal.appendEntry(0, 1, BatchMode.UPSERT, false, "k".getBytes(), 0, 1, null, 0, 0))
                .isInstanceOf(WalFailedException.class).hasMessageContaining("closed");
    }

    @Test
    void aSecondLogOnTheSameDirectoryIsRefused() {
        try (WriteAheadLog wal = open(Durability.FSYNC, new Recorder())) {
            assertThatThrownBy(() -> new WriteAheadLog(settings(Durability.LOG_ONLY), () -> 1, () -> new byte[0]))
                    .isInstanceOf(WalFailedException.class)
                    .hasMessageContaining("in use by another node");
        }
    }

    /**
     * The DiskErrorIT hang (a request unanswered for 60 s after EFBIG): an appender that passed its
     * writability check just before the writer failed, then found the filling buffer full, waited for room
     * that the dead writer never made, holding its partition's write lock, so readers of that partition hung too.
     * Here the writer's write blocks until the test lets it fail, the buffer is filled meanwhile, and one
     * appender is held (in the types-version lookup, after its check) until the log has failed.
     */
    @Test
    void anAppenderThatMissedTheFailureDoesNotWaitForRoomForever() throws Exception {
        CountDownLatch writeEntered = new CountDownLatch(1);
        CountDownLatch letWriteFail = new CountDownLatch(1);
        AtomicReference<Thread> heldAppender = new AtomicReference<>();
        CountDownLatch appenderHeld = new CountDownLatch(1);
        CountDownLatch releaseAppender = new CountDownLatch(1);
        boolean[] armed = {false};
        WriteAheadLog.SegmentOpener failing = file -> new FailingChannel(
                FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), () -> {
            if (!armed[0]) {
                return;
            }
            writeEntered.countDown();
            letWriteFail.await();
            throw new IOException("File too large");
        });
        java.util.function.LongSupplier types = () -> {
            if (Thread.currentThread() == heldAppender.get()) {
                appenderHeld.countDown();
                try {
                    releaseAppender.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return 1;
        };
        WriteAheadLog wal = new WriteAheadLog(settings(Durability.LOG_ONLY), types,
                () -> new byte[]{7}, failing);
        wal.recover(new Recorder());
        armed[0] = true;
        byte[] big = new byte[1 << 20];
        try {
            wal.appendEntry(0, 1, BatchMode.UPSERT, false, "a".getBytes(), 0, 1, big, 0, big.length);
            assertThat(writeEntered.await(10, TimeUnit.SECONDS)).isTrue(); // the writer holds that buffer
            for (int i = 0; i < 3; i++) { // three 1 MiB records: the 4 MiB filling buffer has no room for a fourth
                wal.appendEntry(0, 1, BatchMode.UPSERT, false, "b".getBytes(), 0, 1, big, 0, big.length);
            }
            AtomicReference<Throwable> outcome = new AtomicReference<>();
            Thread appender = new Thread(() -> {
                try {
                    wal.appendEntry(0, 2, BatchMode.UPSERT, false, "c".getBytes(), 0, 1, big, 0, big.length);
                    outcome.set(new AssertionError("appended to a failed log"));
                } catch (Throwable t) {
                    outcome.set(t);
                }
            }, "held-appender");
            heldAppender.set(appender);
            appender.start();
            assertThat(appenderHeld.await(10, TimeUnit.SECONDS)).isTrue(); // past its check, before the lock
            letWriteFail.countDown();
            Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThatThrownBy(wal::checkWritable).hasMessageContaining("File too large"));
            releaseAppender.countDown();
            appender.join(10_000);
            assertThat(appender.isAlive()).as("the appender still waits for room in a failed log").isFalse();
            assertThat(outcome.get()).isInstanceOf(WalFailedException.class).hasMessageContaining("File too large");
        } finally {
            letWriteFail.countDown();
            releaseAppender.countDown();
            wal.close();
        }
    }

    /** A segment channel whose writes first run a hook (which may block or throw); everything else delegates. */
    private static final class FailingChannel extends FileChannel {
        interface Hook {
            void run() throws IOException, InterruptedException;
        }

        private final FileChannel delegate;
        private final Hook beforeWrite;

        FailingChannel(FileChannel delegate, Hook beforeWrite) {
            this.delegate = delegate;
            this.beforeWrite = beforeWrite;
        }

        private void hook() throws IOException {
            try {
                beforeWrite.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            hook();
            return delegate.write(src);
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
            hook();
            return delegate.write(srcs, offset, length);
        }

        @Override
        public int write(ByteBuffer src, long position) throws IOException {
            hook();
            return delegate.write(src, position);
        }

        @Override
        public int read(ByteBuffer dst) throws IOException {
            return delegate.read(dst);
        }

        @Override
        public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
            return delegate.read(dsts, offset, length);
        }

        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
            return delegate.read(dst, position);
        }

        @Override
        public long position() throws IOException {
            return delegate.position();
        }

        @Override
        public FileChannel position(long newPosition) throws IOException {
            delegate.position(newPosition);
            return this;
        }

        @Override
        public long size() throws IOException {
            return delegate.size();
        }

        @Override
        public FileChannel truncate(long size) throws IOException {
            delegate.truncate(size);
            return this;
        }

        @Override
        public void force(boolean metaData) throws IOException {
            delegate.force(metaData);
        }

        @Override
        public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
            return delegate.transferTo(position, count, target);
        }

        @Override
        public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
            return delegate.transferFrom(src, position, count);
        }

        @Override
        public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
            return delegate.map(mode, position, size);
        }

        @Override
        public FileLock lock(long position, long size, boolean shared) throws IOException {
            return delegate.lock(position, size, shared);
        }

        @Override
        public FileLock tryLock(long position, long size, boolean shared) throws IOException {
            return delegate.tryLock(position, size, shared);
        }

        @Override
        protected void implCloseChannel() throws IOException {
            delegate.close();
        }
    }
}
