package io.sluice.protocol.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

import java.util.function.Consumer;

/** Builds whole frames: the length prefix, the request or response header, the body. */
public final class Frames {

    /** Where a request frame's id lies (after the length prefix); set by the connection that sends it. */
    public static final int REQUEST_ID_OFFSET = Wire.LENGTH_FIELD;

    private Frames() {
    }

    /** A request frame with request id 0 (the connection sets it) and the body the writer adds. */
    public static ByteBuf request(ByteBufAllocator alloc, Op op, Consumer<ByteBuf> body) {
        ByteBuf frame = alloc.buffer(64);
        frame.writeInt(0).writeLong(0).writeByte(op.code);
        body.accept(frame);
        frame.setInt(0, frame.readableBytes() - Wire.LENGTH_FIELD);
        return frame;
    }

    /** A successful response frame with the body the writer adds. */
    public static ByteBuf ok(ByteBufAllocator alloc, long requestId, Consumer<ByteBuf> body) {
        ByteBuf frame = alloc.buffer(64);
        try {
            frame.writeInt(0).writeLong(requestId).writeByte(Wire.STATUS_OK);
            body.accept(frame);
        } catch (RuntimeException | Error e) {
            frame.release(); // a body that cannot be written leaves no buffer behind
            throw e;
        }
        frame.setInt(0, frame.readableBytes() - Wire.LENGTH_FIELD);
        return frame;
    }

    /** An error response frame. */
    public static ByteBuf error(ByteBufAllocator alloc, long requestId, ErrorKind kind, String message) {
        ByteBuf frame = alloc.buffer(64);
        frame.writeInt(0).writeLong(requestId).writeByte(Wire.STATUS_ERROR).writeByte(kind.code);
        Wire.writeString(frame, StreamCodec.truncate(message));
        frame.setInt(0, frame.readableBytes() - Wire.LENGTH_FIELD);
        return frame;
    }

    /** The handshake frame a client sends first. */
    public static ByteBuf handshake(ByteBufAllocator alloc, int version, String clientName, String token) {
        ByteBuf frame = alloc.buffer(64);
        frame.writeInt(0).writeInt(Wire.MAGIC).writeShort(version);
        Wire.writeString(frame, clientName);
        Wire.writeString(frame, token == null ? "" : token);
        frame.setInt(0, frame.readableBytes() - Wire.LENGTH_FIELD);
        return frame;
    }

    /** The node's answer to a handshake. */
    public static ByteBuf handshakeReply(ByteBufAllocator alloc, int status, String message, String nodeId) {
        ByteBuf frame = alloc.buffer(64);
        frame.writeInt(0).writeInt(Wire.MAGIC).writeShort(Wire.VERSION).writeByte(status);
        Wire.writeString(frame, message);
        Wire.writeString(frame, nodeId);
        frame.setInt(0, frame.readableBytes() - Wire.LENGTH_FIELD);
        return frame;
    }

    /** A decoded handshake or handshake reply. */
    public record Handshake(int version, String clientName, String token) {
    }

    /**
     * Reads a handshake frame (its length prefix already stripped). A handshake of another version is
     * read only up to its version (a later version may lay out the rest otherwise): its client name and
     * token are then empty.
     *
     * @throws Wire.MalformedFrameException if it is not one, or (this version) the frame holds bytes after the token
     */
    public static Handshake readHandshake(ByteBuf in) {
        if (in.readableBytes() < 6 || in.readInt() != Wire.MAGIC) {
            throw new Wire.MalformedFrameException("the first frame is not a Sluice handshake (magic \"SLCE\")");
        }
        int version = in.readUnsignedShort();
        if (version != Wire.VERSION) {
            return new Handshake(version, "", "");
        }
        String name = Wire.readString(in, "client name");
        String token = Wire.readString(in, "token");
        if (in.isReadable()) {
            throw new Wire.MalformedFrameException("the handshake frame holds " + in.readableBytes()
                    + " bytes after its token: its length disagrees with its fields");
        }
        return new Handshake(version, name, token);
    }

    /** A decoded handshake reply. */
    public record HandshakeReply(int version, int status, String message, String nodeId) {
    }

    public static HandshakeReply readHandshakeReply(ByteBuf in) {
        if (in.readableBytes() < 7 || in.readInt() != Wire.MAGIC) {
            throw new Wire.MalformedFrameException("the node's first frame is not a Sluice handshake reply");
        }
        int version = in.readUnsignedShort();
        int status = in.readUnsignedByte();
        String message = Wire.readString(in, "message");
        String nodeId = Wire.readString(in, "node id");
        return new HandshakeReply(version, status, message, nodeId);
    }
}
