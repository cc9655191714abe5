package io.sluice.pagestore.internal.wal;

import io.sluice.protocol.internal.EntryBatch;
import io.sluice.pagestore.internal.BatchMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Reads the segments of a log directory in order and hands each record to a {@link Handler} (layout in
 * {@link WalFormat}). Every record's length and CRC32C is checked before it is used:
 *
 * <ul>
 *   <li>A damaged or incomplete record at the very end of the <em>last</em> segment is a <b>torn tail</b>
 *       (the process or machine stopped while it was written; it was never acknowledged in
 *       {@code FSYNC} or {@code LOG_ONLY} mode): it is dropped, the segment truncated before it, and a
 *       warning says exactly what was dropped (file, position, bytes, why).</li>
 *   <li>Anything else that fails a check — a record followed by more log, a damaged record in an older
 *       segment, a bad segment header — is a {@link WalCorruptedException} naming the file and the byte
 *       position. Nothing is skipped silently.</li>
 * </ul>
 */
public final class WalReader {

    private static final Logger LOG = LoggerFactory.getLogger(WalReader.class);

    private final Path directory;

    public WalReader(Path directory) {
        this.directory = directory;
    }

    /** What recovery finds in the records, in log order. */
    public interface Handler {
        /** The binary type registry as it was when a later record was logged. */
        void types(byte[] metadata);

        /** A cache was created with this id. */
        void cache(int cacheId, int partitions, String name);

        /**
         * A store write: apply {@code entries} to the partition with the mode. The entries' bytes stay valid
         * until {@link #segmentEnd} returns, so the handler may apply them later (on other threads).
         * {@code skipStore}: a streamer's skipStore batch, which left the cache store alone.
         */
        void batch(int cacheId, int partition, BatchMode mode, boolean partial, boolean skipStore, EntryBatch entries);

        /** A cache was put in front of a store: the attachment, in the CacheStoreWire layout. */
        void store(int cacheId, byte[] attachment);

        /** A cache's options are now these (CacheOptionsWire layout); a cache without such a record has defaults. */
        void options(int cacheId, byte[] options);

        /** A cache was destroyed: every earlier record of it must be applied before it goes. */
        void drop(int cacheId);

        /**
         * A partition's entries were replaced by those of the partition file {@code file} in the moves directory
         * (empty: the partition was left empty); the records of that partition before it must be applied first.
         */
        default void adopt(int cacheId, int partition, String file) {
            throw new WalCorruptedException("an ADOPT record (cache id " + cacheId + ", partition " + partition
                    + ") that this reader cannot apply");
        }

        /** Every record of the segment was handed over: finish applying them (a failure stops the replay). */
        default void segmentEnd(Path segment) {
        }
    }

    /**
     * What a replay found.
     *
     * @param segments     segment files read
     * @param lastSegment  the number of the last one (0 if none)
     * @param records      records replayed
     * @param bytes        log bytes replayed (headers included)
     * @param endPosition  the log position after the last good record
     * @param droppedBytes bytes of a torn tail dropped (0 if none)
     * @param dropped      what was dropped, for the start log (null if nothing)
     */
    public record Summary(int segments, long lastSegment, long records, long bytes, long endPosition,
                          long droppedBytes, String dropped) {
    }

    /**
     * Replays every segment.
     *
     * @throws WalCorruptedException if the log is damaged before its tail, or a record cannot be applied
     * @throws WalFailedException if a file cannot be read
     */
    public Summary replay(Handler handler) {
        return replay(handler, 0);
    }

