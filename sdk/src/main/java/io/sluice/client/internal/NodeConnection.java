package io.sluice.client.internal;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.sluice.NodeUnreachableException;
import io.sluice.SluiceException;
import io.sluice.protocol.internal.ErrorKind;
import io.sluice.protocol.internal.Frames;
import io.sluice.protocol.internal.Wire;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * One TCP connection to a node, after a successful handshake: sends request frames (any number in
 * flight: pipelining), matches each answer to its request by id, and completes the request's future
 * with the decoded body or the node's error. Every request ends: answered, failed by the node, timed
 * out ({@link ClientSettings#requestTimeout()}), or failed with {@link NodeUnreachableException} when the
 * connection is lost. Futures complete on the connection's event loop.
 */
final class NodeConnection {

    private final Address address;
    private final ClientSettings config;
    private final Channel channel;
    private final String nodeId;
    private final AtomicLong ids = new AtomicLong();
    private final ConcurrentHashMap<Long, Pending<?>> pending = new ConcurrentHashMap<>();
    /** The client's type metadata version last sent on this connection. */
    volatile long typesSent = -1;

    private NodeConnection(Address address, ClientSettings config, Channel channel, String nodeId) {
        this.address = address;
        this.config = config;
        this.channel = channel;
        this.nodeId = nodeId;
    }

    /**
     * Connects and shakes hands, within {@link ClientSettings#connectTimeout()}.
     *
     * @throws ConnectionLostException if the connection is refused or lost, or the node serves its maximum of
     *         connections (the caller may try again)
     * @throws NodeUnreachableException if the node cannot be reached in time, requires TLS of a plain client,
     *         or the TLS handshake fails
     * @throws SluiceException if the node refuses the handshake (protocol version, token)
     */
    static NodeConnection open(Address address, ClientSettings config, EventLoopGroup group, ClientTls tls) {
        CompletableFuture<Frames.HandshakeReply> reply = new CompletableFuture<>();
        Responses responses = new Responses(reply);
        Bootstrap bootstrap = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.min(Integer.MAX_VALUE,
                        config.connectTimeout().toMillis()))
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (tls != null) {
                            ch.pipeline().addLast("tls", tls.newHandler(ch.alloc(), address.host(), address.port()));
                        }
                        ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(config.maxFrameSize(), 0,
                                Wire.LENGTH_FIELD, 0, Wire.LENGTH_FIELD), responses);
                    }
                });
        Channel channel;
        try {
            channel = bootstrap.connect(address.host(), address.port()).syncUninterruptibly().channel();
        } catch (Exception e) {
            throw new ConnectionLostException("cannot connect to the node at " + address + ": " + e, e);
        }
        Frames.HandshakeReply hs;
        try {
            channel.writeAndFlush(Frames.handshake(channel.alloc(), Wire.VERSION, config.clientName(), config.token()));
            hs = reply.get(config.connectTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            channel.close();
            throw new NodeUnreachableException("the node at " + address + " did not answer the handshake within "
                    + config.connectTimeout() + " (ClientConfig.connectTimeout)");
        } catch (ExecutionException e) {
            channel.close();
            if (e.getCause() instanceof ConnectionLostException lost) {
                throw new ConnectionLostException("the handshake with the node at " + address + " failed: "
                        + lost.getMessage() + (tls != null ? "" : " before answering (a node that requires TLS does"
                        + " so with a plain TCP client: enable TLS with ClientConfig.builder().tls(...))"), lost);
            }
            Throwable cause = e.getCause();
            throw new NodeUnreachableException("the handshake with the node at " + address + " failed: "
                    + (cause instanceof SluiceException ? cause.getMessage() : cause.toString()), cause);
        } catch (InterruptedException e) {
            channel.close();
            Thread.currentThread().interrupt();
            throw new NodeUnreachableException("interrupted while connecting to the node at " + address);
        }
        if (hs.status() != Wire.HANDSHAKE_OK) {
            channel.close();
            throw refused(address, hs);
        }
        NodeConnection connection = new NodeConnection(address, config, channel, hs.nodeId());
        responses.connection = connection;
        channel.closeFuture().addListener(f -> connection.failAll());
        return connection;
    }

    /**
     * The error of a refused handshake: a node at its connection limit may free one (retried, like a lost
     * connection); a node requiring TLS, another protocol version or a wrong token will not (not retried).
     */
    private static SluiceException refused(Address address, Frames.HandshakeReply hs) {
        return switch (hs.status()) {
            case Wire.HANDSHAKE_BUSY -> new ConnectionLostException("the node at " + address
                    + " closed the connection: " + hs.message());
            case Wire.HANDSHAKE_TLS_REQUIRED -> new NodeUnreachableException("the node at " + address
                    + " requires TLS and this client spoke plain TCP: enable TLS with"
                    + " ClientConfig.builder().tls(nodeCertificatePem), or .tls() to trust the JVM's trust store");
            default -> new SluiceException("the node at " + address + " refused the connection: " + hs.message());
        };
    }

    String nodeId() {
        return nodeId;
    }

    Address address() {
        return address;
    }

    boolean isOpen() {
        return channel.isActive();
    }

    io.netty.buffer.ByteBufAllocator alloc() {
        return channel.alloc();
    }

    /**
     * Sends a request frame (made by {@link Frames#request} or a codec; its id is set here) and
     * returns the future of its decoded answer.
     *
     * @param decoder   reads the answer's body (on the event loop; it must not block)
     * @param cacheName the cache the request names, for the error a missing cache gives; or null
     */
    <T> CompletableFuture<T> call(ByteBuf frame, Function<ByteBuf, T> decoder, String cacheName) {
        long id = ids.incrementAndGet();
        frame.setLong(Frames.REQUEST_ID_OFFSET, id);
        Pending<T> p = new Pending<>(decoder, cacheName);
        pending.put(id, p);
        if (!channel.isActive()) {
            pending.remove(id);
            frame.release();
            p.future.completeExceptionally(lost());
            return p.future;
        }
        channel.writeAndFlush(frame).addListener(f -> {
            if (!f.isSuccess() && pending.remove(id) != null) {
                p.future.completeExceptionally(new ConnectionLostException("cannot send to the node " + nodeId
                        + " at " + address + ": " + f.cause(), f.cause()));
            }
        });
        long timeout = config.requestTimeout().toMillis();
        channel.eventLoop().schedule(() -> {
            if (pending.remove(id) != null) {
                p.future.completeExceptionally(new NodeUnreachableException("the node " + nodeId + " at " + address
                        + " did not answer within " + config.requestTimeout() + " (ClientConfig.requestTimeout)"));
            }
        }, timeout, TimeUnit.MILLISECONDS);
        return p.future;
    }

    private NodeUnreachableException lost() {
        return new ConnectionLostException("the connection to the node " + nodeId + " at " + address
                + " is closed; requests in flight may or may not have been applied");
    }

    private void failAll() {
        for (Long id : pending.keySet()) {
            Pending<?> p = pending.remove(id);
            if (p != null) {
                p.future.completeExceptionally(lost());
            }
        }
    }

    void close() {
        channel.close().syncUninterruptibly();
    }

    private void answer(ByteBuf frame) {
        Wire.need(frame, Wire.HEADER, "response header");
        long id = frame.readLong();
        int status = frame.readUnsignedByte();
        Pending<?> p = pending.remove(id);
        if (p == null) {
            return; // timed out already
        }
        p.complete(status, frame);
    }

    /** A request waiting for its answer. */
    private static final class Pending<T> {
        final CompletableFuture<T> future = new CompletableFuture<>();
        final Function<ByteBuf, T> decoder;
        final String cacheName;

        Pending(Function<ByteBuf, T> decoder, String cacheName) {
            this.decoder = decoder;
            this.cacheName = cacheName;
        }

        void complete(int status, ByteBuf body) {
            try {
                if (status == Wire.STATUS_OK) {
                    future.complete(decoder.apply(body));
                } else {
                    ErrorKind kind = ErrorKind.of(Wire.readByte(body, "error kind"));
                    future.completeExceptionally(kind.toException(Wire.readString(body, "error message"), cacheName));
                }
            } catch (RuntimeException e) {
                future.completeExceptionally(e);
            }
        }
    }

    /** The inbound end of the pipeline: the handshake reply first, then answers. */
    private static final class Responses extends ChannelInboundHandlerAdapter {
        private final CompletableFuture<Frames.HandshakeReply> handshake;
        volatile NodeConnection connection;

        Responses(CompletableFuture<Frames.HandshakeReply> handshake) {
            this.handshake = handshake;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf frame = (ByteBuf) msg;
            try {
                if (!handshake.isDone()) {
                    handshake.complete(Frames.readHandshakeReply(frame));
                } else {
                    NodeConnection c = connection;
                    if (c != null) {
                        c.answer(frame);
                    }
                }
            } finally {
                frame.release();
            }
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
            // A node closing the connection during the TLS handshake (one without TLS does) is no lost
            // connection to retry but a TLS failure: said before channelInactive would say "closed".
            if (evt instanceof SslHandshakeCompletionEvent done && !done.isSuccess()) {
                Throwable cause = done.cause();
                boolean closed = cause instanceof java.nio.channels.ClosedChannelException
                        || String.valueOf(cause.getMessage()).contains("closed");
                handshake.completeExceptionally(new NodeUnreachableException("the TLS handshake failed: " + cause
                        + (closed ? " (the node closed the connection: a node without TLS does so with a client that"
                        + " has ClientConfig.builder().tls(...))" : ""), cause));
            }
            ctx.fireUserEventTriggered(evt);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            handshake.completeExceptionally(new ConnectionLostException("the node closed the connection"));
            ctx.fireChannelInactive();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            // A TLS failure arrives wrapped in a DecoderException: report what the TLS layer said.
            Throwable reported = cause instanceof io.netty.handler.codec.DecoderException && cause.getCause() != null
                    ? cause.getCause() : cause;
            // A connection reset or broken before the node answered is a lost connection, retried as one (a node
            // restarting on its port resets the connections its old socket had accepted); a TLS failure is not.
            if (reported instanceof java.io.IOException && !(reported instanceof javax.net.ssl.SSLException)) {
                reported = new ConnectionLostException("the connection was lost: " + reported, reported);
            }
            handshake.completeExceptionally(reported);
            ctx.close();
        }
    }
}
