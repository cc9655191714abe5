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
    /** The staging buffer's first size: a group write is at most the append buffer's 4 MiB, plus two blocks. */
    private static final int STAGE_SIZE = (4 << 20) + (8 << 10);

    private final Path directory;
    private final Durability mode;
    private final long segmentSize;
    private final WriteAheadLog.SegmentOpener opener;
    /** Log position of each segment's first record, by segment number (segments not deleted yet). */
    private final ConcurrentSkipListMap<Long, Long> starts = new ConcurrentSkipListMap<>();
    // ---- the writer thread's (and recover's, before the writer starts) ----
    private FileChannel segment;
    private long number;
    /** Bytes of the segment being written: header and records (with direct I/O the file may end in padding). */
    private long bytes;
    /**
     * With direct I/O ({@link WriteAheadLog.SegmentOpener#directAlignment} &gt; 0): the aligned buffer writes go
     * through; its first {@code bytes % block} bytes are the segment's last partial block. Null: buffered writes.
     */
    private ByteBuffer stage;
    /** The alignment direct I/O needs (the file system's block size). */
    private int block;

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

    /**
     * Writes the buffer's remaining bytes to the segment being written. With direct I/O they go through the
     * aligned staging buffer (after the last partial block's bytes, zero-padded to whole blocks, written at the
     * block's file offset), so the kernel reads them from memory the process keeps rather than copying them into
     * page cache pages it has to find first.
     */
    void write(ByteBuffer buffer) throws IOException {
        if (stage == null) {
            while (buffer.hasRemaining()) {
                bytes += segment.write(buffer);
            }
            return;
        }
        int n = buffer.remaining();
        int tail = (int) (bytes % block);
        if (stage.capacity() < tail + n + block) {
            stage = grownStage(tail + n + block);
        }
        stage.limit(stage.capacity()).position(tail);
        stage.put(buffer);
        writeStaged(tail + n);
        bytes += n;
    }

    /**
     * Writes stage[0, end) (the last partial block's bytes, then the new ones), zero-padded to whole blocks, at the
     * file offset of that block, then moves the new partial block's bytes to the stage's start.
     */
    private void writeStaged(int end) throws IOException {
        int padded = (end + block - 1) / block * block;
        for (int i = end; i < padded; i++) {
            stage.put(i, (byte) 0);
        }
        long at = bytes - bytes % block;
        stage.limit(padded).position(0);
        while (stage.hasRemaining()) {
            segment.write(stage, at + stage.position());
        }
        int lastBlock = end - end % block;
        if (lastBlock > 0) {
            stage.limit(stage.capacity()).position(0);
            stage.put(stage.duplicate().position(lastBlock).limit(end));
        }
    }

    /** A larger staging buffer holding the current one's partial block. */
    private ByteBuffer grownStage(int capacity) {
        ByteBuffer grown = alignedBuffer(Math.max(capacity, stage.capacity() * 2), block);
        grown.put(stage.duplicate().position(0).limit((int) (bytes % block)));
        return grown;
    }

    private static ByteBuffer alignedBuffer(int capacity, int alignment) {
        return ByteBuffer.allocateDirect(capacity + alignment).alignedSlice(alignment).limit(capacity);
    }

    /** Fsyncs the segment being written (its data, not its metadata). */
    void force() throws IOException {
        segment.force(false);
    }

    /** Closes the segment (fsynced unless in NONE and not forced) and starts the next one at {@code position}. */
    void roll(long position, boolean force) throws IOException {
        cutPadding();
        if (mode != Durability.NONE || force) {
            segment.force(false);
        }
        segment.close();
        open(number + 1, position);
    }

    /** With direct I/O: the file ends at its last record, not at the zeros that padded its last block. */
    private void cutPadding() throws IOException {
        if (stage != null && segment.size() > bytes) {
            segment.truncate(bytes);
        }
    }

    /** Creates segment {@code number}, its first record at log position {@code firstPosition}, and writes to it. */
    void open(long number, long firstPosition) throws IOException {
        Path file = directory.resolve(WalFormat.segmentName(number));
        FileChannel channel = opener.open(file);
        segment = channel;
        int alignment = opener.directAlignment();
        if (alignment > 0 && (stage == null || block != alignment)) {
            block = alignment;
            stage = alignedBuffer(STAGE_SIZE, alignment);
        } else if (alignment == 0) {
            stage = null;
        }
        bytes = 0;
        if (stage != null) {
            stage.clear();
            WalFormat.putSegmentHeader(stage, number, firstPosition);
            writeStaged(WalFormat.SEGMENT_HEADER);
        } else {
            ByteBuffer header = ByteBuffer.allocate(WalFormat.SEGMENT_HEADER);
            WalFormat.putSegmentHeader(header, number, firstPosition);
            header.flip();
            while (header.hasRemaining()) {
                channel.write(header);
            }
        }
        if (mode != Durability.NONE) {
            channel.force(true);
            syncDirectory();
        }
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
            try {
                cutPadding();
                if (stage != null && mode != Durability.NONE) {
                    segment.force(false);
                }
            } finally {
                segment.close();
            }
        }
    }
}