    /**
     * Replays the records that start at or after log position {@code from} (a checkpoint's mark): records
     * before it are checked but not handed over; segments wholly before it may be gone.
     *
     * @throws WalCorruptedException if the log is damaged before its tail, a record cannot be applied, or the
     *                               log does not reach back to {@code from}
     * @throws WalFailedException if a file cannot be read
     */
    public Summary replay(Handler handler, long from) {
        List<Long> numbers = segmentNumbers();
        long records = 0;
        long bytes = 0;
        long position = 0;
        long dropped = 0;
        String droppedWhat = null;
        boolean droppedPadding = false;
        long lastKept = 0;
        for (int i = 0; i < numbers.size(); i++) {
            long number = numbers.get(i);
            boolean last = i == numbers.size() - 1;
            if (i > 0 && number != numbers.get(i - 1) + 1) {
                throw new WalCorruptedException("log segment " + WalFormat.segmentName(numbers.get(i - 1) + 1)
                        + " is missing in " + directory + " (found " + WalFormat.segmentName(number) + " after "
                        + WalFormat.segmentName(numbers.get(i - 1)) + ")");
            }
            Path file = directory.resolve(WalFormat.segmentName(number));
            byte[] data = read(file);
            Segment segment = new Segment(file, data, last);
            long first = segment.header(number);
            if (first < 0) { // a torn header of the last segment: the node died creating it
                dropped += data.length;
                droppedWhat = segment.torn;
                droppedPadding = segment.padding;
                truncate(file, 0, true);
                continue;
            }
            lastKept = number;
            if (i > 0 && first != position) {
                throw new WalCorruptedException(file + " starts at log position " + first + " but the segments before"
                        + " it end at " + position + "; a segment was lost or replaced");
            }
            if (i == 0 && first > from) {
                throw new WalCorruptedException(file + " starts at log position " + first + " but the checkpoint needs"
                        + " the log from position " + from + "; a segment was lost");
            }
            position = first;
            int at = WalFormat.SEGMENT_HEADER;
            while (at < data.length) {
                int end = segment.record(at);
                if (end < 0) {
                    dropped += data.length - at;
                    droppedWhat = segment.torn;
                    droppedPadding = segment.padding;
                    truncate(file, at, false);
                    break;
                }
                if (position >= from) {
                    try {
                        dispatch(data, at + WalFormat.RECORD_HEADER, end, handler);
                    } catch (WalCorruptedException e) {
                        throw e;
                    } catch (RuntimeException e) {
                        throw new WalCorruptedException("replaying the record at " + file + " position " + at
                                + " failed: " + e.getMessage(), e);
                    }
                    records++;
                    bytes += end - at;
                }
                position += end - at;
                at = end;
            }
            handler.segmentEnd(file);
        }
        if (droppedWhat != null) {
            if (droppedPadding) { // what a direct write leaves after a kill: expected, not damage
                LOG.info("write-ahead log: dropped the zero padding of the last block written: {}", droppedWhat);
            } else {
                LOG.warn("write-ahead log: dropped a torn tail: {}", droppedWhat);
            }
        }
        LOG.info("write-ahead log {}: replayed {} records ({} bytes) from {} segments", directory, records, bytes,
                numbers.size());
        if (position < from) {
            throw new WalCorruptedException("the log in " + directory + " ends at position " + position
                    + " but the checkpoint was taken at position " + from + "; the log's end was lost");
        }
        return new Summary(numbers.size(), lastKept, records, bytes, position, dropped, droppedWhat);
    }

