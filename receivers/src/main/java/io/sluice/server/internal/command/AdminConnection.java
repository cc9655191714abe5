package io.sluice.server.internal.command;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.sluice.client.internal.Address;
import io.sluice.node.internal.cluster.MemberTls;
import io.sluice.protocol.internal.ClusterMap;
import io.sluice.protocol.internal.ErrorKind;
import io.sluice.protocol.internal.Frames;
import io.sluice.protocol.internal.Op;
import io.sluice.protocol.internal.Wire;

import javax.net.ssl.SSLContext;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.time.Duration;

/**
 * One blocking connection to a node for the admin commands: the handshake, then one request at a time, each
 * answered before the next is sent (a status read is a handful of small frames: no event loop, no pipelining).
 * Frames as in {@code docs/protocol.md}, built and read with the SDK's codec. Not thread-safe.
 */
final class AdminConnection implements AutoCloseable {

    /** The longest answer read: a map of 32,767 partitions and its members is far below it. */
    private static final int MAX_ANSWER = 4 << 20;

    private final Address address;
    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final String nodeId;
    private long nextId = 1;

    private AdminConnection(Address address, Socket socket, String nodeId) throws IOException {
        this.address = address;
        this.socket = socket;
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
        this.nodeId = nodeId;
    }

    /**
     * Connects and shakes hands; every read waits at most {@code timeout}.
     *
     * @param tls a TLS context ({@link MemberTls#trusting}) for a node with TLS, or null for plain TCP
     * @throws IOException naming the address if it cannot connect, the node refuses the handshake, or it does not
     *         answer in time
     */
    static AdminConnection open(Address address, String token, Duration timeout, SSLContext tls) throws IOException {
        int millis = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
        Socket socket;
        try {
            socket = MemberTls.connect(address.host(), address.port(), millis, tls);
        } catch (IOException | RuntimeException e) {
            throw new IOException("cannot reach the node at " + address + (tls == null ? "" : " through TLS") + ": "
                    + e, e);
        }
        try {
            socket.setSoTimeout(millis);
            write(socket.getOutputStream(), Frames.handshake(UnpooledByteBufAllocator.DEFAULT, Wire.VERSION, "sluice-node-admin",
                    token));
            ByteBuf reply = read(new DataInputStream(socket.getInputStream()), address);
            Frames.HandshakeReply hs;
            try {
                hs = Frames.readHandshakeReply(reply);
            } catch (Wire.MalformedFrameException e) {
                throw new IOException(address + " is not a Sluice node: " + e.getMessage(), e);
            }
            if (hs.status() != Wire.HANDSHAKE_OK) {
                throw new IOException("the node at " + address + " refused the handshake (status " + hs.status()
                        + "): " + hs.message());
            }
            return new AdminConnection(address, socket, hs.nodeId());
        } catch (IOException e) {
            socket.close();
            if (e.getMessage() != null && e.getMessage().contains(address.toString())) {
                throw e;
            }
            throw new IOException("cannot reach the node at " + address + ": " + e, e);
        } catch (RuntimeException e) {
            socket.close();
            throw new IOException("cannot reach the node at " + address + ": " + e, e);
        }
    }

    /** The id the node gave in its handshake. */
    String nodeId() {
        return nodeId;
    }

    Address address() {
        return address;
    }

    /**
     * The node's partition map (CLUSTER_MAP).
     *
     * @return the map, or null if the node is standalone
     * @throws IOException if the connection fails or the node answers with an error
     */
    ClusterMap clusterMap() throws IOException {
        ByteBuf body = call(Op.CLUSTER_MAP);
        try {
            return ClusterMap.read(body);
        } catch (Wire.MalformedFrameException e) {
            throw new IOException("the node at " + address + " sent a malformed map: " + e.getMessage(), e);
        }
    }

    /**
     * The node's status document (NODE_STATUS): a JSON object.
     *
     * @throws IOException if the connection fails or the node answers with an error
     */
    String status() throws IOException {
        ByteBuf body = call(Op.NODE_STATUS);
        try {
            return Wire.readString(body, "status");
        } catch (Wire.MalformedFrameException e) {
            throw new IOException("the node at " + address + " sent a malformed status: " + e.getMessage(), e);
        }
    }

    /** Sends a request with an empty body and returns its answer's body. */
    private ByteBuf call(Op op) throws IOException {
        long id = nextId++;
        ByteBuf request = Frames.request(UnpooledByteBufAllocator.DEFAULT, op, b -> { });
        request.setLong(Frames.REQUEST_ID_OFFSET, id);
        write(out, request);
        ByteBuf answer = read(in, address);
        if (answer.readableBytes() < Wire.HEADER - Wire.LENGTH_FIELD || answer.readLong() != id) {
            throw new IOException("the node at " + address + " answered " + op + " out of turn");
        }
        int status = answer.readUnsignedByte();
        if (status != Wire.STATUS_OK) {
            int kind = answer.isReadable() ? answer.readUnsignedByte() : ErrorKind.INTERNAL.code;
            String message;
            try {
                message = Wire.readString(answer, "message");
            } catch (Wire.MalformedFrameException e) {
                message = "(no message)";
            }
            ErrorKind k = ErrorKind.of(kind);
            throw new IOException("the node at " + address + " answered " + op + " with an error ("
                    + k + "): " + message
                    + (k == ErrorKind.MALFORMED_REQUEST ? " (a node older than the cluster does not know " + op + ")"
                    : ""));
        }
        return answer;
    }

    private static void write(OutputStream out, ByteBuf frame) throws IOException {
        byte[] bytes = new byte[frame.readableBytes()];
        frame.readBytes(bytes);
        out.write(bytes);
        out.flush();
    }

    /** One frame, its length prefix stripped. */
    private static ByteBuf read(DataInputStream in, Address address) throws IOException {
        int length = in.readInt();
        if (length < 0 || length > MAX_ANSWER) {
            throw new IOException("the node at " + address + " sent a frame of " + length + " bytes");
        }
        byte[] frame = new byte[length];
        in.readFully(frame);
        return Unpooled.wrappedBuffer(frame);
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closing: nothing left to do with it
        }
    }
}
