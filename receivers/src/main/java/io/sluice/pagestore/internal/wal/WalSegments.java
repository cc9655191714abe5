package io.sluice.pagestore.internal.wal;

import io.sluice.pagestore.internal.wal.WalSettings.Durability;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;

/**
 * The log's segment files ({@link WalFormat} layout): the one being written, rolling to the next, and
 * deleting those a checkpoint covers. Writing and rolling run on the writer thread only;
 * {@link #deleteBefore} and {@link #diskBytes} may run on any thread (the segment map is concurrent, and the
 * segment being written is never deleted).
 */
final class WalSegments {

    private static final Logger LOG = LoggerFactory.getLogger(WalSegments.class);

    private final Path directory;
    private final Durability mode;
    private final long segmentSize;
    private final WriteAheadLog.SegmentOpener opener;
    /** Log position of each segment's first record, by segment number (segments not deleted yet). */
    private final ConcurrentSkipListMap<Long, Long> starts = new ConcurrentSkipListMap<>();
    // ---- the writer thread's (and recover's, before the writer starts) ----
    private FileChannel segment;
    private long number;
    private long bytes;

    WalSegments(Path directory, Durability mode, long segmentSize, WriteAheadLog.SegmentOpener opener) {
        this.directory = directory;
        this.mode = mode;
        this.segmentSize = segmentSize;
        this.opener = opener;
    }

    /** Notes the segments found on disk at recovery (number to the log position of its first record). */
    void addExisting(Map<Long, Long> existing) {
        starts.putAll(existing);
    }

    /** Whether the segment being written reached the configured size (the next write starts a new one). */
    boolean full() {
        return bytes >= segmentSize;
    }

    /** Whether the segment being written holds any record. */
    boolean hasRecords() {
        return bytes > WalFormat.SEGMENT_HEADER;
    }

    /** Writes the buffer's remaining bytes to the segment being written. */
    void write(ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            bytes += segment.write(buffer);
        }
    }

    /** Fsyncs the segment being written (its data, not its metadata). */
    void force() throws IOException {
        segment.force(false);
    }

    /** Closes the segment (fsynced unless in NONE and not forced) and starts the next one at {@code position}. */
    void roll(long position, boolean force) throws IOException {
        if (mode != Durability.NONE || force) {
            segment.force(false);
        }
        segment.close();
        open(number + 1, position);
    }

    /** Creates segment {@code number}, its first record at log position {@code firstPosition}, and writes to it. */
    void open(long number, long firstPosition) throws IOException {
        Path file = directory.resolve(WalFormat.segmentName(number));
        FileChannel channel = opener.open(file);
        ByteBuffer header = ByteBuffer.allocate(WalFormat.SEGMENT_HEADER);
        WalFormat.putSegmentHeader(header, number, firstPosition);
        header.flip();
        while (header.hasRemaining()) {
            channel.write(header);
        }
        if (mode != Durability.NONE) {
            channel.force(true);
            syncDirectory();
        }
        segment = channel;
        starts.put(number, firstPosition);
        this.number = number;
        bytes = WalFormat.SEGMENT_HEADER;
    }

    /** Makes a new file's directory entry durable (a no-op where the OS cannot open directories). */
    private void syncDirectory() {
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ)) {
            dir.force(true);
        } catch (IOException e) {
            // Windows cannot open a directory; its file system orders metadata itself
        }
    }

    /** The path of the segment being written (for messages). */
    String currentName() {
        return directory.resolve(WalFormat.segmentName(number)).toString();
    }

    /**
     * Deletes the segments that hold only records before log position {@code position}: a segment goes when
     * the next one starts at or before it. The segment being written is never deleted.
     *
     * @return the number of segments deleted
     */
    int deleteBefore(long position) {
        int deleted = 0;
        for (var e : starts.entrySet()) {
            Long next = starts.higherKey(e.getKey());
            if (next == null || starts.get(next) > position) {
                break;
            }
            Path file = directory.resolve(WalFormat.segmentName(e.getKey()));
            try {
                Files.deleteIfExists(file);
                starts.remove(e.getKey());
                deleted++;
            } catch (IOException ex) {
                LOG.warn("cannot delete the log segment {} (the checkpoint covers it): {}", file, ex.toString());
                break;
            }
        }
        return deleted;
    }

    /** Bytes of log segments on disk now. */
    long diskBytes() {
        long total = 0;
        for (Long n : starts.keySet()) {
            try {
                total += Files.size(directory.resolve(WalFormat.segmentName(n)));
            } catch (IOException e) {
                // deleted meanwhile
            }
        }
        return total;
    }

    /** Closes the segment being written, if any (after the writer stopped). */
    void close() throws IOException {
        if (segment != null) {
            segment.close();
        }
    }
}
