package io.sluice.node.internal;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.StreamerOptions;
import io.sluice.binary.Binary;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.cachestore.internal.CacheStoreBridge;
import io.sluice.node.NodeConfig;
import io.sluice.node.NodeRuntime;
import io.sluice.processor.internal.ProcessorRegistry;
import io.sluice.protocol.internal.StreamerTransport;
import io.sluice.receiver.internal.ReceiverRegistry;
import io.sluice.pagestore.internal.ConsistencyReport;
import io.sluice.pagestore.internal.DataRegion;
import io.sluice.pagestore.internal.DataRegionConfig;
import io.sluice.pagestore.internal.checkpoint.Checkpointer;
import io.sluice.pagestore.internal.wal.WalFormat;
import io.sluice.pagestore.internal.wal.WriteAheadLog;
import io.sluice.streamer.internal.StreamerRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The node itself, wiring its parts together: the data region and its apply threads ({@link StripedExecutor}),
 * the caches ({@link CacheCatalogue}), recovery at start ({@link NodeRecovery}), checkpoints
 * ({@link CheckpointCapture}), recovered caches' stores ({@link StoreReattachment}), durability waits
 * ({@link Durability}), the streamers ({@link StreamerRegistry}), the in-JVM transport and the close
 * ({@link NodeShutdown}). {@link io.sluice.node.SluiceNode}
 * is the public face of one; the node process and tests use it directly (its {@link #transport()} is what a
 * streamer and a network server hand batches to).
 *
 * <p>Streamed batches are applied by {@link NodeConfig#applyThreads()} stripe threads: partition
 * {@code p} always by thread {@code p % applyThreads}, so a partition's batches are applied one at
 * a time, in the order they arrived. Thread-safe.
 */
public final class NodeEngine implements NodeRuntime {

    private static final Logger LOG = LoggerFactory.getLogger(NodeEngine.class);

    private final NodeConfig config;
    private final String id;
    private final NodeState state;
    private final BinaryContext binary;
    private final DataRegion region;
    private final StripedExecutor stripes;
    /** What recovery replayed after the last checkpoint, until each cache is put in front of its store again. */
    private final RecoveredKeys recoveredKeys;
    private final NodeMetrics metrics;
    private final EmbeddedTransport transport;
    private final ProcessorRegistry processors;
    private final Durability durability;
    private final CacheCatalogue catalogue;
    /** The write-ahead log of a persistent region, or null. */
    private final WriteAheadLog wal;
    /** The checkpoints of a persistent region, or null. */
    private final Checkpointer checkpointer;
    private final CheckpointCapture capture;
    private final StoreReattachment reattachment;
    /** The streamers this node made, closed with it. */
    private final StreamerRegistry streamers;
    private final NodeShutdown shutdown;
    /** Loads partition files that came from other nodes (issue 28). */
    private final NodePartitionAdoption adoption;

    /**
     * Starts a node whose metrics nobody reads (they go to a registry of its own).
     *
     * @throws NullPointerException if config is null
     * @throws IllegalStateException if a custom receiver's or processor's factory throws or returns null
     */
    public NodeEngine(NodeConfig config) {
        this(config, new SimpleMeterRegistry());
    }

    /**
     * Starts a node: reserves its data region, recovers its caches from disk (with persistence) and starts its
     * apply threads; its meters ({@link NodeMetrics}) go to the registry until it closes.
     *
     * @throws NullPointerException if config or registry is null
     * @throws IllegalStateException if a custom receiver's or processor's factory throws or returns null
     */
    public NodeEngine(NodeConfig config, MeterRegistry registry) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(registry, "registry");
        this.config = config;
        this.id = "embedded-" + UUID.randomUUID();
        this.state = new NodeState(id);
        this.binary = new BinaryContext();
        this.processors = new ProcessorRegistry(config.processors(), config.applyThreads(), binary);
        ReceiverRegistry receivers = new ReceiverRegistry(config.receivers(), processors, config.applyThreads());
        this.region = new DataRegion(new DataRegionConfig(config.pageSize(), config.dataRegionInitialSize(),
                config.dataRegionMaxSize()), binary);
        // Started before recovery: the caches it creates hold the apply threads (they run nothing until it ends).
        this.stripes = new StripedExecutor(config.applyThreads(), "sluice-apply");
        WriteAheadLog log = null;
        RecoveredKeys noted = null;
        AdoptedFiles adopted = null;
        try {
            if (config.persistence().enabled()) {
                log = new WriteAheadLog(WalSettingsOf.persistence(config.persistence()), binary::typesVersion,
                        binary::exportTypes);
            }
            this.wal = log;
            noted = wal == null ? RecoveredKeys.none() : new RecoveredKeys(config.persistence().recoveredKeysMemory(),
                    wal.directory().resolve(RecoveredKeys.SPILL_FILE));
            this.recoveredKeys = noted;
            this.durability = new Durability(wal, stripes);
            this.catalogue = new CacheCatalogue(state, region, wal, config.stores(), binary,
                    new CacheServices(state, durability, stripes, processors), recoveredKeys);
            this.capture = new CheckpointCapture(catalogue, recoveredKeys, wal, binary, stripes);
            adopted = wal == null ? null : new AdoptedFiles(wal.directory().resolve(WalFormat.MOVES_DIRECTORY));
            this.checkpointer = wal == null ? null
                    : NodeRecovery.recover(config, wal, catalogue, recoveredKeys, binary, capture, adopted);
        } catch (RuntimeException | Error e) {
            stripes.stop(5, TimeUnit.SECONDS); // nothing is queued yet: the threads end at once
            if (noted != null) {
                noted.close();
            }
            if (log != null) {
                log.close();
            }
            region.close();
            throw e;
        }
        stripes.idleWork(new HeldChangesIdleApply(region, catalogue, stripes));
        this.adoption = new NodePartitionAdoption(state, catalogue, durability, wal, adopted);
        this.reattachment = new StoreReattachment(config, state, catalogue, recoveredKeys, wal, checkpointer, capture,
                durability, binary);
        // Registered once nothing can fail any more: a node that did not start leaves no meters behind.
        this.metrics = new NodeMetrics(registry);
        StripedExecutor queues = stripes;
        metrics.stripes(stripes.stripes(), queues::queued);
        this.transport = new EmbeddedTransport(id, catalogue::nodeCache, stripes, receivers, metrics, durability,
                binary);
        this.streamers = new StreamerRegistry(transport, binary, "node '" + id + "'");
        this.shutdown = new NodeShutdown(state, catalogue, reattachment, streamers, stripes, checkpointer,
                recoveredKeys, wal, region, metrics);
        try {
            try {
                reattachment.openCaches(this::openDeclared);
            } finally {
                capture.cachesOpened();
            }
        } catch (RuntimeException | Error e) {
            try {
                close();
            } catch (RuntimeException | Error suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /**
     * Takes a checkpoint now (tests, tools): every partition changed since the last one is written to its file,
     * and the log before the mark is deleted.
     *
     * @throws IllegalStateException without persistence
     * @throws IOException if a file cannot be written (the previous checkpoint stays)
     */
    public Checkpointer.Result checkpoint() throws IOException {
        if (checkpointer == null) {
            throw new IllegalStateException("node '" + id + "' has no persistence: nothing to checkpoint");
        }
        state.ensureOpen();
        return checkpointer.checkpoint();
    }

    /**
     * Checks the store's consistency now ({@link DataRegion#checkConsistency}): every partition's tree and
     * rows and the free list, as of one moment (writers wait for the check). Problems name cache and partition.
     */
    public ConsistencyReport checkConsistency() {
        return catalogue.checkConsistency();
    }

    /** Checkpoints completed since the start (0 without persistence). */
    public long checkpoints() {
        return checkpointer == null ? 0 : checkpointer.completed();
    }

    /**
     * Installs the tap that sees every write of every partition (a cluster member replicating to backups), in
     * place of the one before; {@link JournalTap#NONE} removes it. Writes made from then on reach it.
     */
    public void journalTap(JournalTap tap) {
        catalogue.journalTap(tap);
    }

    /**
     * Calls done (with null, or the log's failure) once every write made so far is durable per the WAL
     * mode: at once without persistence, else on this thread or the log's writer thread (it must not block).
     */
    public void whenDurable(Consumer<Throwable> done) {
        durability.whenDurable(done);
    }

    /** The node's meters (a network server reports its own events to them too). */
    public NodeMetrics metrics() {
        return metrics;
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

    /** Pages of the data region taken from the system so far (in use or free for reuse). */
    public long allocatedPages() {
        state.ensureOpen();
        return region.allocatedPages();
    }

    /** Fsyncs the write-ahead log made for records so far (0 without persistence). */
    public long walSyncs() {
        return wal == null ? 0 : wal.syncs();
    }

    /** Pages of the data region in use by trees and rows. */
    public long usedPages() {
        state.ensureOpen();
        return region.usedPages();
    }

    @Override
    public <K, V> Cache<K, V> createCache(CacheConfig config) {
        Objects.requireNonNull(config, "config");
        synchronized (catalogue.lock()) {
            state.ensureNotClosing();
            NodeCache<Object, Object> existing = catalogue.get(config.name());
            if (existing != null) {
                throw new IllegalStateException("cache '" + config.name() + "' already exists (with "
                        + existing.partitions() + " partitions); use Sluice.cache(name) or getOrCreateCache(config)");
            }
            return cast(catalogue.create(config));
        }
    }

    /**
     * {@inheritDoc}
     *
     * <p>A cache recovered from disk is in front of the store it had before the restart from the node's start on
     * (or of the one {@link NodeConfig#caches()} declares for it). One that could not be put in front of it
     * (the node does not register that store, or it failed to open) is attached here to the store the config
     * names. A config whose store differs from an attached cache's changes nothing (a warning says so).
     *
     * @throws IllegalStateException if the cache exists with other backups, write sync mode, reads from backups or
     *                               indexes than the config's ({@link ExistingCacheCheck})
     */
    @Override
    public <K, V> Cache<K, V> getOrCreateCache(CacheConfig config) {
        return getOrCreate(config, true);
    }

    /**
     * At start, a cache {@link NodeConfig#caches()} declares: as {@link #getOrCreateCache}, but a recovered cache
     * declared with other options keeps the ones it was created with (a warning names both), so that a config file
     * that lags the cache (a cluster member's copy took the catalogue's options) does not stop the start.
     */
    private void openDeclared(CacheConfig config) {
        getOrCreate(config, false);
    }

    private <K, V> Cache<K, V> getOrCreate(CacheConfig config, boolean strictOptions) {
        Objects.requireNonNull(config, "config");
        NodeCache<Object, Object> existing = catalogue.get(config.name());
        if (existing == null) {
            synchronized (catalogue.lock()) {
                state.ensureNotClosing();
                existing = catalogue.get(config.name());
                if (existing == null) {
                    return cast(catalogue.create(config));
                }
            }
        }
        if (strictOptions) {
            ExistingCacheCheck.requireSameOptions(existing.config(), config, "node '" + id + "'");
        } else if (!ExistingCacheCheck.sameOptions(existing.config(), config)) {
            LOG.warn("cache '{}' is declared as {} but was created as {}: it keeps the options it was created with",
                    config.name(), config, existing.config());
        }
        if (config.store() != null && existing.storeBridge() == null) {
            state.ensureNotClosing();
            reattachment.attachRecovered(existing, config.store());
            return cast(existing);
        }
        CacheStoreBridge bridge = existing.storeBridge();
        if (config.store() != null && bridge != null && !config.store().equals(bridge.config())) {
            LOG.warn("cache '{}' exists in front of {}; getOrCreateCache asked for {}, which changes nothing (declare a"
                    + " recovered cache's store in NodeConfig.cache, or the node file's caches, to change it at start)",
                    config.name(), bridge.config(), config.store());
        }
        return cast(existing);
    }

    @Override
    public <K, V> Cache<K, V> cache(String name) {
        return cast(nodeCache(name));
    }

    @Override
    public boolean destroyCache(String name) {
        return catalogue.destroy(name);
    }

    /**
     * Gives an existing cache the options of {@code config} (backups, write sync mode, reads from backups,
     * indexes; logged): a cluster member's copy follows the cluster's catalogue. Indexes it had keep their ids.
     *
     * @throws io.sluice.CacheNotFoundException if there is no such cache
     */
    public void adoptOptions(CacheConfig config) {
        synchronized (catalogue.lock()) {
            state.ensureNotClosing();
            NodeCache<Object, Object> cache = catalogue.nodeCache(config.name());
            catalogue.changeOptions(cache, catalogue.options(catalogue.idOf(cache)).changedTo(config));
        }
    }

    /**
     * The id this node's log and partition files give the cache (a partition file sent to another member carries
     * it, issue 28).
     *
     * @throws io.sluice.CacheNotFoundException if the node has no such cache
     */
    public int cacheId(String name) {
        return catalogue.idOf(catalogue.nodeCache(name));
    }

    /** The cache of that name. @throws CacheNotFoundException if there is none */
    public NodeCache<Object, Object> nodeCache(String name) {
        return catalogue.nodeCache(name);
    }

    @Override
    public <K, V> DataStreamer<K, V> dataStreamer(String cacheName) {
        return dataStreamer(cacheName, StreamerOptions.DEFAULT);
    }

    /**
     * {@inheritDoc}
     *
     * <p>A streamer created while {@link #close()} runs is either closed by it or refused.
     *
     * @throws IllegalStateException if the node is closing or closed
     */
    @Override
    public <K, V> DataStreamer<K, V> dataStreamer(String cacheName, StreamerOptions options) {
        Objects.requireNonNull(cacheName, "cacheName");
        Objects.requireNonNull(options, "options");
        state.ensureNotClosing();
        nodeCache(cacheName);
        return streamers.open(cacheName, options);
    }

    @Override
    public Binary binary() {
        return binary;
    }

    /**
     * Closes every streamer this node created (flushing it), lets the apply threads finish the
     * batches queued (at most 30 seconds, then abandons the rest: their futures fail), drains write-behind into
     * the stores and closes them, takes a last checkpoint, and frees the data region. Calling it again has no
     * effect.
     *
     * @throws io.sluice.StreamerException if flushing a streamer failed; the node is closed anyway
     * @throws IllegalStateException if called by a receiver (on an apply thread): it would wait for itself
     */
    @Override
    public void close() {
        try {
            shutdown.close();
        } finally {
            adoption.close();
        }
    }

    /** Where partition files that come from other nodes are written and how they are loaded (issue 28). */
    public PartitionAdoption partitionAdoption() {
        return adoption;
    }

    @SuppressWarnings("unchecked")
    private static <K, V> Cache<K, V> cast(NodeCache<Object, Object> cache) {
        return (Cache<K, V>) (Cache<?, ?>) cache;
    }

    /** The names of the caches. */
    public List<String> cacheNames() {
        return catalogue.names();
    }

    @Override
    public String toString() {
        return "NodeEngine{id=" + id + ", caches=" + catalogue.names() + ", " + config + '}';
    }
}
