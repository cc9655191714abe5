package io.sluice.protocol.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.sluice.ReceiverRef;

import java.util.ArrayList;
import java.util.List;

/**
 * The STREAM operation on the wire: a request of partition batches whose entry bytes are exactly
 * what the streamer buffered (written from the client's arrays without a copy, read on the node as
 * slices of the received frame), and its response of one outcome per batch.
 * <pre>
 * request body:  string cache, string receiver, u8 flags (bit 0 allowOverwrite, bit 1 skipStore),
 *                int32 batch count, per batch: int32 partition, int32 entry count, int32 byte length,
 *                the batch's entries ({@link EntryBatch} layout)
 * response body: int32 batch count, per batch: int32 applied, int32 failed, u8 has error,
 *                [u8 error kind, string message]
 * </pre>
 */
public final class StreamCodec {

    private static final int FLAG_ALLOW_OVERWRITE = 1;
    private static final int FLAG_SKIP_STORE = 2;
    private static final int BATCH_HEADER = 12;

    private StreamCodec() {
    }

    /** The whole frame of a STREAM request, length prefix included; the batches' arrays are wrapped, not copied. */
    public static ByteBuf encodeRequest(ByteBufAllocator alloc, long requestId, BatchRequest request) {
        List<BatchRequest.PartitionBatch> batches = request.batches();
        ByteBuf head = alloc.buffer(64);
        head.writeInt(0); // the frame length, set below
        head.writeLong(requestId).writeByte(Op.STREAM.code);
        Wire.writeString(head, request.cacheName());
        Wire.writeString(head, request.receiver().name());
        head.writeByte((request.allowOverwrite() ? FLAG_ALLOW_OVERWRITE : 0) | (request.skipStore() ? FLAG_SKIP_STORE : 0));
        head.writeInt(batches.size());
        CompositeByteBuf frame = alloc.compositeBuffer(1 + 2 * batches.size());
        long length = head.readableBytes() - Wire.LENGTH_FIELD;
        frame.addComponent(true, head);
        for (BatchRequest.PartitionBatch b : batches) {
            EntryBatch e = b.entries();
            ByteBuf batchHead = alloc.buffer(BATCH_HEADER);
            batchHead.writeInt(b.partition()).writeInt(e.size()).writeInt(e.length());
            frame.addComponent(true, batchHead);
            frame.addComponent(true, Unpooled.wrappedBuffer(e.data(), e.base(), e.length()));
            length += BATCH_HEADER + e.length();
        }
        if (length > Integer.MAX_VALUE) {
            frame.release();
            throw new IllegalArgumentException("a request of " + length + " bytes is larger than a frame can be");
        }
        frame.setInt(0, (int) length);
        return frame;
    }

    /** A decoded STREAM request; its batches point into the frame, which must stay retained until they are applied. */
    public record Request(String cacheName, ReceiverRef receiver, boolean allowOverwrite, boolean skipStore,
                          List<BatchRequest.PartitionBatch> batches) {

        public BatchRequest toBatchRequest() {
            return new BatchRequest(cacheName, receiver, allowOverwrite, skipStore, batches);
        }
    }

    /**
     * Reads a STREAM request body. Entry bytes are not copied when the frame has an accessible array;
     * their structure is checked by the caller before they are applied.
     *
     * @throws Wire.MalformedFrameException if the body does not follow the layout
     */
    public static Request decodeRequest(ByteBuf in) {
        String cache = Wire.readString(in, "cache name");
        String receiver = Wire.readString(in, "receiver name");
        if (cache.isBlank() || receiver.isBlank()) {
            throw new Wire.MalformedFrameException("STREAM request names a blank cache or receiver");
        }
        int flags = Wire.readByte(in, "flags");
        int n = Wire.readCount(in, BATCH_HEADER, "batch");
        List<BatchRequest.PartitionBatch> batches = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            // Labels are built only for an error: nothing is allocated per batch but the batch itself.
            if (in.readableBytes() < BATCH_HEADER) {
                throw new Wire.MalformedFrameException("batch " + i + " header needs " + BATCH_HEADER
                        + " bytes but the frame has " + in.readableBytes());
            }
            int partition = in.readInt();
            int count = in.readInt();
            int length = in.readInt();
            if (length < 0 || length > in.readableBytes()) {
                throw new Wire.MalformedFrameException("batch " + i + " claims " + length + " bytes but the frame has "
                        + in.readableBytes());
            }
            if (count < 0 || (long) count * (EntryBatch.ENTRY_HEADER + 1) > length) {
                throw new Wire.MalformedFrameException("batch " + i + " claims " + count + " entries in " + length
                        + " bytes");
            }
            EntryBatch entries;
            if (in.hasArray()) {
                entries = new EntryBatch(in.array(), in.arrayOffset() + in.readerIndex(), length, count);
            } else {
                byte[] copy = new byte[length];
                in.getBytes(in.readerIndex(), copy);
                entries = new EntryBatch(copy, 0, length, count);
            }
            in.skipBytes(length);
            batches.add(new BatchRequest.PartitionBatch(partition, entries));
        }
        if (in.isReadable()) {
            throw new Wire.MalformedFrameException("STREAM request has " + in.readableBytes()
                    + " bytes after its last batch");
        }
        return new Request(cache, new ReceiverRef(receiver), (flags & FLAG_ALLOW_OVERWRITE) != 0,
                (flags & FLAG_SKIP_STORE) != 0, batches);
    }

    /** Writes the outcomes of a STREAM request. */
    public static void encodeResponse(ByteBuf out, List<BatchOutcome> outcomes) {
        out.writeInt(outcomes.size());
        for (BatchOutcome o : outcomes) {
            out.writeInt(o.applied()).writeInt(o.failed());
            if (o.error() == null) {
                out.writeByte(0);
            } else {
                out.writeByte(1).writeByte(ErrorKind.of(o.error()).code);
                Wire.writeString(out, truncate(ErrorKind.messageOf(o.error())));
            }
        }
    }

    /** Reads the outcomes of a STREAM request; a batch's error becomes the exception the node reported. */
    public static List<BatchOutcome> decodeResponse(ByteBuf in, String cacheName) {
        int n = Wire.readCount(in, 9, "outcome");
        List<BatchOutcome> outcomes = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int applied = Wire.readInt(in, "applied");
            int failed = Wire.readInt(in, "failed");
            Throwable error = null;
            if (Wire.readByte(in, "has error") != 0) {
                ErrorKind kind = ErrorKind.of(Wire.readByte(in, "error kind"));
                error = kind.toException(Wire.readString(in, "error message"), cacheName);
            }
            outcomes.add(new BatchOutcome(applied, failed, error));
        }
        return outcomes;
    }

    /** Messages travel as protocol strings: at most 65,535 bytes; longer ones are cut (and say so). */
    public static String truncate(String message) {
        return message.length() > 16_000 ? message.substring(0, 16_000) + "... (truncated)" : message;
    }
}
