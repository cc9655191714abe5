package io.sluice.pagestore.internal.checkpoint;

import io.sluice.protocol.internal.EntryBatch;
import io.sluice.pagestore.internal.EntryImage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * Writes and reads one partition file (layout in {@link CheckpointFormat}): a header, blocks of whole
 * entries each deflated and with its CRC32C, an end block. Reading checks every byte before it is used.
 */
public final class PartitionFile {

    /** Where a reader puts the entries it inflates; it may apply what it holds before making room. */
    public interface Target {
        /** Room for {@code bytes} more bytes at {@link #length()}; the array to write into. */
        byte[] reserve(int bytes);

        int length();

        /** {@code count} entries of {@code bytes} bytes were written at {@link #length()}. */
        void added(int bytes, int count);
    }

    private PartitionFile() {
    }

    /**
     * Writes the image as a new file and fsyncs it.
     *
     * @throws IOException if the file cannot be written (it may be left incomplete: no manifest names it)
     */
    static void write(Path file, int cacheId, int partition, long number, EntryImage image) throws IOException {
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            write(out, cacheId, partition, number, image, Deflater.BEST_SPEED);
            out.force(true);
        }
    }

    /**
     * Writes the image as a partition file to the channel, from the header to the end block, in order (a partition
     * moved as its file, issue 28, writes it this way with checks computed as it goes); does not sync. Each block is
     * deflated at {@code level} ({@link Deflater#NO_COMPRESSION}: stored deflate blocks, which any reader inflates
     * alike).
     *
     * @throws IOException if the channel fails
     */
    public static void write(WritableByteChannel out, int cacheId, int partition, long number, EntryImage image,
                             int level) throws IOException {
        byte[] data = image.data();
        ByteBuffer header = ByteBuffer.allocate(CheckpointFormat.PARTITION_HEADER);
        header.putLong(CheckpointFormat.PARTITION_MAGIC).putInt(CheckpointFormat.PARTITION_VERSION).putInt(cacheId)
                .putInt(partition).putLong(number).putLong(image.count());
        header.putInt(CheckpointFormat.crc(header.array(), 0, 36)).flip();
        Deflater deflater = new Deflater(level, true);
        byte[] stored = new byte[CheckpointFormat.BLOCK_BYTES * 2];
        try {
            writeFully(out, header);
            ByteBuffer blockHeader = ByteBuffer.allocate(CheckpointFormat.BLOCK_HEADER);
            int at = 0;
            while (true) {
                int start = at;
                int count = 0;
                while (at < image.length() && at - start < CheckpointFormat.BLOCK_BYTES) {
                    at += EntryBatch.ENTRY_HEADER + intAt(data, at) + Math.max(0, intAt(data, at + 4));
                    count++;
                }
                int raw = at - start;
                int storedLength = 0;
                if (raw > 0) {
                    if (stored.length < raw + raw / 100 + 64) {
                        stored = new byte[raw + raw / 100 + 64];
                    }
                    deflater.reset();
                    deflater.setInput(data, start, raw);
                    deflater.finish();
                    while (!deflater.finished()) {
                        storedLength += deflater.deflate(stored, storedLength, stored.length - storedLength);
                        if (storedLength == stored.length && !deflater.finished()) {
                            stored = java.util.Arrays.copyOf(stored, stored.length * 2);
                        }
                    }
                }
                blockHeader.clear();
                blockHeader.putInt(storedLength).putInt(raw).putInt(count);
                CRC32C crc = new CRC32C();
                crc.update(blockHeader.array(), 0, 12);
                crc.update(stored, 0, storedLength);
                blockHeader.putInt((int) crc.getValue()).flip();
                writeFully(out, blockHeader);
                writeFully(out, ByteBuffer.wrap(stored, 0, storedLength));
                if (count == 0) {
                    break; // the end block
                }
            }
        } finally {
            deflater.end();
        }
    }

    /**
     * Checks the file's blocks in order and inflates their entries into the target.
     *
     * @return the number of entries read
     * @throws CheckpointCorruptedException naming the file and the byte position of the first damage
     * @throws IOException if the file cannot be read
     */
    static long read(Path file, int cacheId, int partition, long number, Target target) throws IOException {
        return read(file, false, cacheId, partition, number, target);
    }

    /**
     * {@link #read} of a file another node wrote (a partition moved as its file): its header's cache id and
     * checkpoint number are that node's, so only its partition is checked.
     */
    static long readForeign(Path file, int partition, Target target) throws IOException {
        return read(file, true, 0, partition, 0, target);
    }

    private static long read(Path file, boolean foreign, int cacheId, int partition, long number, Target target)
            throws IOException {
        try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = in.size();
            if (size > Integer.MAX_VALUE - 16) {
                throw new CheckpointCorruptedException(file + " is " + size + " bytes, larger than a partition file can"
                        + " be");
            }
            // Block by block through one buffer, not the whole file into the heap: an adoption or a restart then
            // allocates its batch only (a 10 MB file read whole, then gathered, was ~4x its size in young garbage).
            byte[] head = new byte[CheckpointFormat.PARTITION_HEADER];
            ByteBuffer header = ByteBuffer.wrap(head);
            if (size < CheckpointFormat.PARTITION_HEADER || !readFully(in, head, 0, CheckpointFormat.PARTITION_HEADER)
                    || header.getLong(0) != CheckpointFormat.PARTITION_MAGIC
                    || header.getInt(8) != CheckpointFormat.PARTITION_VERSION
                    || header.getInt(36) != CheckpointFormat.crc(head, 0, 36)) {
                throw new CheckpointCorruptedException(file + " position 0: bad partition file header (short, magic,"
                        + " version or CRC32C)");
            }
            if (foreign ? header.getInt(16) != partition
                    : header.getInt(12) != cacheId || header.getInt(16) != partition || header.getLong(20) != number) {
                throw new CheckpointCorruptedException(file + " position 0: the header names cache "
                        + header.getInt(12) + " partition " + header.getInt(16) + " checkpoint " + header.getLong(20)
                        + (foreign ? "; expected partition " + partition : "; the manifest expects cache " + cacheId
                        + " partition " + partition + " checkpoint " + number));
            }
            return readBlocks(in, file, size, header.getLong(28), target);
        }
    }

    /** The blocks from the channel's position (after the header) to the end block, checked, into the target. */
    private static long readBlocks(FileChannel in, Path file, long size, long expected, Target target)
            throws IOException {
        long entries = 0;
        long at = CheckpointFormat.PARTITION_HEADER;
        byte[] block = new byte[CheckpointFormat.BLOCK_HEADER + CheckpointFormat.BLOCK_BYTES + 1024];
        ByteBuffer view = ByteBuffer.wrap(block);
        Inflater inflater = new Inflater(true);
        try {
            while (true) {
                if (size - at < CheckpointFormat.BLOCK_HEADER
                        || !readFully(in, block, 0, CheckpointFormat.BLOCK_HEADER)) {
                    throw new CheckpointCorruptedException(file + " position " + at + ": the file ends inside a block"
                            + " header (" + (size - at) + " bytes left); the file is truncated");
                }
                int length = view.getInt(0);
                int raw = view.getInt(4);
                int count = view.getInt(8);
                if (length < 0 || raw < 0 || count < 0 || length > size - at - CheckpointFormat.BLOCK_HEADER) {
                    throw new CheckpointCorruptedException(file + " position " + at + ": damaged block header (stored "
                            + length + " bytes, " + raw + " raw, " + count + " entries, "
                            + (size - at - CheckpointFormat.BLOCK_HEADER) + " bytes left in the file)");
                }
                if (block.length < CheckpointFormat.BLOCK_HEADER + length) {
                    block = java.util.Arrays.copyOf(block, CheckpointFormat.BLOCK_HEADER + length);
                    view = ByteBuffer.wrap(block);
                }
                if (!readFully(in, block, CheckpointFormat.BLOCK_HEADER, length)) {
                    throw new CheckpointCorruptedException(file + " position " + at + ": the file ends inside a block"
                            + " (it shrank while read)");
                }
                CRC32C crc = new CRC32C();
                crc.update(block, 0, 12);
                crc.update(block, CheckpointFormat.BLOCK_HEADER, length);
                int stored = view.getInt(12);
                if (stored != (int) crc.getValue()) {
                    throw new CheckpointCorruptedException(file + " position " + at + ": the block of " + length
                            + " bytes fails its CRC32C check (stored " + Integer.toHexString(stored) + ", computed "
                            + Integer.toHexString((int) crc.getValue()) + "); recovery stops rather than skip entries");
                }
                if (count == 0) {
                    break;
                }
                byte[] into = target.reserve(raw);
                inflater.reset();
                inflater.setInput(block, CheckpointFormat.BLOCK_HEADER, length);
                int inflated;
                try {
                    inflated = inflater.inflate(into, target.length(), raw);
                } catch (DataFormatException e) {
                    throw new CheckpointCorruptedException(file + " position " + at + ": the block does not inflate: "
                            + e.getMessage(), e);
                }
                if (inflated != raw || !inflater.finished()) {
                    throw new CheckpointCorruptedException(file + " position " + at + ": the block inflates to "
                            + inflated + " bytes, its header says " + raw);
                }
                target.added(raw, count);
                entries += count;
                at += CheckpointFormat.BLOCK_HEADER + length;
            }
        } finally {
            inflater.end();
        }
        if (entries != expected) {
            throw new CheckpointCorruptedException(file + ": the header says " + expected + " entries, the blocks hold "
                    + entries);
        }
        return entries;
    }

    /** Reads {@code length} bytes into {@code into} at {@code offset}; false if the channel ended first. */
    private static boolean readFully(FileChannel in, byte[] into, int offset, int length) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(into, offset, length);
        while (b.hasRemaining()) {
            if (in.read(b) < 0) {
                return false;
            }
        }
        return true;
    }

    private static void writeFully(WritableByteChannel out, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            out.write(b);
        }
    }

    private static int intAt(byte[] a, int at) {
        return (a[at] & 0xFF) << 24 | (a[at + 1] & 0xFF) << 16 | (a[at + 2] & 0xFF) << 8 | (a[at + 3] & 0xFF);
    }
}
