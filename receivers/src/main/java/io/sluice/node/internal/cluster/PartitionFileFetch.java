package io.sluice.node.internal.cluster;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.sluice.protocol.internal.ClusterMap;
import io.sluice.protocol.internal.ErrorKind;
import io.sluice.protocol.internal.Frames;
import io.sluice.protocol.internal.Op;
import io.sluice.protocol.internal.Wire;

import javax.net.ssl.SSLContext;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.zip.CRC32C;

/**
 * The demander's side of a partition moved as its file (PARTITION_FILE, layout in {@link PartitionFileWire}): a
 * connection of its own to the supplier (the cluster's token and TLS, as {@link PeerConnections}; not the connection
 * replication shares), one request, the chunks written to the file given as they come, each chunk's CRC32C and the
 * whole file's checked, then the file fsynced (on a persistent node). Blocking, on the caller's thread; a supplier
 * silent for {@link #READ_TIMEOUT} fails it. Thread-safe (each fetch has its own connection).
 */
final class PartitionFileFetch {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PartitionFileFetch.class);

    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** How long the supplier may be silent: writing a large partition's image comes before its header. */
    static final Duration READ_TIMEOUT = Duration.ofSeconds(60);

    /** What the supplier refused or failed to send (an error answer, not a broken connection). */
    static final class Refused extends IOException {
        final ErrorKind kind;

        Refused(ErrorKind kind, String message) {
            super(message);
            this.kind = kind;
        }
    }

    /** A fetch given up because the caller said so. */
    static final class Cancelled extends IOException {
        Cancelled() {
            super("the fetch was cancelled");
        }
    }

    private final String self;
    private final PeerAccess access;
    private final MoveStats stats;
    private final int chunkSize;
    /** Whether a file received is fsynced: on a persistent node (in memory the file is loaded, then deleted). */
    private final boolean sync;
    private volatile SSLContext tls;

    PartitionFileFetch(String self, PeerAccess access, MoveStats stats, int chunkSize, boolean sync) {
        this.self = self;
        this.access = access;
        this.stats = stats;
        this.chunkSize = chunkSize;
        this.sync = sync;
    }

    /**
     * Fetches the cache's partition from the member into {@code file} (created or truncated), checked and (on a
     * persistent node) fsynced.
     *
     * @param inSyncOnly ask for a copy in sync (a replica other than the partition's last owner)
     * @return the answer's header
     * @throws Refused   if the member answered an error (kind 1: it has no such cache)
     * @throws Cancelled if {@code cancelled} said so between chunks
     * @throws IOException if the connection failed, the member was silent too long, a check failed, or the file
     *                     could not be written (the file is then left for the caller to delete)
     */
    PartitionFileWire.Header fetch(ClusterMap.Member from, String cache, int partition, boolean inSyncOnly,
                                   Path file, BooleanSupplier cancelled) throws IOException {
        long t0 = System.nanoTime();
        try (Socket socket = connect(from)) {
            socket.setSoTimeout((int) READ_TIMEOUT.toMillis());
            OutputStream out = socket.getOutputStream();
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 64 << 10));
            send(out, Frames.handshake(ByteBufAllocator.DEFAULT, Wire.VERSION, "sluice-node " + self + " (transfer)",
                    access.token()));
            long connected = System.nanoTime();
            Frames.HandshakeReply reply = Frames.readHandshakeReply(Unpooled.wrappedBuffer(frame(in)));
            long handshaken = System.nanoTime();
            if (reply.status() != Wire.HANDSHAKE_OK) {
                throw new Refused(ErrorKind.ILLEGAL_STATE, "member '" + from.id() + "' refused the handshake: "
                        + reply.message());
            }
            send(out, Frames.request(ByteBufAllocator.DEFAULT, Op.PARTITION_FILE,
                    new PartitionFileWire.Request(cache, partition, chunkSize, inSyncOnly)::write));
            ByteBuf answer = Unpooled.wrappedBuffer(frame(in));
            answer.readLong(); // the request id: one request on this connection
            if (answer.readUnsignedByte() != Wire.STATUS_OK) {
                ErrorKind kind = ErrorKind.of(answer.readUnsignedByte());
                throw new Refused(kind, "member '" + from.id() + "' refused cache '" + cache + "' partition "
                        + partition + " as a file (" + kind + "): " + Wire.readString(answer, "message"));
            }
            PartitionFileWire.Header header = PartitionFileWire.Header.read(answer);
            long t1 = System.nanoTime();
            receive(in, header, from, partition, file, cancelled);
            LOG.debug("partition {} of cache '{}' from '{}': header after {} ms (connected {} ms, handshake {} ms),"
                    + " {} chunks received, checked and synced in {} ms", partition, cache, from.id(),
                    (t1 - t0) / 1_000_000, (connected - t0) / 1_000_000, (handshaken - connected) / 1_000_000,
                    header.chunks(), (System.nanoTime() - t1) / 1_000_000);
            return header;
        }
    }

    private void receive(DataInputStream in, PartitionFileWire.Header header, ClusterMap.Member from, int partition,
                         Path file, BooleanSupplier cancelled) throws IOException {
        MoveStats.Transfer transfer = stats.transferStarted(partition, from.id(), true, header.length());
        boolean ok = false;
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            byte[] chunk = new byte[header.chunkSize()];
            CRC32C whole = new CRC32C();
            CRC32C one = new CRC32C();
            for (int i = 0; i < header.chunks(); i++) {
                if (cancelled.getAsBoolean()) {
                    throw new Cancelled();
                }
                int n = header.chunkLength(i);
                int length = in.readInt();
                int index = in.readInt();
                int crc = in.readInt();
                if (length != PartitionFileWire.CHUNK_HEAD - 4 + n || index != i) {
                    throw new IOException("member '" + from.id() + "' sent chunk " + index + " of length " + length
                            + " where chunk " + i + " of " + n + " bytes was due");
                }
                in.readFully(chunk, 0, n);
                one.reset();
                one.update(chunk, 0, n);
                if ((int) one.getValue() != crc) {
                    throw new IOException("chunk " + i + " of the partition file from member '" + from.id()
                            + "' fails its CRC32C check (sent " + Integer.toHexString(crc) + ", computed "
                            + Integer.toHexString((int) one.getValue()) + ")");
                }
                whole.update(chunk, 0, n);
                ByteBuffer b = ByteBuffer.wrap(chunk, 0, n);
                while (b.hasRemaining()) {
                    out.write(b);
                }
                transfer.progressed(n);
            }
            if ((int) whole.getValue() != header.fileCrc()) {
                throw new IOException("the partition file from member '" + from.id() + "' fails its CRC32C check"
                        + " (sent " + Integer.toHexString(header.fileCrc()) + ", computed "
                        + Integer.toHexString((int) whole.getValue()) + ")");
            }
            if (sync) {
                out.force(true);
            }
            ok = true;
        } catch (EOFException e) {
            throw new IOException("member '" + from.id() + "' ended the partition file's stream early", e);
        } finally {
            transfer.ended(ok);
        }
    }

    private Socket connect(ClusterMap.Member from) throws IOException {
        SSLContext c = null;
        if (access.tls()) {
            c = tls;
            if (c == null) {
                c = MemberTls.trusting(access.trustedCertificates());
                tls = c;
            }
        }
        return MemberTls.connect(from.host(), from.port(), (int) CONNECT_TIMEOUT.toMillis(), c);
    }

    private static void send(OutputStream out, ByteBuf frame) throws IOException {
        try {
            frame.readBytes(out, frame.readableBytes());
            out.flush();
        } finally {
            frame.release();
        }
    }

    /** One frame's bytes after its length. */
    private static byte[] frame(DataInputStream in) throws IOException {
        int length = in.readInt();
        if (length < 1 || length > Wire.DEFAULT_MAX_FRAME) {
            throw new IOException("a frame of " + length + " bytes");
        }
        byte[] b = new byte[length];
        in.readFully(b);
        return b;
    }
}
