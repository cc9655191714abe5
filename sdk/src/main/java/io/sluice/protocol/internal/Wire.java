package io.sluice.protocol.internal;

import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;

/**
 * The wire protocol's constants and its field encodings (big-endian, as Netty writes). The byte
 * layout is documented in {@code docs/protocol.md}, whose vectors a test checks against this code.
 * <pre>
 * frame:            int32 length L (of what follows, 1 .. max frame size), L bytes of payload
 * handshake:        u32 magic "SLCE", u16 version, string client name, string token (may be empty)
 * handshake reply:  u32 magic, u16 version, u8 status, string message, string node id
 *                   (status 0 ok, 1 version mismatch, 2 not authorized, 3 malformed, 4 busy, 5 TLS required)
 * request:          int64 request id, u8 op, body
 * response:         int64 request id, u8 status (0 ok, 1 error), body (ok) or u8 error kind + string (error)
 * string:           u16 byte length, UTF-8 bytes
 * blob:             int32 byte length, bytes
 * </pre>
 */
public final class Wire {

    /** "SLCE": the first four bytes of a handshake and of its reply. */
    public static final int MAGIC = 0x534C4345;
    /** The protocol version this code speaks. */
    public static final int VERSION = 1;
    /** Bytes of a frame's length prefix. */
    public static final int LENGTH_FIELD = 4;
    /** Bytes of a request's or response's header: request id and op or status. */
    public static final int HEADER = 9;
    /** Frames larger than this are refused unless configured otherwise: 64 MiB plus room for headers. */
    public static final int DEFAULT_MAX_FRAME = 64 * 1024 * 1024 + 64 * 1024;

    /** Handshake reply statuses. */
    public static final int HANDSHAKE_OK = 0;
    public static final int HANDSHAKE_VERSION_MISMATCH = 1;
    public static final int HANDSHAKE_NOT_AUTHORIZED = 2;
    public static final int HANDSHAKE_MALFORMED = 3;
    /** The node serves {@code maxConnections} connections already; sent before it closes the new one. */
    public static final int HANDSHAKE_BUSY = 4;
    /** The node listens with TLS and the client spoke plain TCP; sent in plain TCP before the node closes. */
    public static final int HANDSHAKE_TLS_REQUIRED = 5;

    /** Response statuses. */
    public static final int STATUS_OK = 0;
    public static final int STATUS_ERROR = 1;

    private Wire() {
    }

    /** Writes a string: u16 byte length, then UTF-8. @throws IllegalArgumentException past 65,535 bytes */
    public static void writeString(ByteBuf out, String s) {
        byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
        if (utf8.length > 0xFFFF) {
            throw new IllegalArgumentException("string of " + utf8.length + " UTF-8 bytes is longer than the"
                    + " protocol's 65,535: " + s.substring(0, 40) + "...");
        }
        out.writeShort(utf8.length);
        out.writeBytes(utf8);
    }

    /** Reads a string. @throws MalformedFrameException if it runs past the frame */
    public static String readString(ByteBuf in, String what) {
        int n = readableShort(in, what);
        need(in, n, what);
        String s = in.toString(in.readerIndex(), n, StandardCharsets.UTF_8);
        in.skipBytes(n);
        return s;
    }

    /** Writes a blob: int32 length, then the bytes. */
    public static void writeBlob(ByteBuf out, byte[] bytes, int offset, int length) {
        out.writeInt(length);
        out.writeBytes(bytes, offset, length);
    }

    /** Reads a blob into a new array. @throws MalformedFrameException if its length is negative or runs past the frame */
    public static byte[] readBlob(ByteBuf in, String what) {
        int n = readLength(in, what);
        byte[] bytes = new byte[n];
        in.readBytes(bytes);
        return bytes;
    }

    /**
     * Reads a length (int32) and checks it against what the frame still holds — never trusting it
     * before allocating.
     */
    public static int readLength(ByteBuf in, String what) {
        need(in, 4, what);
        int n = in.readInt();
        if (n < 0 || n > in.readableBytes()) {
            throw new MalformedFrameException(what + " claims " + n + " bytes but the frame has "
                    + in.readableBytes() + " left");
        }
        return n;
    }

    /** Reads a count (int32) of items of at least {@code minItemBytes} each, checked against the frame. */
    public static int readCount(ByteBuf in, int minItemBytes, String what) {
        need(in, 4, what);
        int n = in.readInt();
        if (n < 0 || (long) n * minItemBytes > in.readableBytes()) {
            throw new MalformedFrameException(what + " count " + n + " cannot fit in the " + in.readableBytes()
                    + " bytes left in the frame");
        }
        return n;
    }

    public static int readInt(ByteBuf in, String what) {
        need(in, 4, what);
        return in.readInt();
    }

    public static long readLong(ByteBuf in, String what) {
        need(in, 8, what);
        return in.readLong();
    }

    public static int readByte(ByteBuf in, String what) {
        need(in, 1, what);
        return in.readUnsignedByte();
    }

    private static int readableShort(ByteBuf in, String what) {
        need(in, 2, what);
        return in.readUnsignedShort();
    }

    /** @throws MalformedFrameException unless n more bytes are in the frame */
    public static void need(ByteBuf in, int n, String what) {
        if (in.readableBytes() < n) {
            throw new MalformedFrameException(what + " needs " + n + " bytes but the frame has "
                    + in.readableBytes() + " left");
        }
    }

    /** A frame whose bytes do not follow the protocol: its connection is closed. */
    public static final class MalformedFrameException extends RuntimeException {
        public MalformedFrameException(String message) {
            super(message);
        }
    }
}
