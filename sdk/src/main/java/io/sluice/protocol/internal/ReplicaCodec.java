package io.sluice.protocol.internal;

import io.netty.buffer.ByteBuf;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The bodies of REPLICATE (op 20), REPLICA_FOLLOW (21) and REPLICA_SYNCED (22): how a partition's primary sends its
 * applied writes to the members that back it (issue 27). A record is encoded once, when the primary's journal sees
 * the write, and the same bytes go to every backup.
 *
 * <p>REPLICATE request:
 * <pre>
 * | size | field                                                                        |
 * |------|------------------------------------------------------------------------------|
 * | 2+n  | string: the primary's node id                                                |
 * | 8    | int64 stream id (a new one each time the primary restarts its stream to this member) |
 * | 8    | int64 sequence of the first record (the stream's records are numbered 1, 2, ...)  |
 * | 4    | int32 record count                                                           |
 * | ...  | records                                                                      |
 * </pre>
 * One record:
 * <pre>
 * | size | field                                                                        |
 * |------|------------------------------------------------------------------------------|
 * | 4    | int32 partition                                                              |
 * | 8    | int64 epoch of the primary for the partition                                 |
 * | 2+n  | string: cache name                                                           |
 * | 1    | u8 mode: 0 insert-if-absent, 1 upsert                                        |
 * | 1    | u8 flags: bit 0 partial (the batch failed part way on the primary), bit 1 skipStore |
 * | 4    | int32 entry count                                                            |
 * | 4    | int32 byte length L                                                          |
 * | L    | the entries (EntryBatch layout), as the primary applied and logged them      |
 * </pre>
 * The answer: {@code int32} n, n × ({@code int32} partition, {@code u8} error kind): the partitions whose records
 * the backup refused (12 stale epoch, 13 not following); the others were applied (and are durable per the
 * backup's WAL mode) when the answer is sent.
 */
public final class ReplicaCodec {

    public static final int MODE_INSERT_IF_ABSENT = 0;
    public static final int MODE_UPSERT = 1;
    public static final int FLAG_PARTIAL = 1;
    public static final int FLAG_SKIP_STORE = 2;
    /** Bytes of a record besides its cache name and entries. */
    private static final int RECORD_FIXED = 4 + 8 + 2 + 1 + 1 + 4 + 4;

    private ReplicaCodec() {
    }

    /** One decoded record; its entries lie in the received body's array. */
    public record Record(int partition, long epoch, String cache, int mode, int flags, EntryBatch entries) {
        public boolean partial() {
            return (flags & FLAG_PARTIAL) != 0;
        }

        public boolean skipStore() {
            return (flags & FLAG_SKIP_STORE) != 0;
        }
    }

    /** A decoded REPLICATE request. */
    public record Frame(String primary, long streamId, long firstSequence, List<Record> records) {
    }

    /** A partition whose records a backup refused, and why (STALE_EPOCH or NOT_FOLLOWING). */
    public record Refusal(int partition, ErrorKind kind) {
    }

    /** Encodes one record into a new array (the bytes every backup's stream shares). */
    public static byte[] record(int partition, long epoch, byte[] cacheUtf8, int mode, int flags, int count,
                                byte[] entries, int offset, int length) {
        byte[] out = new byte[RECORD_FIXED + cacheUtf8.length + length];
        ByteBuffer b = ByteBuffer.wrap(out);
        b.putInt(partition).putLong(epoch).putShort((short) cacheUtf8.length).put(cacheUtf8)
                .put((byte) mode).put((byte) flags).putInt(count).putInt(length).put(entries, offset, length);
        return out;
    }

    /** A cache name as records carry it. @throws IllegalArgumentException past 65,535 UTF-8 bytes */
    public static byte[] cacheName(String cache) {
        byte[] utf8 = cache.getBytes(StandardCharsets.UTF_8);
        if (utf8.length > 0xFFFF) {
            throw new IllegalArgumentException("cache name of " + utf8.length + " bytes");
        }
        return utf8;
    }

    /** Writes a REPLICATE body: the header, then the records as they were encoded. */
    public static void writeFrame(ByteBuf out, String primary, long streamId, long firstSequence,
                                  List<byte[]> records) {
        Wire.writeString(out, primary);
        out.writeLong(streamId);
        out.writeLong(firstSequence);
        out.writeInt(records.size());
        for (byte[] r : records) {
            out.writeBytes(r);
        }
    }

    /**
     * Reads a REPLICATE body, copying it once into an array the records' entries point into.
     *
     * @throws Wire.MalformedFrameException if it does not follow the layout
     */
    public static Frame readFrame(ByteBuf in) {
        String primary = Wire.readString(in, "primary id");
        long streamId = Wire.readLong(in, "stream id");
        long first = Wire.readLong(in, "first sequence");
        int n = Wire.readCount(in, RECORD_FIXED, "record");
        byte[] body = new byte[in.readableBytes()];
        in.readBytes(body);
        ByteBuffer b = ByteBuffer.wrap(body);
        List<Record> records = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            need(b, 4 + 8 + 2, "record");
            int partition = b.getInt();
            long epoch = b.getLong();
            int nameLength = b.getShort() & 0xFFFF;
            need(b, nameLength + 10, "record's cache name");
            String cache = new String(body, b.position(), nameLength, StandardCharsets.UTF_8);
            b.position(b.position() + nameLength);
            int mode = b.get() & 0xFF;
            int flags = b.get() & 0xFF;
            int count = b.getInt();
            int length = b.getInt();
            if (mode > MODE_UPSERT || count < 0 || length < 0 || length > b.remaining()) {
                throw new Wire.MalformedFrameException("record " + i + ": mode " + mode + ", " + count
                        + " entries in " + length + " bytes, " + b.remaining() + " left");
            }
            records.add(new Record(partition, epoch, cache, mode, flags,
                    new EntryBatch(body, b.position(), length, count)));
            b.position(b.position() + length);
        }
        if (b.hasRemaining()) {
            throw new Wire.MalformedFrameException(b.remaining() + " bytes after the last record");
        }
        return new Frame(primary, streamId, first, records);
    }

    /** Writes REPLICATE's answer. */
    public static void writeRefusals(ByteBuf out, List<Refusal> refusals) {
        out.writeInt(refusals.size());
        for (Refusal r : refusals) {
            out.writeInt(r.partition());
            out.writeByte(r.kind().code);
        }
    }

    /** Reads REPLICATE's answer. */
    public static List<Refusal> readRefusals(ByteBuf in) {
        int n = Wire.readCount(in, 5, "refusal");
        List<Refusal> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(new Refusal(in.readInt(), ErrorKind.of(in.readUnsignedByte())));
        }
        return out;
    }

    private static void need(ByteBuffer b, int n, String what) {
        if (b.remaining() < n) {
            throw new Wire.MalformedFrameException(what + " needs " + n + " bytes but the frame has "
                    + b.remaining() + " left");
        }
    }
}
