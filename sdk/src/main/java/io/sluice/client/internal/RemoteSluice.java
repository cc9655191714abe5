package io.sluice.client.internal;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.protocol.internal.CacheCreateWire;
import io.sluice.protocol.internal.CacheOptionsWire;
import io.sluice.DataStreamer;
import io.sluice.Sluice;
import io.sluice.StreamerOptions;
import io.sluice.binary.Binary;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.protocol.internal.Frames;
import io.sluice.protocol.internal.Op;
import io.sluice.protocol.internal.Wire;
import io.sluice.streamer.internal.StreamerRegistry;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@link Sluice} over TCP: caches and streamers of remote nodes, with the client's own binary
 * context (its type metadata is sent to a node before any request that may carry objects of new
 * types). The streamer is the same code as in-JVM, over {@link ClientTransport}.
 */
public final class RemoteSluice implements Sluice {

    private final BinaryContext binary = new BinaryContext();
    private final Nodes nodes;
    private final Routing routing;
    private final ClientTransport transport;
    private final StreamerRegistry streamers;
    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * Connects to every configured node that answers.
     *
     * @throws io.sluice.NodeUnreachableException if none can be reached
     */
    public RemoteSluice(ClientSettings config) {
        this.nodes = new Nodes(Objects.requireNonNull(config, "config"), binary);
        try {
            this.routing = new Routing(nodes, config);
        } catch (RuntimeException e) {
            nodes.close();
            throw e;
        }
        this.transport = new ClientTransport(nodes, routing, config.maxFrameSize());
        this.streamers = new StreamerRegistry(transport, binary, "the client");
    }

    @Override
    public <K, V> Cache<K, V> createCache(CacheConfig config) {
        return create(config, false);
    }

    @Override
    public <K, V> Cache<K, V> getOrCreateCache(CacheConfig config) {
        return create(config, true);
    }

    private <K, V> Cache<K, V> create(CacheConfig config, boolean ifAbsent) {
        Objects.requireNonNull(config, "config");
        ensureOpen();
        java.util.function.Function<String, java.util.concurrent.CompletableFuture<Integer>> create = node ->
                nodes.call(node, false, c -> Frames.request(c.alloc(), Op.CREATE_CACHE, out -> {
                    Wire.writeString(out, config.name());
                    out.writeInt(config.partitions());
                    CacheCreateWire.writeTail(out, config, ifAbsent);
                }), body -> Wire.readInt(body, "partitions"), config.name());
        int partitions = 0;
        if (routing.clustered()) {
            partitions = routing.callAny(create); // the cluster's catalogue has it on every node
        } else {
            for (String node : nodes.ids()) {
                partitions = nodes.await(create.apply(node));
            }
        }
        return new RemoteCache<>(config.name(), partitions, nodes, routing, binary, false, scansBackups(
                CacheOptionsWire.Options.of(config)));
    }

    /** Whether a cache's scans may read from backups: it has backups and asks for reads from them. */
    private static boolean scansBackups(CacheOptionsWire.Options options) {
        return options.readFromBackup() && options.backups() > 0;
    }

    /**
     * Destroys the cache on every node (in a cluster: through one node, the catalogue being cluster-wide); true if
     * any had it.
     */
    @Override
    public boolean destroyCache(String name) {
        Objects.requireNonNull(name, "name");
        ensureOpen();
        java.util.function.Function<String, java.util.concurrent.CompletableFuture<Boolean>> destroy = node ->
                nodes.call(node, false,
                        c -> Frames.request(c.alloc(), Op.DESTROY_CACHE, out -> Wire.writeString(out, name)),
                        body -> Wire.readByte(body, "existed") != 0, name);
        if (routing.clustered()) {
            return routing.callAny(destroy); // the cluster's catalogue: every node drops it
        }
        boolean existed = false;
        for (String node : nodes.ids()) {
            existed |= nodes.await(destroy.apply(node));
        }
        return existed;
    }

    @Override
    public <K, V> Cache<K, V> cache(String name) {
        Objects.requireNonNull(name, "name");
        ensureOpen();
        ClientTransport.CacheShape shape = transport.shape(name);
        return new RemoteCache<>(name, shape.partitions(), nodes, routing, binary, false,
                scansBackups(shape.options()));
    }

    /**
     * The union of every node's cache names (CACHE_NAMES), each name once, in the order the nodes gave them; in a
     * cluster one node's (the catalogue is cluster-wide).
     */
    @Override
    public java.util.List<String> cacheNames() {
        ensureOpen();
        java.util.function.Function<String, java.util.concurrent.CompletableFuture<java.util.List<String>>> ask =
                node -> nodes.call(node, false, c -> Frames.request(c.alloc(), Op.CACHE_NAMES, out -> { }),
                        io.sluice.protocol.internal.CacheNamesCodec::read, null);
        if (routing.clustered()) {
            return java.util.List.copyOf(routing.callAny(ask)); // the catalogue is cluster-wide
        }
        java.util.Set<String> names = new java.util.LinkedHashSet<>();
        for (String node : nodes.ids()) {
            names.addAll(nodes.await(ask.apply(node)));
        }
        return java.util.List.copyOf(names);
    }

    @Override
    public <K, V> DataStreamer<K, V> dataStreamer(String cacheName) {
        return dataStreamer(cacheName, StreamerOptions.DEFAULT);
    }

    /**
     * {@inheritDoc}
     *
     * <p>A streamer opened while {@link #close()} runs is either closed by it or refused.
     *
     * @throws IllegalStateException if the client is closed or closing
     */
    @Override
    public <K, V> DataStreamer<K, V> dataStreamer(String cacheName, StreamerOptions options) {
        Objects.requireNonNull(cacheName, "cacheName");
        Objects.requireNonNull(options, "options");
        ensureOpen();
        return streamers.open(cacheName, options);
    }

    @Override
    public Binary binary() {
        return binary;
    }

    /**
     * Closes every streamer this client made (flushing it), then the connections. Idempotent.
     *
     * @throws io.sluice.StreamerException if flushing a streamer failed; the client is closed anyway
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        RuntimeException failure = streamers.closeAll();
        routing.close();
        nodes.close();
        if (failure != null) {
            throw failure;
        }
    }

    private void ensureOpen() {
        if (closed.get()) {
            throw new IllegalStateException("the client is closed");
        }
    }

    @Override
    public String toString() {
        return "RemoteSluice{nodes=" + nodes.ids() + '}';
    }
}
