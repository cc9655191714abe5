package io.sluice.server.internal;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.DefaultFileRegion;
import io.netty.handler.ssl.SslHandler;
import io.sluice.node.internal.cluster.OutgoingPartitionFile;
import io.sluice.node.internal.cluster.PartitionFileWire;
import io.sluice.protocol.internal.Frames;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Sends a prepared partition file (PARTITION_FILE, layout in {@link PartitionFileWire}) on its connection: the
 * header as the request's answer, then one chunk frame at a time, the next written when the connection has taken
 * the previous one and the node's send rate allows it (a task scheduled on the connection's event loop, which never
 * waits). Without TLS a chunk's bytes go from the file to the socket without passing through the JVM
 * ({@link DefaultFileRegion}, sendfile); through TLS they are read into a buffer to be encrypted. A connection that
 * fails or closes ends the send at once, also while its next chunk waits for the rate (at a low rate a chunk may wait
 * a minute: the demander that hung up must not keep the file that long, nor the rate it reserved); the file is
 * deleted either way. Runs on the connection's event loop.
 */
final class PartitionFileSend {

    private static final Logger LOG = LoggerFactory.getLogger(PartitionFileSend.class);

    private final Channel channel;
    private final OutgoingPartitionFile file;
    private final PartitionFileWire.Header header;
    private final boolean copy;
    private FileChannel reader;
    private int next;
    /** The next chunk's send, scheduled for when the rate allows it; null when none waits. */
    private ScheduledFuture<?> waiting;
    /** The bytes {@link #waiting} reserved of the rate. */
    private int waitingBytes;
    private boolean ended;

    private PartitionFileSend(Channel channel, OutgoingPartitionFile file) {
        this.channel = channel;
        this.file = file;
        this.header = file.header();
        this.copy = channel.pipeline().get(SslHandler.class) != null;
    }

    /** Starts sending the file as the answer to request {@code requestId}; returns at once. */
    static void start(Channel channel, long requestId, OutgoingPartitionFile file) {
        PartitionFileSend send = new PartitionFileSend(channel, file);
        channel.eventLoop().execute(() -> {
            channel.closeFuture().addListener(closed -> send.closed()); // runs on the event loop
            ChannelFuture f = channel.writeAndFlush(Frames.ok(channel.alloc(), requestId, send.header::write));
            f.addListener(done -> send.afterWrite(done.isSuccess(), 0, done.cause()));
        });
    }

    private void afterWrite(boolean ok, int bytes, Throwable cause) {
        if (ended) {
            return;
        }
        if (!ok) {
            end(false, cause);
            return;
        }
        if (bytes > 0) {
            file.sent(bytes);
        }
        if (next == header.chunks()) {
            end(true, null);
            return;
        }
        int n = header.chunkLength(next);
        long wait = file.reserve(n);
        if (wait > 0) {
            waitingBytes = n;
            waiting = channel.eventLoop().schedule(this::sendChunk, wait, TimeUnit.NANOSECONDS);
        } else {
            sendChunk();
        }
    }

    /** The connection closed: a chunk waiting for the rate gives its reservation back, and the send ends. */
    private void closed() {
        if (ended) {
            return;
        }
        if (waiting != null && waiting.cancel(false)) {
            file.unreserve(waitingBytes);
        }
        end(false, null);
    }

    private void sendChunk() {
        waiting = null;
        if (ended) {
            return;
        }
        if (!channel.isActive()) {
            end(false, null);
            return;
        }
        int index = next++;
        int n = header.chunkLength(index);
        long offset = (long) index * header.chunkSize();
        ByteBuf head = channel.alloc().buffer(PartitionFileWire.CHUNK_HEAD);
        head.writeInt(PartitionFileWire.CHUNK_HEAD - 4 + n).writeInt(index).writeInt(file.chunkCrc(index));
        Object body;
        try {
            body = copy ? read(offset, n) : new DefaultFileRegion(file.path().toFile(), offset, n);
        } catch (IOException e) {
            head.release();
            end(false, e);
            return;
        }
        channel.write(head);
        channel.writeAndFlush(body).addListener(done -> afterWrite(done.isSuccess(), n, done.cause()));
    }

    private ByteBuf read(long offset, int n) throws IOException {
        if (reader == null) {
            reader = FileChannel.open(file.path(), StandardOpenOption.READ);
        }
        ByteBuf buf = channel.alloc().buffer(n);
        try {
            while (buf.writerIndex() < n) {
                if (buf.writeBytes(reader, offset + buf.writerIndex(), n - buf.writerIndex()) < 0) {
                    throw new IOException(file.path() + " ends before byte " + (offset + n));
                }
            }
            return buf;
        } catch (IOException | RuntimeException e) {
            buf.release();
            throw e;
        }
    }

    private void end(boolean ok, Throwable cause) {
        if (ended) {
            return;
        }
        ended = true;
        if (reader != null) {
            try {
                reader.close();
            } catch (IOException ignored) {
                // the file is deleted next
            }
        }
        file.ended(ok);
        if (!ok) {
            LOG.info("sending {} to {} ended after {} of {} chunks: {}", file.path().getFileName(),
                    channel.remoteAddress(), next, header.chunks(), cause == null ? "the connection closed" : cause);
            channel.close(); // the receiver must see the stream end short
        }
    }
}