    private static void dispatch(byte[] data, int body, int end, Handler handler) {
        ByteBuffer in = ByteBuffer.wrap(data, body, end - body);
        byte type = in.get();
        switch (type) {
            case WalFormat.TYPES -> {
                byte[] types = new byte[end - body - 1];
                in.get(types);
                handler.types(types);
            }
            case WalFormat.CACHE -> {
                int id = in.getInt();
                int partitions = in.getInt();
                String name = new String(data, body + WalFormat.CACHE_FIXED, end - body - WalFormat.CACHE_FIXED,
                        StandardCharsets.UTF_8);
                handler.cache(id, partitions, name);
            }
            case WalFormat.BATCH -> {
                byte mode = in.get();
                byte flags = in.get();
                int cacheId = in.getInt();
                int partition = in.getInt();
                int count = in.getInt();
                int entries = body + WalFormat.BATCH_FIXED;
                EntryBatch batch = new EntryBatch(data, entries, end - entries, count);
                batch.checkStructure();
                handler.batch(cacheId, partition, mode == WalFormat.MODE_INSERT_IF_ABSENT ? BatchMode.INSERT_IF_ABSENT
                        : BatchMode.UPSERT, (flags & WalFormat.FLAG_PARTIAL) != 0,
                        (flags & WalFormat.FLAG_SKIP_STORE) != 0, batch);
            }
            case WalFormat.DROP -> handler.drop(in.getInt());
            case WalFormat.STORE -> {
                int cacheId = in.getInt();
                byte[] attachment = new byte[in.remaining()];
                in.get(attachment);
                handler.store(cacheId, attachment);
            }
            case WalFormat.OPTIONS -> {
                int cacheId = in.getInt();
                byte[] options = new byte[in.remaining()];
                in.get(options);
                handler.options(cacheId, options);
            }
            case WalFormat.ADOPT -> {
                int cacheId = in.getInt();
                int partition = in.getInt();
                handler.adopt(cacheId, partition, new String(data, body + WalFormat.ADOPT_FIXED,
                        end - body - WalFormat.ADOPT_FIXED, StandardCharsets.UTF_8));
            }
            default -> throw new WalCorruptedException("unknown record type " + type);
        }
    }

    /** One segment's bytes and its checks. */
    private static final class Segment {
        final Path file;
        final byte[] data;
        final boolean last;
        /** What a torn tail was, once found. */
        String torn;
        /**
         * Whether the torn tail is only zeros, fewer than a direct write's largest block: the padding a direct
         * write puts after the last record up to its block's end ({@link WalSegments}), which a kill leaves.
         */
        boolean padding;

        Segment(Path file, byte[] data, boolean last) {
            this.file = file;
            this.data = data;
            this.last = last;
        }

        /** @return the log position of the segment's first record, or -1 for a torn header of the last segment */
        long header(long number) {
            if (data.length < WalFormat.SEGMENT_HEADER) {
                if (last) {
                    torn = file + ": the segment header is incomplete (" + data.length + " of "
                            + WalFormat.SEGMENT_HEADER + " bytes); the segment was emptied";
                    return -1;
                }
                throw new WalCorruptedException(file + " is " + data.length + " bytes, shorter than a segment header");
            }
            ByteBuffer in = ByteBuffer.wrap(data);
            CRC32C crc = new CRC32C();
            crc.update(data, 0, 28);
            boolean ok = in.getLong(0) == WalFormat.MAGIC && in.getInt(8) == WalFormat.VERSION
                    && in.getLong(12) == number && in.getInt(28) == (int) crc.getValue();
            if (!ok) {
                if (last && zeros(0)) {
                    torn = file + ": the segment header was never written (all zeros); " + data.length
                            + " bytes dropped";
                    return -1;
                }
                throw new WalCorruptedException(file + " position 0: bad segment header (magic, version " + in.getInt(8)
                        + ", segment number or CRC32C do not match; expected segment " + number + ")");
            }
            return in.getLong(20);
        }

