package io.sluice.server.internal;

import io.micrometer.core.instrument.Meter;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.sluice.node.internal.NodeEngine;
import io.sluice.node.internal.NodeMetrics;
import io.sluice.node.internal.cluster.ClusterView;

import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Serves a node to remote clients over TCP. A connection's pipeline reads as the protocol does:
 * on a TLS port {@link PlainTcpOnTlsPort} and the TLS handler, then {@link ReceivedBytes} (counts what is read), {@link FrameReader} (frames, each into a pooled buffer of its own,
 * refusing oversized ones), {@link HandshakeHandler} (the first frame; nothing else is served before it
 * succeeds), {@link RequestHandler} (requests, pipelined, answered as they complete). A connection over
 * {@code maxConnections} gets {@link OverConnectionLimit} instead, which says so and closes it. Connections,
 * bytes and errors are counted in the node's {@link NodeMetrics}. Streamed batches go to the node's
 * apply threads; other operations to a small pool; no handler blocks an event loop. Frames are read
 * into pooled heap buffers whose bytes the store copies into its pages directly: receiving a batch
 * allocates nothing once the pool has warmed up.
 */
public final class SluiceServer implements AutoCloseable {

    /** Threads for operations other than streaming (gets, puts, scans, size): short, and off the event loops. */
    private static final int OP_THREADS = 2;
    /** Names of the event-loop threads that read and write client connections start with this. */
    public static final String IO_THREAD_PREFIX = "sluice-server-io";

    private final NodeEngine node;
    private final ServerConfig config;
    /** Null when TLS is off. */
    private final io.netty.handler.ssl.SslContext tls;
    private final EventLoopGroup boss;
    private final EventLoopGroup workers;
    private final ExecutorService ops;
    private final ChannelGroup connections = new DefaultChannelGroup("sluice-connections", GlobalEventExecutor.INSTANCE);
    private final AtomicInteger open = new AtomicInteger();
    private final Channel listener;
    private final ReceivedBytes receivedBytes;
    private final PooledByteBufAllocator buffers;
    private final Meter buffersGauge;
    private final FramePool frames;
    private final PartitionGate gate;
    private volatile boolean stopping;

    private SluiceServer(NodeEngine node, ServerConfig config, ClusterView cluster) {
        this.node = node;
        this.config = config;
        this.gate = new PartitionGate(cluster, node.metrics());
        this.receivedBytes = new ReceivedBytes(node.metrics());
        this.tls = config.tls() == null ? null : config.tls().serverContext(); // a bad key store fails the start
        this.boss = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("sluice-server-accept"),
                NioIoHandler.newFactory());
        this.workers = new MultiThreadIoEventLoopGroup(Math.max(1, Runtime.getRuntime().availableProcessors() / 2),
                new DefaultThreadFactory(IO_THREAD_PREFIX), NioIoHandler.newFactory());
        AtomicInteger opThread = new AtomicInteger();
        this.ops = Executors.newFixedThreadPool(OP_THREADS, r -> {
            Thread t = new Thread(r, "sluice-ops-" + opThread.getAndIncrement());
            t.setDaemon(true);
            return t;
        });
        // Frames are read into arrays of the frame pool (a batch is then an array the store copies from);
        // socket reads and answers are short-lived pooled direct buffers.
        this.buffers = new PooledByteBufAllocator(true);
        this.frames = new FramePool(buffers);
        this.buffersGauge = node.metrics().serverBuffers(() -> buffers.metric().usedDirectMemory()
                + buffers.metric().usedHeapMemory());
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(boss, workers)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 256)
                .childOption(ChannelOption.ALLOCATOR, buffers)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        accept(ch);
                    }
                });
        try {
            this.listener = bootstrap.bind(config.host(), config.port()).syncUninterruptibly().channel();
        } catch (RuntimeException e) {
            shutdownThreads();
            throw new IllegalStateException("cannot listen on " + config.host() + ":" + config.port() + ": " + e, e);
        }
    }

    /**
     * Starts serving the node.
     *
     * @throws IllegalStateException if the address cannot be bound
     */
    public static SluiceServer start(NodeEngine node, ServerConfig config) {
        return new SluiceServer(node, config, null);
    }

    /**
     * Starts serving a cluster member: each request is served only for partitions the view says this node serves
     * (others answer error kind NOT_OWNER), and CLUSTER_MAP answers the view's map. A null view is a standalone
     * node, as {@link #start(NodeEngine, ServerConfig)}.
     *
     * @throws IllegalStateException if the address cannot be bound
     */
    public static SluiceServer start(NodeEngine node, ServerConfig config, ClusterView cluster) {
        return new SluiceServer(node, config, cluster);
    }

    private void accept(SocketChannel ch) {
        if (stopping) {
            ch.close();
            return;
        }
        if (open.incrementAndGet() > config.maxConnections()) {
            open.decrementAndGet();
            addTls(ch);
            ch.pipeline().addLast("refused", new OverConnectionLimit(node.id(), config.maxConnections()));
            return;
        }
        NodeMetrics metrics = node.metrics();
        metrics.connectionOpened();
        ch.closeFuture().addListener(f -> {
            open.decrementAndGet();
            metrics.connectionClosed();
        });
        connections.add(ch);
        addTls(ch);
        ch.pipeline().addLast("received", receivedBytes);
        if (!config.idleTimeout().isZero()) {
            ch.pipeline().addLast(new IdleStateHandler(0, 0, config.idleTimeout().toMillis(), TimeUnit.MILLISECONDS));
        }
        ch.pipeline().addLast("frames", new FrameReader(frames, buffers, config.maxFrameSize()));
        ch.pipeline().addLast("handshake", new HandshakeHandler(node.id(), config.token(),
                new RequestHandler(node, ops, config.maxQueuedBytes(), gate, () -> stopping), metrics));
    }

    /** On a TLS port: a plain-TCP client is answered in plain TCP and closed, a TLS one goes through TLS. */
    private void addTls(SocketChannel ch) {
        if (tls != null) {
            ch.pipeline().addLast("plain-tcp", new PlainTcpOnTlsPort(node.id(), node.metrics()));
            ch.pipeline().addLast("tls", tls.newHandler(ch.alloc()));
        }
    }

    /** The address the server listens on (the port chosen when 0 was asked for). */
    public InetSocketAddress address() {
        return (InetSocketAddress) listener.localAddress();
    }

    /**
     * Stops taking connections and requests; requests in flight finish (or fail with their cause)
     * as the node closes. Idempotent.
     */
    @Override
    public void close() {
        if (stopping) {
            return;
        }
        stopping = true;
        listener.close().syncUninterruptibly();
        // No new requests; answers to those in flight still go out. On each connection's event loop, after any change
        // of auto-read under way there: a connection's backpressure reads `stopping` and leaves it off from now on.
        for (Channel c : connections) {
            try {
                c.eventLoop().execute(() -> c.config().setAutoRead(false));
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // its event loop is shutting down: nothing more is read anyway
            }
        }
    }

    /** Closes every connection and the server's threads; call after the node's in-flight work ended. */
    public void closeConnections() {
        close();
        connections.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        shutdownThreads();
    }

    private void shutdownThreads() {
        node.metrics().remove(buffersGauge);
        ops.shutdown();
        boss.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        workers.shutdownGracefully(0, 2, TimeUnit.SECONDS);
    }
}
