package io.sluice.pagestore.internal.wal;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The byte layout of the write-ahead log: segment files, each a header and then records back to back.
 * All numbers big-endian. This class is the one definition of both tables; {@code docs/durability.md}
 * repeats them for readers.
 *
 * <p><b>Segment file</b> {@code wal-NNNNNNNNNNNNNNNN.log} (N = the segment's number, 16 decimal digits,
 * from 1; a node always appends to a new segment after a start):
 * <pre>
 * offset  size  meaning
 * 0       8     magic "SLUICEWL"
 * 8       4     format version (1)
 * 12      8     segment number (as in the file name)
 * 20      8     log position of the segment's first record (bytes logged before it, over all segments)
 * 28      4     CRC32C of bytes 0..28
 * 32      ...   records
 * </pre>
 *
 * <p><b>Record</b>:
 * <pre>
 * offset  size  meaning
 * 0       4     body length L (bytes from offset 12)
 * 4       4     ~L (bitwise not of L: a damaged length is caught before it is trusted)
 * 8       4     CRC32C of the body
 * 12      1     record type: 1 TYPES, 2 CACHE, 3 BATCH, 4 DROP, 5 STORE, 6 OPTIONS, 7 ADOPT
 * 13      L-1   the type's fields, below
 * </pre>
 * <pre>
 * TYPES  (binary type metadata, logged whenever the node's registry grew since the last record)
 * 13      L-1   BinaryContext.exportTypes() bytes
 *
 * CACHE  (a cache was created)
 * 13      4     cache id (its number in this log, from 0)
 * 17      4     partitions
 * 21      L-9   cache name, UTF-8
 *
 * BATCH  (one store write: a streamed batch, a putAll share, or a single put / remove)
 * 13      1     mode: 0 INSERT_IF_ABSENT (isolated receiver, putIfAbsent), 1 UPSERT (batched receiver, put,
 *               remove, putAll, removeAll)
 * 14      1     flags: bit 0 PARTIAL (the batch failed part way when applied: a replay may fail the same way),
 *               bit 1 SKIP_STORE (a streamer's skipStore batch: recovery does not queue its keys for a store)
 * 15      4     cache id
 * 19      4     partition
 * 23      4     entry count C
 * 27      L-15  C entries in the EntryBatch layout (key length, value length or -1, key, value),
 *               exactly the bytes the batch carried
 *
 * DROP   (a cache was destroyed: replay destroys it, so a recovery does not bring it back)
 * 13      4     cache id
 *
 * STORE  (a cache was put in front of a store: created with one, or attached to one after a restart;
 *         recovery puts it in front of the same store again)
 * 13      4     cache id
 * 17      L-5   the attachment in the CacheStoreWire layout (store name, write mode, read-through,
 *               write-behind settings), the bytes a CREATE_CACHE request carries
 *
 * OPTIONS (a cache's options are now these: logged right after its CACHE record when some option is not its
 *          default, and whenever they change; a cache with no OPTIONS record has the defaults)
 * 13      4     cache id
 * 17      L-5   the options in the CacheOptionsWire layout (backups, write sync mode, reads from backups, the
 *               indexes with their ids), the bytes a CREATE_CACHE request carries
 *
 * ADOPT  (every entry of a partition was replaced by those of a partition file that came from another node;
 *         replay empties the partition and loads the file, which is kept until a checkpoint whose mark is past
 *         this record has committed)
 * 13      4     cache id
 * 17      4     partition
 * 21      L-9   the file's name in the moves directory ({@value #MOVES_DIRECTORY}/ under the log's directory),
 *               UTF-8; empty: the partition was left empty (an adoption whose file failed a check)
 * </pre>
 * A record never spans two segments. Replaying a BATCH record is {@code PartitionStore.applyBatch(entries,
 * mode)}: the same operation on the same bytes.
 */
public final class WalFormat {

    static final long MAGIC = 0x534C5549_4345574CL; // "SLUICEWL"
    static final int VERSION = 1;
    static final int SEGMENT_HEADER = 32;
    static final int RECORD_HEADER = 12;

    static final byte TYPES = 1;
    static final byte CACHE = 2;
    static final byte BATCH = 3;
    static final byte DROP = 4;
    static final byte STORE = 5;
    static final byte OPTIONS = 6;
    static final byte ADOPT = 7;

    /** Bytes of a BATCH body before its entries. */
    static final int BATCH_FIXED = 15;
    /** Bytes of a CACHE body before its name. */
    static final int CACHE_FIXED = 9;
    /** Bytes of an ADOPT body before its file name. */
    static final int ADOPT_FIXED = 9;

    /** The directory, under the log's, of partition files adopted from other nodes (and of those arriving). */
    public static final String MOVES_DIRECTORY = "moves";

    static final byte MODE_INSERT_IF_ABSENT = 0;
    static final byte MODE_UPSERT = 1;
    static final byte FLAG_PARTIAL = 1;
    static final byte FLAG_SKIP_STORE = 2;

    /** The largest record body: a batch or a row is at most 1 GiB. */
    static final int MAX_BODY = 1 << 30;

    private WalFormat() {
    }

    /** A segment's file name. */
    static String segmentName(long number) {
        return String.format("wal-%016d.log", number);
    }

    /** The segment number of a file name, or -1 if it does not name a segment. */
    static long segmentNumber(String fileName) {
        if (!fileName.startsWith("wal-") || !fileName.endsWith(".log") || fileName.length() != 24) {
            return -1;
        }
        try {
            return Long.parseLong(fileName.substring(4, 20));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** Writes a segment header at the buffer's position. */
    static void putSegmentHeader(ByteBuffer out, long number, long firstPosition) {
        int start = out.position();
        out.putLong(MAGIC).putInt(VERSION).putLong(number).putLong(firstPosition);
        CRC32C crc = new CRC32C();
        crc.update(out.duplicate().position(start).limit(start + 28));
        out.putInt((int) crc.getValue());
    }

    /** Writes a record header at the buffer's position. */
    static void putRecordHeader(ByteBuffer out, int bodyLength, int crc) {
        out.putInt(bodyLength).putInt(~bodyLength).putInt(crc);
    }
}
