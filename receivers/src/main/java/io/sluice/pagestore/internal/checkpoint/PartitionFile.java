package io.sluice.pagestore.internal.checkpoint;

import io.sluice.protocol.internal.EntryBatch;
import io.sluice.pagestore.internal.EntryImage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
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
        long size = Files.size(file);
        if (size > Integer.MAX_VALUE - 16) {
            throw new CheckpointCorruptedException(file + " is " + size + " bytes, larger than a partition file can be");
        }
        byte[] data = Files.readAllBytes(file);
        ByteBuffer in = ByteBuffer.wrap(data);
        if (data.length < CheckpointFormat.PARTITION_HEADER
                || in.getLong(0) != CheckpointFormat.PARTITION_MAGIC
                || in.getInt(8) != CheckpointFormat.PARTITION_VERSION
                || in.getInt(36) != CheckpointFormat.crc(data, 0, 36)) {
            throw new CheckpointCorruptedException(file + " position 0: bad partition file header (short, magic,"
                    + " version or CRC32C)");
        }
        if (foreign ? in.getInt(16) != partition
                : in.getInt(12) != cacheId || in.getInt(16) != partition || in.getLong(20) != number) {
            throw new CheckpointCorruptedException(file + " position 0: the header names cache " + in.getInt(12)
                    + " partition " + in.getInt(16) + " checkpoint " + in.getLong(20) + (foreign ? "; expected partition "
                    + partition : "; the manifest expects cache " + cacheId + " partition " + partition + " checkpoint "
                    + number));
        }
        long expected = in.getLong(28);
        long entries = 0;
        int at = CheckpointFormat.PARTITION_HEADER;
        Inflater inflater = new Inflater(true);
        try {
            while (true) {
                if (data.length - at < CheckpointFormat.BLOCK_HEADER) {
                    throw new CheckpointCorruptedException(file + " position " + at + ": the file ends inside a block"
                            + " header (" + (data.length - at) + " bytes left); the file is truncated");
                }
                int length = in.getInt(at);
                int raw = in.getInt(at + 4);
                int count = in.getInt(at + 8);
                if (length < 0 || raw < 0 || count < 0 || length > data.length - at - CheckpointFormat.BLOCK_HEADER) {
                    throw new CheckpointCorruptedException(file + " position " + at + ": damaged block header (stored "
                            + length + " bytes, " + raw + " raw, " + count + " entries, "
                            + (data.length - at - CheckpointFormat.BLOCK_HEADER) + " bytes left in the file)");
                }
                CRC32C crc = new CRC32C();
                crc.update(data, at, 12);
                crc.update(data, at + CheckpointFormat.BLOCK_HEADER, length);
                int stored = in.getInt(at + 12);
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
                inflater.setInput(data, at + CheckpointFormat.BLOCK_HEADER, length);
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

    private static void writeFully(WritableByteChannel out, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            out.write(b);
        }
    }

    private static int intAt(byte[] a, int at) {
        return (a[at] & 0xFF) << 24 | (a[at + 1] & 0xFF) << 16 | (a[at + 2] & 0xFF) << 8 | (a[at + 3] & 0xFF);
    }
}
