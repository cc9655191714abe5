package io.sluice.node.internal;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.CacheNotFoundException;
import io.sluice.DataStreamer;
import io.sluice.Sluice;
import io.sluice.StreamerOptions;
import io.sluice.binary.Binary;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.cachestore.internal.CacheStoreBridge;
import io.sluice.node.NodeConfig;
import io.sluice.protocol.internal.StreamerTransport;
import io.sluice.processor.internal.ProcessorRegistry;
import io.sluice.receiver.internal.ReceiverRegistry;
import io.sluice.store.internal.DataRegion;
import io.sluice.store.internal.DataRegionConfig;
import io.sluice.store.internal.PartitionStore;
import io.sluice.streamer.internal.Streamer;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The node itself: its data region, apply threads, caches, receivers and in-JVM transport.
 * {@link io.sluice.node.SluiceNode} is the public face of one; the node process and tests use it
 * directly (its {@link #transport()} is what a streamer and a network server hand batches to).
 *
 * <p>Streamed batches are applied by {@link NodeConfig#applyThreads()} stripe threads: partition
 * {@code p} always by thread {@code p % applyThreads}, so a partition's batches are applied one at
 * a time, in the order they arrived. Thread-safe.
 */
public final class NodeEngine implements Sluice {

    /** How long {@link #close()} lets the apply threads finish batches already queued. */
    private static final long STOP_TIMEOUT_SECONDS = 30;

    private final NodeConfig config;
    private final String id;
    private final BinaryContext binary;
    private final DataRegion region;
    private final StripedExecutor stripes;
    private final EmbeddedTransport transport;
    private final ProcessorRegistry processors;
    private final ConcurrentHashMap<String, NodeCache<Object, Object>> caches = new ConcurrentHashMap<>();
    private final Set<Streamer<?, ?>> streamers = ConcurrentHashMap.newKeySet();
    private final Object lifecycle = new Object();
    /** No new caches or streamers; streamers are being closed. */
    private volatile boolean closing;
    /** The region is freed: no cache operation may run. */
    private volatile boolean closed;

    /**
     * Starts a node: reserves its data region and starts its apply threads.
     *
     * @throws NullPointerException if config is null
     * @throws IllegalStateException if a custom receiver's or processor's factory throws or returns null
     */
    public NodeEngine(NodeConfig config) {
        Objects.requireNonNull(config, "config");
        this.config = config;
        this.id = "embedded-" + UUID.randomUUID();
        this.binary = new BinaryContext();
        this.processors = new ProcessorRegistry(config.processors(), config.applyThreads(), binary);
        ReceiverRegistry receivers = new ReceiverRegistry(config.receivers(), processors, config.applyThreads());
        this.region = new DataRegion(DataRegionConfig.of(config));
        try {
            this.stripes = new StripedExecutor(config.applyThreads(), "sluice-apply");
        } catch (RuntimeException | Error e) {
            region.close();
            throw e;
        }
        this.transport = new EmbeddedTransport(this, stripes, receivers);
    }

    /** The apply threads (caches run entry processors and async writes on them). */
    StripedExecutor stripes() {
        return stripes;
    }

    /** The node's binary context (its type registry and codec). */
    public BinaryContext binaryContext() {
        return binary;
    }

    /** The entry processors, built-in and custom. */
    ProcessorRegistry processors() {
        return processors;
    }

    /** This node's id (what {@link StreamerTransport#nodeIds()} lists). */
    public String id() {
        return id;
    }

    /** The config the node was started with. */
    public NodeConfig config() {
        return config;
    }

    /** The node's in-JVM transport, which its streamers use and a network server hands requests to. */
    public EmbeddedTransport transport() {
        return transport;
    }

    /** Pages of the data region in use by trees and rows. */
    public long usedPages() {
        ensureOpen();
        return region.usedPages();
    }

    @Override
    public <K, V> Cache<K, V> createCache(CacheConfig config) {
        Objects.requireNonNull(config, "config");
        synchronized (lifecycle) {
            ensureNotClosing();
            NodeCache<Object, Object> existing = caches.get(config.name());
            if (existing != null) {
                throw new IllegalStateException("cache '" + config.name() + "' already exists (with "
                        + existing.partitions() + " partitions); use Sluice.cache(name) or getOrCreateCache(config)");
            }
            return cast(newCache(config));
        }
    }

    @Override
    public <K, V> Cache<K, V> getOrCreateCache(CacheConfig config) {
        Objects.requireNonNull(config, "config");
        NodeCache<Object, Object> existing = caches.get(config.name());
        if (existing != null) {
            return cast(existing);
        }
        synchronized (lifecycle) {
            ensureNotClosing();
            existing = caches.get(config.name());
            return cast(existing != null ? existing : newCache(config));
        }
    }

    private NodeCache<Object, Object> newCache(CacheConfig config) {
        PartitionStore[] stores = new PartitionStore[config.partitions()];
        try {
            for (int p = 0; p < stores.length; p++) {
                stores[p] = region.createPartition();
            }
        } catch (RuntimeException e) {
            for (PartitionStore store : stores) {
                if (store != null) {
                    store.destroy();
                }
            }
            throw e;
        }
        CacheStoreBridge storeBridge = null;
        if (config.store() != null) {
            try {
                storeBridge = CacheStoreBridge.open(config.name(), config.store(), this.config.stores(), binary,
                        config.partitions());
            } catch (RuntimeException e) {
                for (PartitionStore store : stores) {
                    store.destroy();
                }
                throw e;
            }
        }
        NodeCache<Object, Object> cache = new NodeCache<>(this, config, stores, binary, false, storeBridge, false);
        caches.put(config.name(), cache);
        return cache;
    }

    @Override
    public <K, V> Cache<K, V> cache(String name) {
        return cast(nodeCache(name));
    }

    /** The cache of that name. @throws CacheNotFoundException if there is none */
    public NodeCache<Object, Object> nodeCache(String name) {
        Objects.requireNonNull(name, "name");
        ensureOpen();
        NodeCache<Object, Object> cache = caches.get(name);
        if (cache == null) {
            throw new CacheNotFoundException(name);
        }
        return cache;
    }

    @Override
    public <K, V> DataStreamer<K, V> dataStreamer(String cacheName) {
        return dataStreamer(cacheName, StreamerOptions.DEFAULT);
    }

    @Override
    public <K, V> DataStreamer<K, V> dataStreamer(String cacheName, StreamerOptions options) {
        Objects.requireNonNull(cacheName, "cacheName");
        Objects.requireNonNull(options, "options");
        ensureNotClosing();
        nodeCache(cacheName);
        // The streamer forgets itself when it closes; the reference is set before anything can close it.
        AtomicReference<Streamer<?, ?>> self = new AtomicReference<>();
        Streamer<K, V> streamer = new Streamer<>(cacheName, options, transport, binary,
                () -> streamers.remove(self.get()));
        self.set(streamer);
        streamers.add(streamer);
        if (closing) {
            // Raced with close(), which may have missed it.
            streamer.close(true);
            throw new IllegalStateException("node '" + id + "' is closing; no new streamers");
        }
        return streamer;
    }

    @Override
    public Binary binary() {
        return binary;
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
        if (stripes.isStripeThread()) {
            throw new IllegalStateException("node '" + id + "' cannot be closed from a receiver: close() waits for "
                    + "the apply threads, and this is one of them");
        }
        synchronized (lifecycle) {
            if (closing) {
                return;
            }
            closing = true;
        }
        RuntimeException failure = null;
        for (Streamer<?, ?> streamer : new ArrayList<>(streamers)) {
            try {
                streamer.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        stripes.stop(STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        // Write-behind drains into the stores before they close; nothing writes to memory any more.
        for (NodeCache<Object, Object> cache : caches.values()) {
            if (cache.storeBridge() != null) {
                try {
                    cache.storeBridge().close();
                } catch (RuntimeException e) {
                    if (failure == null) {
                        failure = e;
                    } else {
                        failure.addSuppressed(e);
                    }
                }
            }
        }
        closed = true;
        region.close();
        if (failure != null) {
            throw failure;
        }
    }

    /** @throws IllegalStateException if the node is closed */
    void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("node '" + id + "' is closed");
        }
    }

    private void ensureNotClosing() {
        if (closing) {
            throw new IllegalStateException("node '" + id + "' is closed");
        }
    }

    @SuppressWarnings("unchecked")
    private static <K, V> Cache<K, V> cast(NodeCache<Object, Object> cache) {
        return (Cache<K, V>) (Cache<?, ?>) cache;
    }

    /** The names of the caches. */
    public List<String> cacheNames() {
        return List.copyOf(caches.keySet());
    }

    @Override
    public String toString() {
        return "NodeEngine{id=" + id + ", caches=" + caches.keySet() + ", " + config + '}';
    }
}
