package io.sluice.store.internal.checkpoint;

import io.sluice.protocol.internal.EntryBatch;
import io.sluice.store.internal.EntryImage;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.Consumer;
import java.util.zip.CRC32C;

/**
 * Writes and reads one partition file (layout in {@link CheckpointFormat}): a header, blocks of whole
 * entries each with its CRC32C, an end block. Reading checks every byte before handing a block on.
 */
public final class PartitionFile {

    private PartitionFile() {
    }

    /**
     * Writes the image as a new file and fsyncs it.
     *
     * @throws IOException if the file cannot be written (it may be left incomplete: no manifest names it)
     */
    static void write(Path file, int cacheId, int partition, long number, EntryImage image) throws IOException {
        byte[] data = image.data();
        ByteBuffer header = ByteBuffer.allocate(CheckpointFormat.PARTITION_HEADER);
        header.putLong(CheckpointFormat.PARTITION_MAGIC).putInt(CheckpointFormat.VERSION).putInt(cacheId)
                .putInt(partition).putLong(number).putLong(image.count());
        header.putInt(CheckpointFormat.crc(header.array(), 0, 36)).flip();
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
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
                blockHeader.clear();
                blockHeader.putInt(at - start).putInt(count);
                CRC32C crc = new CRC32C();
                crc.update(blockHeader.array(), 0, 8);
                crc.update(data, start, at - start);
                blockHeader.putInt((int) crc.getValue()).flip();
                writeFully(out, blockHeader);
                writeFully(out, ByteBuffer.wrap(data, start, at - start));
                if (count == 0) {
                    break; // the end block
                }
            }
            out.force(true);
        }
    }

    /**
     * Checks and hands over the file's blocks in order, each as a batch over the file's bytes.
     *
     * @return the number of entries read
     * @throws CheckpointCorruptedException naming the file and the byte position of the first damage
     * @throws IOException if the file cannot be read
     */
    static long read(Path file, int cacheId, int partition, long number, Consumer<EntryBatch> blocks)
            throws IOException {
        long size = Files.size(file);
        if (size > Integer.MAX_VALUE - 16) {
            throw new CheckpointCorruptedException(file + " is " + size + " bytes, larger than a partition file can be");
        }
        byte[] data = Files.readAllBytes(file);
        ByteBuffer in = ByteBuffer.wrap(data);
        if (data.length < CheckpointFormat.PARTITION_HEADER
                || in.getLong(0) != CheckpointFormat.PARTITION_MAGIC || in.getInt(8) != CheckpointFormat.VERSION
                || in.getInt(36) != CheckpointFormat.crc(data, 0, 36)) {
            throw new CheckpointCorruptedException(file + " position 0: bad partition file header (short, magic,"
                    + " version or CRC32C)");
        }
        if (in.getInt(12) != cacheId || in.getInt(16) != partition || in.getLong(20) != number) {
            throw new CheckpointCorruptedException(file + " position 0: the header names cache " + in.getInt(12)
                    + " partition " + in.getInt(16) + " checkpoint " + in.getLong(20) + "; the manifest expects cache "
                    + cacheId + " partition " + partition + " checkpoint " + number);
        }
        long expected = in.getLong(28);
        long entries = 0;
        int at = CheckpointFormat.PARTITION_HEADER;
        while (true) {
            if (data.length - at < CheckpointFormat.BLOCK_HEADER) {
                throw new CheckpointCorruptedException(file + " position " + at + ": the file ends inside a block"
                        + " header (" + (data.length - at) + " bytes left); the file is truncated");
            }
            int length = in.getInt(at);
            int count = in.getInt(at + 4);
            if (length < 0 || count < 0 || length > data.length - at - CheckpointFormat.BLOCK_HEADER) {
                throw new CheckpointCorruptedException(file + " position " + at + ": damaged block header (payload "
                        + length + " bytes, " + count + " entries, " + (data.length - at - CheckpointFormat.BLOCK_HEADER)
                        + " bytes left in the file)");
            }
            CRC32C crc = new CRC32C();
            crc.update(data, at, 8);
            crc.update(data, at + CheckpointFormat.BLOCK_HEADER, length);
            int stored = in.getInt(at + 8);
            if (stored != (int) crc.getValue()) {
                throw new CheckpointCorruptedException(file + " position " + at + ": the block of " + length
                        + " bytes fails its CRC32C check (stored " + Integer.toHexString(stored) + ", computed "
                        + Integer.toHexString((int) crc.getValue()) + "); recovery stops rather than skip entries");
            }
            if (count == 0) {
                break;
            }
            EntryBatch batch = new EntryBatch(data, at + CheckpointFormat.BLOCK_HEADER, length, count);
            try {
                batch.checkStructure();
            } catch (RuntimeException e) {
                throw new CheckpointCorruptedException(file + " position " + at + ": the block's entries are malformed: "
                        + e.getMessage(), e);
            }
            blocks.accept(batch);
            entries += count;
            at += CheckpointFormat.BLOCK_HEADER + length;
        }
        if (entries != expected) {
            throw new CheckpointCorruptedException(file + ": the header says " + expected + " entries, the blocks hold "
                    + entries);
        }
        return entries;
    }

    private static void writeFully(FileChannel out, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            out.write(b);
        }
    }

    private static int intAt(byte[] a, int at) {
        return (a[at] & 0xFF) << 24 | (a[at + 1] & 0xFF) << 16 | (a[at + 2] & 0xFF) << 8 | (a[at + 3] & 0xFF);
    }
}
