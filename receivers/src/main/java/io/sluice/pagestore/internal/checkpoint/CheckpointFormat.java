package io.sluice.pagestore.internal.checkpoint;

import java.util.zip.CRC32C;

/**
 * The byte layout of checkpoint files; all numbers big-endian. This class is the one definition of
 * these tables; {@code docs/durability.md} repeats them for readers.
 *
 * <p><b>Partition file</b> {@code part-c<cache id>-p<partition>-<checkpoint number, 16 digits>.dat}: one
 * partition's entries at a checkpoint, in key order, written by {@link PartitionFile}:
 * <pre>
 * offset  size  meaning
 * 0       8     magic "SLUICEPF"
 * 8       4     format version (2)
 * 12      4     cache id
 * 16      4     partition
 * 20      8     checkpoint number (as in the file name)
 * 28      8     entry count
 * 36      4     CRC32C of bytes 0..36
 * 40      ...   blocks, then an end block (B = 0, R = 0, C = 0)
 * </pre>
 * <b>Block</b> (a checkpoint page: whole entries, about {@value #BLOCK_BYTES} bytes before compression; one
 * larger entry makes a larger block):
 * <pre>
 * offset  size  meaning
 * 0       4     stored payload length B
 * 4       4     raw length R: bytes of the entries once inflated
 * 8       4     entries in the block C
 * 12      4     CRC32C of bytes 0..12 and of the stored payload (checked before inflating)
 * 16      B     the C entries in the EntryBatch layout (key length, value length, key, value; a stored row's
 *               byte stream as it is), compressed as raw DEFLATE (java.util.zip.Deflater, level 1, nowrap):
 *               a restart reads 5-6x fewer bytes, and reading, not applying, is what a restart waits for
 * </pre>
 *
 * <p><b>Manifest</b> {@code checkpoint.meta}: the last complete checkpoint (written as
 * {@code checkpoint.meta.tmp}, fsynced, renamed over the old one: the rename is the commit):
 * <pre>
 * offset  size  meaning
 * 0       8     magic "SLUICECP"
 * 8       4     format version (3; version 2, without cache options, and 1, without store attachments either,
 *               are still read)
 * 12      8     checkpoint number
 * 20      8     mark: the log position replay starts from
 * 28      4     next cache id
 * 32      4     T, then T bytes: the binary type registry (BinaryContext.exportTypes())
 * ..      4     cache count N, then N caches:
 *                 4 cache id, 4 partitions P, 2 name length U, U bytes name (UTF-8),
 *                 P x 8: checkpoint number of the partition's file (0: the partition was empty),
 *                 4 attachment length A (0: no store), A bytes: the cache's store attachment in the
 *                 CacheStoreWire layout (version 2 on),
 *                 4 options length O (0: the default options), O bytes: the cache's options in the
 *                 CacheOptionsWire layout (backups, write sync, reads from backups, indexes; version 3 on)
 * ..      4     CRC32C of every byte before
 * </pre>
 */
public final class CheckpointFormat {

    static final long PARTITION_MAGIC = 0x534C5549_43455046L; // "SLUICEPF"
    static final long MANIFEST_MAGIC = 0x534C5549_43454350L; // "SLUICECP"
    static final int VERSION = 3;
    /** The manifest version before store attachments: read, never written. */
    static final int VERSION_WITHOUT_STORES = 1;
    /** The first manifest version with cache options (version 2, with store attachments only, is still read). */
    static final int VERSION_WITH_OPTIONS = 3;
    static final int PARTITION_VERSION = 2;
    static final int PARTITION_HEADER = 40;
    static final int BLOCK_HEADER = 16;
    /** A block is closed once its payload reaches this size. */
    static final int BLOCK_BYTES = 64 << 10;
    static final String MANIFEST = "checkpoint.meta";
    static final String MANIFEST_TMP = "checkpoint.meta.tmp";

    private CheckpointFormat() {
    }

    /** The name of a partition's file written by checkpoint {@code number}. */
    static String partitionFileName(int cacheId, int partition, long number) {
        return String.format("part-c%d-p%d-%016d.dat", cacheId, partition, number);
    }

    /** Whether a file name is a partition file's. */
    static boolean isPartitionFile(String name) {
        return name.startsWith("part-c") && name.endsWith(".dat");
    }

    static int crc(byte[] data, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(data, offset, length);
        return (int) crc.getValue();
    }
}
