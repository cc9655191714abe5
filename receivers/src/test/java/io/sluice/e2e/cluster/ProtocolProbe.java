package io.sluice.e2e.cluster;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.sluice.protocol.internal.ClusterMap;
import io.sluice.protocol.internal.Frames;
import io.sluice.protocol.internal.Op;
import io.sluice.protocol.internal.Wire;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * Asks one node a question over the wire protocol, apart from the client under test: CLUSTER_MAP (the map as that
 * node knows it) and NODE_STATUS (its status JSON). One blocking connection per question, bounded by a 10 s timeout,
 * so that a test's view of the cluster does not depend on the client's routing it checks.
 */
final class ProtocolProbe {

    private static final int TIMEOUT_MS = 10_000;

    private ProtocolProbe() {
    }

    /** The node's map, or null if it says it is standalone. @throws IOException if it cannot be asked */
    static ClusterMap map(String address) throws IOException {
        ByteBuf body = ask(address, Op.CLUSTER_MAP);
        return ClusterMap.read(body);
    }

    /** The node's NODE_STATUS answer (JSON). @throws IOException if it cannot be asked */
    static String status(String address) throws IOException {
        ByteBuf body = ask(address, Op.NODE_STATUS);
        return Wire.readString(body, "status");
    }

    private static ByteBuf ask(String address, Op op) throws IOException {
        int colon = address.lastIndexOf(':');
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(address.substring(0, colon),
                    Integer.parseInt(address.substring(colon + 1))), TIMEOUT_MS);
            socket.setSoTimeout(TIMEOUT_MS);
            OutputStream out = socket.getOutputStream();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            send(out, Frames.handshake(ByteBufAllocator.DEFAULT, Wire.VERSION, "cluster-test-probe", ""));
            Frames.HandshakeReply reply = Frames.readHandshakeReply(readFrame(in));
            if (reply.status() != 0) {
                throw new IOException(address + " refused the handshake: " + reply.message());
            }
            ByteBuf request = Frames.request(ByteBufAllocator.DEFAULT, op, b -> { });
            request.setLong(Frames.REQUEST_ID_OFFSET, 1);
            send(out, request);
            ByteBuf response = readFrame(in);
            response.readLong(); // request id
            if (response.readUnsignedByte() != 0) {
                int kind = response.readUnsignedByte();
                throw new IOException(address + " answered " + op + " with error kind " + kind + ": "
                        + Wire.readString(response, "message"));
            }
            return response;
        }
    }

    private static void send(OutputStream out, ByteBuf frame) throws IOException {
        try {
            byte[] bytes = new byte[frame.readableBytes()];
            frame.readBytes(bytes);
            out.write(bytes);
            out.flush();
        } finally {
            frame.release();
        }
    }

    private static ByteBuf readFrame(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length < 1 || length > 64 << 20) {
            throw new IOException("a frame of " + length + " bytes");
        }
        byte[] bytes = new byte[length];
        in.readFully(bytes);
        return Unpooled.wrappedBuffer(bytes);
    }
}