        /**
         * Checks the record at {@code at}.
         *
         * @return where it ends, or -1 if it is a torn tail ({@link #torn} says why)
         * @throws WalCorruptedException if it is damaged and not the tail
         */
        int record(int at) {
            int remaining = data.length - at;
            if (remaining < WalFormat.RECORD_HEADER) {
                return tornOr(at, "only " + remaining + " bytes of a record header");
            }
            ByteBuffer in = ByteBuffer.wrap(data);
            int length = in.getInt(at);
            int check = in.getInt(at + 4);
            if (length != ~check || length < 1 || length > WalFormat.MAX_BODY) {
                if (zeros(at)) {
                    padding = data.length - at < DirectSegmentOpener.MAX_ALIGNMENT;
                    return tornOr(at, "zeros where a record header should be");
                }
                throw new WalCorruptedException(file + " position " + at + ": damaged record header (length " + length
                        + " does not match its check " + ~check + ")" + more(at));
            }
            long end = (long) at + WalFormat.RECORD_HEADER + length;
            if (end > data.length) {
                return tornOr(at, "a record of " + length + " bytes with only " + (remaining - WalFormat.RECORD_HEADER)
                        + " written");
            }
            CRC32C crc = new CRC32C();
            crc.update(data, at + WalFormat.RECORD_HEADER, length);
            int stored = in.getInt(at + 8);
            if (stored != (int) crc.getValue()) {
                if (end == data.length) {
                    return tornOr(at, "the last record (" + length + " bytes) fails its CRC32C check (stored "
                            + Integer.toHexString(stored) + ", computed " + Integer.toHexString((int) crc.getValue())
                            + ")");
                }
                throw new WalCorruptedException(file + " position " + at + ": the record of " + length
                        + " bytes fails its CRC32C check (stored " + Integer.toHexString(stored) + ", computed "
                        + Integer.toHexString((int) crc.getValue()) + ")" + more(at));
            }
            return (int) end;
        }

        private String more(int at) {
            return "; " + (data.length - at) + " bytes of log follow in this segment" + (last ? "" : " and more segments"
                    + " after it") + ", so this is not a torn tail. Recovery stops here rather than skip records.";
        }

        private int tornOr(int at, String why) {
            if (!last) {
                throw new WalCorruptedException(file + " position " + at + ": " + why + ", in a segment that is not"
                        + " the last one; the log is damaged");
            }
            torn = file + " position " + at + ": " + why + "; dropped " + (data.length - at)
                    + " bytes (never acknowledged: the node stopped while writing them)";
            return -1;
        }

        private boolean zeros(int from) {
            for (int i = from; i < data.length; i++) {
                if (data[i] != 0) {
                    return false;
                }
            }
            return true;
        }
    }

    /** The log position of each segment's first record, by segment number (headers not checked here). */
    static java.util.Map<Long, Long> segmentStarts(Path directory) {
        java.util.Map<Long, Long> starts = new java.util.TreeMap<>();
        for (long n : new WalReader(directory).segmentNumbers()) {
            Path file = directory.resolve(WalFormat.segmentName(n));
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                ByteBuffer header = ByteBuffer.allocate(WalFormat.SEGMENT_HEADER);
                while (header.hasRemaining() && ch.read(header) >= 0) {
                    // read on
                }
                if (!header.hasRemaining()) {
                    starts.put(n, header.getLong(20));
                }
            } catch (IOException e) {
                throw new WalFailedException("cannot read the log segment " + file + ": " + e, e);
            }
        }
        return starts;
    }

    private List<Long> segmentNumbers() {
        List<Long> numbers = new ArrayList<>();
        if (!Files.isDirectory(directory)) {
            return numbers;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, "wal-*.log")) {
            for (Path f : files) {
                long n = WalFormat.segmentNumber(f.getFileName().toString());
                if (n > 0) {
                    numbers.add(n);
                }
            }
        } catch (IOException e) {
            throw new WalFailedException("cannot list the log directory " + directory + ": " + e, e);
        }
        numbers.sort(null);
        return numbers;
    }

    private static byte[] read(Path file) {
        try {
            long size = Files.size(file);
            if (size > Integer.MAX_VALUE - 16) {
                throw new WalCorruptedException(file + " is " + size + " bytes, larger than any segment can be");
            }
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new WalFailedException("cannot read the log segment " + file + ": " + e, e);
        }
    }

    /** Cuts a torn tail off (or deletes a segment whose header is torn), durably, so the next start sees a clean end. */
    private static void truncate(Path file, long size, boolean delete) {
        try {
            if (delete) {
                Files.delete(file);
                return;
            }
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
                ch.truncate(size);
                ch.force(true);
            }
        } catch (IOException e) {
            throw new WalFailedException("cannot cut the torn tail off " + file + ": " + e, e);
        }
    }
}
