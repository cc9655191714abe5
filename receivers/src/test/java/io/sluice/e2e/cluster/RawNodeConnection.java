package io.sluice.e2e.cluster;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.protocol.internal.Frames;
import io.sluice.protocol.internal.Op;
import io.sluice.protocol.internal.Wire;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * One connection to one node, apart from the client's routing: it sends PUT requests to that node whatever the map
 * says, and reads the node's answers as they are (ok, or the error kind). The paused-primary test uses it to see
 * what a primary that lost its partitions answers. Reads wait at most 60 s.
 */
final class RawNodeConnection implements AutoCloseable {

    /** A node's answer to one request: ok, or an error kind and message. */
    record Answer(long requestId, boolean ok, int errorKind, String message) {
        @Override
        public String toString() {
            return ok ? "ok" : "error kind " + errorKind + ": " + message;
        }
    }

    private final Socket socket;
    private final OutputStream out;
    private final DataInputStream in;
    private final BinaryContext codec = new BinaryContext();
    private long nextId = 1;

    private RawNodeConnection(Socket socket) throws IOException {
        this.socket = socket;
        this.out = socket.getOutputStream();
        this.in = new DataInputStream(socket.getInputStream());
    }

    /** Connects and shakes hands. @throws IOException if the node cannot be reached or refuses */
    static RawNodeConnection open(String address) throws IOException {
        int colon = address.lastIndexOf(':');
        Socket socket = new Socket();
        try {
            socket.connect(new InetSocketAddress(address.substring(0, colon),
                    Integer.parseInt(address.substring(colon + 1))), 10_000);
            socket.setSoTimeout(60_000);
            RawNodeConnection c = new RawNodeConnection(socket);
            c.send(Frames.handshake(ByteBufAllocator.DEFAULT, Wire.VERSION, "raw-put-probe", ""));
            Frames.HandshakeReply reply = Frames.readHandshakeReply(c.readFrame());
            if (reply.status() != 0) {
                throw new IOException(address + " refused the handshake: " + reply.message());
            }
            return c;
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    /** Sends PUT (key, value) for the cache without waiting for the answer. @return the request's id */
    long sendPut(String cache, long key, String value) throws IOException {
        byte[] k = encode(key);
        byte[] v = encode(value);
        long id = nextId++;
        ByteBuf request = Frames.request(ByteBufAllocator.DEFAULT, Op.PUT, b -> {
            Wire.writeString(b, cache);
            b.writeByte(0); // a put, not putIfAbsent
            Wire.writeBlob(b, k, 0, k.length);
            Wire.writeBlob(b, v, 0, v.length);
        });
        request.setLong(Frames.REQUEST_ID_OFFSET, id);
        send(request);
        return id;
    }

    /** Reads the next answer (blocking, at most 60 s). */
    Answer read() throws IOException {
        ByteBuf response = readFrame();
        long id = response.readLong();
        if (response.readUnsignedByte() == Wire.STATUS_OK) {
            return new Answer(id, true, -1, null);
        }
        int kind = response.readUnsignedByte();
        return new Answer(id, false, kind, Wire.readString(response, "message"));
    }

    private byte[] encode(Object o) {
        GrowableBuffer b = new GrowableBuffer(32);
        codec.encode(o, b);
        return b.toByteArray();
    }

    private void send(ByteBuf frame) throws IOException {
        try {
            byte[] bytes = new byte[frame.readableBytes()];
            frame.readBytes(bytes);
            out.write(bytes);
            out.flush();
        } finally {
            frame.release();
        }
    }

    private ByteBuf readFrame() throws IOException {
        int length = in.readInt();
        if (length < 1 || length > 64 << 20) {
            throw new IOException("a frame of " + length + " bytes");
        }
        byte[] bytes = new byte[length];
        in.readFully(bytes);
        return Unpooled.wrappedBuffer(bytes);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
