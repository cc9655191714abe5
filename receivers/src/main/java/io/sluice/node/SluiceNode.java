package io.sluice.node;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.Sluice;
import io.sluice.StreamerOptions;
import io.sluice.binary.Binary;

import java.util.List;
import java.util.Objects;
import java.util.ServiceLoader;

/**
 * A Sluice node in this JVM: caches in off-heap page memory, the receivers that apply streamed
 * batches, and the {@link Sluice} API over them — the same interface a remote client gives.
 *
 * <pre>{@code
 * try (SluiceNode node = SluiceNode.start(NodeConfig.defaults())) {
 *     node.createCache(CacheConfig.named("orders"));
 *     try (DataStreamer<Long, BinaryObject> streamer = node.dataStreamer("orders")) {
 *         streamer.addData(1L, order);
 *     }
 *     long n = node.cache("orders").size();
 * }
 * }</pre>
 *
 * <p>Streamed batches are applied by {@link NodeConfig#applyThreads()} stripe threads: partition
 * {@code p} always by thread {@code p % applyThreads}, so a partition's batches are applied one at
 * a time, in the order they arrived. Thread-safe.
 */
public final class SluiceNode implements Sluice {

    private final NodeRuntime engine;

    private SluiceNode(NodeRuntime engine) {
        this.engine = engine;
    }

    /** The node's engine starter, found once (see {@link NodeRuntime}). */
    private static final class Engines {
        static final NodeRuntime.Starter STARTER = ServiceLoader.load(NodeRuntime.Starter.class,
                SluiceNode.class.getClassLoader()).findFirst().orElseThrow(() -> new IllegalStateException(
                "no " + NodeRuntime.Starter.class.getName() + " service on the class path: the node's jar"
                        + " (sluice-receivers) registers one in META-INF/services"));
    }

    /**
     * Starts a node: reserves its data region and starts its apply threads.
     *
     * @throws NullPointerException if config is null
     * @throws IllegalArgumentException if the config has a cluster ({@link NodeConfig#cluster()}: only the node
     *         process joins one)
     * @throws IllegalStateException if a custom receiver's or processor's factory throws or returns null
     */
    public static SluiceNode start(NodeConfig config) {
        requireStandalone(config);
        return new SluiceNode(Engines.STARTER.start(config));
    }

    /**
     * Starts a node whose meters (entries and batches applied, entry bytes, errors by kind, queued tasks
     * per apply thread; docs/metrics.md) are registered in the registry until the node closes. One node
     * per registry: a second node's meters would be the first's.
     *
     * @throws NullPointerException if config or registry is null
     * @throws IllegalArgumentException if the config has a cluster ({@link NodeConfig#cluster()}: only the node
     *         process joins one)
     * @throws IllegalStateException if a custom receiver's or processor's factory throws or returns null
     */
    public static SluiceNode start(NodeConfig config, MeterRegistry registry) {
        requireStandalone(config);
        Objects.requireNonNull(registry, "registry");
        return new SluiceNode(Engines.STARTER.start(config, registry));
    }

    /** An embedded node serves no port the other members and the clients could reach: it cannot be a member. */
    private static void requireStandalone(NodeConfig config) {
        Objects.requireNonNull(config, "config");
        if (config.cluster().isPresent()) {
            throw new IllegalArgumentException("an embedded node does not join a cluster (NodeConfig.cluster is "
                    + config.cluster().get() + "); run the node process, java -jar sluice-node.jar --config"
                    + " node.json, with \"cluster\" in its file (docs/cluster.md)");
        }
    }

    /** This node's id: the one node a streamer's affinity maps every partition to. */
    public String id() {
        return engine.id();
    }

    /** The config the node was started with. */
    public NodeConfig config() {
        return engine.config();
    }

    /** Pages of the data region in use by trees and rows. @throws IllegalStateException if closed */
    public long usedPages() {
        return engine.usedPages();
    }

    /** The names of the caches. */
    public List<String> cacheNames() {
        return engine.cacheNames();
    }

    @Override
    public <K, V> Cache<K, V> createCache(CacheConfig config) {
        return engine.createCache(config);
    }

    @Override
    public <K, V> Cache<K, V> getOrCreateCache(CacheConfig config) {
        return engine.getOrCreateCache(config);
    }

    @Override
    public <K, V> Cache<K, V> cache(String name) {
        return engine.cache(name);
    }

    @Override
    public boolean destroyCache(String name) {
        return engine.destroyCache(name);
    }

    @Override
    public <K, V> DataStreamer<K, V> dataStreamer(String cacheName) {
        return engine.dataStreamer(cacheName);
    }

    @Override
    public <K, V> DataStreamer<K, V> dataStreamer(String cacheName, StreamerOptions options) {
        return engine.dataStreamer(cacheName, options);
    }

    @Override
    public Binary binary() {
        return engine.binary();
    }

    /**
     * Closes every streamer this node created (flushing it), lets the apply threads finish the
     * batches queued (at most 30 seconds, then abandons the rest: their futures fail), and frees the
     * data region. Calling it again has no effect.
     *
     * @throws io.sluice.StreamerException if flushing a streamer failed; the node is closed anyway
     * @throws IllegalStateException if called by a receiver (on an apply thread): it would wait for itself
     */
    @Override
    public void close() {
        engine.close();
    }

    @Override
    public String toString() {
        return "SluiceNode{" + engine + '}';
    }
}
