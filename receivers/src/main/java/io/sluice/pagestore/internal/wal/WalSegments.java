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
 * deleting those a checkpoint covers.
 *
 * <p>With direct I/O (the opener's {@link WriteAheadLog.SegmentOpener#directAlignment} B &gt; 0) every write is of
 * whole blocks at a block's file offset:
 * <pre>
 * file offset      what is written
 * floor(S, B)      the segment's last partial block, S mod B bytes (kept in {@code lastBlock}; written again)
 * S                the new bytes, N
 * S + N            zeros to the next multiple of B (overwritten by the next write; cut off at roll and close)
 * </pre>
 * (S: the segment's size before the write.) Writing and rolling run on the writer thread only;
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
    /** Bytes of the segment being written: header and records (with direct I/O the file may end in padding). */
    private long bytes;
    /**
     * With direct I/O: the block size writes are aligned to ({@link WriteAheadLog.SegmentOpener#directAlignment});
     * 0: buffered writes.
     */
    private int block;
    /** With direct I/O: the segment's last partial block ({@code bytes % block} bytes), rewritten with the next write. */
    private byte[] lastBlock;
    /** Zeros to pad a write to whole blocks, and room to keep the buffer's bytes the padding and tail cover. */
    private byte[] zeros;
    private byte[] saved;
    /** With direct I/O: where a write whose buffer is not laid out as the file goes (allocated on first need). */
    private ByteBuffer stage;

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

    /** Bytes of the segment being written: its header and records. */
    long size() {
        return bytes;
    }

    /** Whether the segment being written holds any record. */
    boolean hasRecords() {
        return bytes > WalFormat.SEGMENT_HEADER;
    }

    /**
     * Writes the buffer's remaining bytes to the segment being written. With direct I/O the write is of whole
     * blocks at a block's file offset: the segment's last partial block, then the bytes, then zeros to the block's
     * end. Straight from the buffer when its bytes sit in memory as in the file (mod a block) with room around them,
     * which {@link AppendBuffer} arranges; else through an aligned staging buffer (a copy).
     */
    void write(ByteBuffer buffer) throws IOException {
        if (block == 0) {
            while (buffer.hasRemaining()) {
                bytes += segment.write(buffer);
            }
            return;
        }
        int n = buffer.remaining();
        if (n == 0) {
            return;
        }
        int tail = (int) (bytes % block);
        int from = buffer.position() - tail;
        int end = buffer.limit();
        int padded = from + roundUp(end - from);
        if (buffer.isDirect() && from >= 0 && padded <= buffer.capacity() && buffer.alignmentOffset(from, block) == 0) {
            writeInPlace(buffer, from, end, padded);
        } else {
            writeStaged(buffer, n);
        }
        bytes += n;
        buffer.position(end);
    }

    /** Writes buffer[from, padded) with the last partial block before the bytes and zeros after them (put back after). */
    private void writeInPlace(ByteBuffer buffer, int from, int end, int padded) throws IOException {
        ByteBuffer whole = buffer.duplicate().clear(); // absolute gets and puts reach past the limit
        int tail = buffer.position() - from;
        int pad = padded - end;
        whole.get(from, saved, 0, tail);
        whole.get(end, saved, block, pad);
        whole.put(from, lastBlock, 0, tail);
        whole.put(end, zeros, 0, pad);
        try {
            writeFully(whole.limit(padded).position(from));
            int newTail = (int) ((bytes + end - buffer.position()) % block);
            whole.get(end - newTail, lastBlock, 0, newTail);
        } finally {
            whole.put(from, saved, 0, tail);
            whole.put(end, saved, block, pad);
        }
    }

    /** Copies the last partial block and the buffer's bytes into the staging buffer and writes them, zero-padded. */
    private void writeStaged(ByteBuffer buffer, int n) throws IOException {
        int tail = (int) (bytes % block);
        int padded = roundUp(tail + n);
        if (stage == null || stage.capacity() < padded) {
            stage = alignedBuffer(Math.max(padded, stage == null ? 0 : stage.capacity() * 2), block);
        }
        stage.clear();
        stage.put(lastBlock, 0, tail).put(buffer.duplicate());
        int end = tail + n;
        stage.put(zeros, 0, padded - end);
        writeFully(stage.flip());
        int newTail = end % block;
        stage.get(end - newTail, lastBlock, 0, newTail);
    }

    /** Writes the buffer's remaining whole blocks at the file offset of the segment's last (partial) block. */
    private void writeFully(ByteBuffer blocks) throws IOException {
        long at = bytes - bytes % block - blocks.position();
        while (blocks.hasRemaining()) {
            segment.write(blocks, at + blocks.position());
        }
    }

    private int roundUp(int length) {
        return (length + block - 1) / block * block;
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
        if (block > 0 && segment.size() > bytes) {
            segment.truncate(bytes);
        }
    }

    /** Creates segment {@code number}, its first record at log position {@code firstPosition}, and writes to it. */
    void open(long number, long firstPosition) throws IOException {
        Path file = directory.resolve(WalFormat.segmentName(number));
        FileChannel channel = opener.open(file);
        segment = channel;
        int alignment = opener.directAlignment();
        if (alignment != block) {
            block = alignment;
            lastBlock = new byte[alignment];
            zeros = new byte[alignment];
            saved = new byte[2 * alignment];
            stage = null;
        }
        bytes = 0;
        ByteBuffer header = ByteBuffer.allocate(WalFormat.SEGMENT_HEADER);
        WalFormat.putSegmentHeader(header, number, firstPosition);
        write(header.flip());
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
                if (block > 0 && mode != Durability.NONE) {
                    segment.force(false);
                }
            } finally {
                segment.close();
            }
        }
    }
}
