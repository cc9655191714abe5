package io.sluice.node.internal;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.CacheNotFoundException;
import io.sluice.CacheStoreConfig;
import io.sluice.DataStreamer;
import io.sluice.Sluice;
import io.sluice.StreamerOptions;
import io.sluice.binary.Binary;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.cachestore.internal.CacheStoreBridge;
import io.sluice.cachestore.internal.StoreChanges;
import io.sluice.node.NodeConfig;
import io.sluice.protocol.internal.StreamerTransport;
import io.sluice.processor.internal.ProcessorRegistry;
import io.sluice.receiver.internal.ReceiverRegistry;
import io.sluice.store.internal.ConsistencyReport;
import io.sluice.store.internal.DataRegion;
import io.sluice.store.internal.DataRegionConfig;
import io.sluice.store.internal.BatchApplyException;
import io.sluice.store.internal.BatchMode;
import io.sluice.store.internal.PartitionStore;
import io.sluice.store.internal.StoreJournal;
import io.sluice.store.internal.checkpoint.CheckpointLoader;
import io.sluice.store.internal.checkpoint.CheckpointCorruptedException;
import io.sluice.store.internal.checkpoint.CheckpointDeferredException;
import io.sluice.store.internal.checkpoint.Checkpointer;
import io.sluice.store.internal.checkpoint.Manifest;
import io.sluice.store.internal.wal.WalCorruptedException;
import io.sluice.store.internal.wal.WalFailedException;
import io.sluice.store.internal.wal.WalReader;
import io.sluice.store.internal.wal.WriteAheadLog;
import io.sluice.protocol.internal.EntryBatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.sluice.streamer.internal.BatchArrays;
import io.sluice.streamer.internal.Streamer;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
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

    private static final Logger LOG = LoggerFactory.getLogger(NodeEngine.class);

    /** How long {@link #close()} lets the apply threads finish batches already queued. */
    private static final long STOP_TIMEOUT_SECONDS = 30;

    private final NodeConfig config;
    private final String id;
    private final BinaryContext binary;
    /** Batch arrays shared by this owner's streamers: a new streamer starts with the arrays earlier ones left. */
    private final BatchArrays batchArrays = BatchArrays.shared();
    private final DataRegion region;
    private final StripedExecutor stripes;
    /** What recovery replayed after the last checkpoint, until each cache is put in front of its store again. */
    private final RecoveredKeys recoveredKeys;
    private final NodeMetrics metrics;
    private final EmbeddedTransport transport;
    private final ProcessorRegistry processors;
    private final ConcurrentHashMap<String, NodeCache<Object, Object>> caches = new ConcurrentHashMap<>();
    /** The write-ahead log of a persistent region, or null. */
    private final WriteAheadLog wal;
    /** The checkpoints of a persistent region, or null. */
    private final Checkpointer checkpointer;
    /** Caches by the id their log records name (guarded by lifecycle; read by the replay only). */
    private final ConcurrentHashMap<Integer, NodeCache<Object, Object>> cachesById = new ConcurrentHashMap<>();
    /** The id of the next cache created (guarded by lifecycle). */
    private int nextCacheId;
    /** Retries putting recovered caches in front of the stores they await; null until the start needs it. */
    private volatile AwaitedStores awaitedStores;
    /**
     * Open once the start has put its caches in front of their stores and queued their recovered keys
     * ({@link #openCaches}): a checkpoint waits for it, as its mark would move recovery past keys not queued yet
     * (requeueing many keys into a bounded write-behind queue can outlast the checkpoint interval).
     */
    private final CountDownLatch cachesOpened = new CountDownLatch(1);
    private final Set<Streamer<?, ?>> streamers = ConcurrentHashMap.newKeySet();
    /**
     * Caches whose recovered keys were taken but not all handed to their store (the requeue failed): no
     * checkpoint may move recovery past those keys, so the next start replays and hands them over again.
     */
    private final Set<String> unfinishedRequeues = ConcurrentHashMap.newKeySet();
    private final Object lifecycle = new Object();
    /** No new caches or streamers; streamers are being closed. */
    private volatile boolean closing;
    /** The region is freed: no cache operation may run. */
    private volatile boolean closed;

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
     * Starts a node: reserves its data region and starts its apply threads; its meters
     * ({@link NodeMetrics}) go to the registry until it closes.
     *
     * @throws NullPointerException if config or registry is null
     * @throws IllegalStateException if a custom receiver's or processor's factory throws or returns null
     */
    public NodeEngine(NodeConfig config, MeterRegistry registry) {
        Objects.requireNonNull(config, "config");
        Objects.requireNonNull(registry, "registry");
        this.config = config;
        this.id = "embedded-" + UUID.randomUUID();
        this.binary = new BinaryContext();
        this.processors = new ProcessorRegistry(config.processors(), config.applyThreads(), binary);
        ReceiverRegistry receivers = new ReceiverRegistry(config.receivers(), processors, config.applyThreads());
        this.region = new DataRegion(DataRegionConfig.of(config));
        WriteAheadLog log = null;
        Checkpointer checkpoints = null;
        RecoveredKeys noted = null;
        try {
            if (config.persistence().enabled()) {
                log = new WriteAheadLog(WalSettingsOf.persistence(config.persistence()), binary::typesVersion,
                        binary::exportTypes);
            }
            this.wal = log;
            noted = wal == null ? RecoveredKeys.none() : new RecoveredKeys(config.persistence().recoveredKeysMemory(),
                    wal.directory().resolve(RecoveredKeys.SPILL_FILE));
            this.recoveredKeys = noted;
            if (wal != null) {
                long start = System.nanoTime();
                Manifest manifest = readManifest(wal.directory());
                checkpoints = new Checkpointer(wal.directory(), wal, this::capture, this::confirmWriteBehind,
                        config.persistence().checkpointInterval(), manifest);
                long loaded = manifest == null ? 0 : loadCheckpoint(manifest, checkpoints);
                long loadedAt = System.nanoTime();
                WalReader.Summary summary;
                try (Replay replay = new Replay(config.applyThreads())) {
                    summary = wal.recover(replay, manifest == null ? 0 : manifest.mark());
                }
                recoveredKeys.recovered();
                LOG.info("recovered {} caches from {}: checkpoint {} ({} entries) in {} ms, then {} records ({} bytes) of"
                                + " log in {} ms{}", cachesById.size(), wal.directory(),
                        manifest == null ? "none" : manifest.number(), loaded, (loadedAt - start) / 1_000_000,
                        summary.records(), summary.bytes(), (System.nanoTime() - loadedAt) / 1_000_000,
                        summary.dropped() == null ? "" : "; dropped a torn tail: " + summary.dropped());
                if (config.persistence().checkOnRecovery()) {
                    ConsistencyReport report = checkConsistency();
                    if (!report.ok()) {
                        throw new IllegalStateException("the store in " + wal.directory()
                                + " failed its consistency check after recovery: " + report);
                    }
                    LOG.info("store check after recovery: {}", report);
                }
                checkpoints.start();
            }
            this.checkpointer = checkpoints;
            this.stripes = new StripedExecutor(config.applyThreads(), "sluice-apply");
        } catch (RuntimeException | Error e) {
            if (checkpoints != null) {
                checkpoints.close();
            }
            if (noted != null) {
                noted.close();
            }
            if (log != null) {
                log.close();
            }
            region.close();
            throw e;
        }
        // Registered once nothing can fail any more: a node that did not start leaves no meters behind.
        this.metrics = new NodeMetrics(registry);
        StripedExecutor queues = stripes;
        metrics.stripes(stripes.stripes(), queues::queued);
        this.transport = new EmbeddedTransport(this, stripes, receivers);
        try {
            try {
                openCaches();
            } finally {
                cachesOpened.countDown();
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

    /** Why a recovered cache awaits its store while the node starts. */
    private static final String RECOVERING = "the node is starting";

    private static Manifest readManifest(Path directory) {
        try {
            return Manifest.read(directory);
        } catch (java.io.IOException e) {
            throw new WalFailedException("cannot read the checkpoint manifest in " + directory + ": " + e, e);
        }
    }

    /** Creates the checkpoint's caches and loads their partition files. @return entries loaded */
    private long loadCheckpoint(Manifest manifest, Checkpointer checkpoints) {
        synchronized (lifecycle) {
            binary.importTypes(manifest.types());
            for (Manifest.CacheFiles c : manifest.caches()) {
                NodeCache<Object, Object> cache = newCache(CacheConfig.named(c.name()).withPartitions(c.files().length),
                        c.id());
                if (c.store() != null) {
                    try {
                        cache.awaitStore(StoreAttachment.fromBytes(c.store(), "the checkpoint manifest in "
                                + wal.directory() + " (cache '" + c.name() + "')"), RECOVERING);
                    } catch (IllegalStateException e) {
                        throw new CheckpointCorruptedException(e.getMessage(), e);
                    }
                }
            }
            nextCacheId = Math.max(nextCacheId, manifest.nextCacheId());
        }
        return CheckpointLoader.load(wal.directory(), manifest, id -> {
            NodeCache<Object, Object> cache = cachesById.get(id);
            PartitionStore[] stores = new PartitionStore[cache.partitions()];
            for (int p = 0; p < stores.length; p++) {
                stores[p] = cache.store(p);
            }
            return stores;
        }, config.applyThreads(), checkpoints);
    }

    /**
     * What a checkpoint copies: under the lifecycle lock, so no cache is created or dropped around the mark.
     *
     * @throws CheckpointDeferredException while a cache awaits its write-behind store with changes recovery
     *                                     replayed, or handing them over failed part way: the mark would move
     *                                     recovery past them, and a crash before the store has them would lose
     *                                     them for the store
     */
    private Checkpointer.Catalogue capture() {
        if (!unfinishedRequeues.isEmpty()) {
            throw new CheckpointDeferredException("the recovered keys of cache(s) " + unfinishedRequeues + " were not"
                    + " all handed to their store again (logged when it failed): no checkpoint until the node restarts"
                    + " and replays them; the log since the last checkpoint is kept");
        }
        synchronized (lifecycle) {
            List<Checkpointer.CacheStores> list = new ArrayList<>();
            for (var e : cachesById.entrySet()) {
                NodeCache<Object, Object> cache = e.getValue();
                CacheStoreConfig awaited = cache.awaitedStore();
                // Replayed keys are noted only for a cache that was write-behind: awaiting with some means that.
                if (awaited != null && recoveredKeys.holds(e.getKey())) {
                    throw new CheckpointDeferredException("cache '" + cache.name() + "' awaits its write-behind"
                            + " store '" + awaited.storeName() + "' with changes replayed from the log that the store"
                            + " may not have: no checkpoint until it is back (its mark would move recovery past them);"
                            + " the log since the last checkpoint is kept");
                }
                PartitionStore[] stores = new PartitionStore[cache.partitions()];
                for (int p = 0; p < stores.length; p++) {
                    stores[p] = cache.store(p);
                }
                CacheStoreBridge bridge = cache.storeBridge();
                CacheStoreConfig attachment = bridge != null ? bridge.config() : awaited;
                list.add(new Checkpointer.CacheStores(e.getKey(), cache.name(), stores,
                        attachment == null ? null : StoreAttachment.toBytes(attachment)));
            }
            // Under the same lock as the list: no cache or attachment changes between the two.
            long mark = wal.markForCheckpoint(); // the log starts a new segment here: the old one can go at commit
            return new Checkpointer.Catalogue(mark, nextCacheId, binary.exportTypes(), list);
        }
    }

    /**
     * Takes a checkpoint now (tests, tools): every partition changed since the last one is written to its file,
     * and the log before the mark is deleted.
     *
     * @throws IllegalStateException without persistence
     * @throws java.io.IOException if a file cannot be written (the previous checkpoint stays)
     */
    public Checkpointer.Result checkpoint() throws java.io.IOException {
        if (checkpointer == null) {
            throw new IllegalStateException("node '" + id + "' has no persistence: nothing to checkpoint");
        }
        ensureOpen();
        return checkpointer.checkpoint();
    }

    /**
     * Checks the store's consistency now ({@link DataRegion#checkConsistency}): every partition's tree and
     * rows and the free list, as of one moment (writers wait for the check). Problems name cache and partition.
     */
    public ConsistencyReport checkConsistency() {
        java.util.Map<PartitionStore, String> names = new java.util.IdentityHashMap<>();
        synchronized (lifecycle) {
            for (var e : cachesById.entrySet()) {
                NodeCache<Object, Object> cache = e.getValue();
                for (int p = 0; p < cache.partitions(); p++) {
                    names.put(cache.store(p), "cache '" + cache.name() + "' (id " + e.getKey() + ") partition " + p);
                }
            }
        }
        return region.checkConsistency(p -> names.getOrDefault(p, "a partition of no cache"));
    }

    /** Checkpoints completed since the start (0 without persistence). */
    public long checkpoints() {
        return checkpointer == null ? 0 : checkpointer.completed();
    }

    /** Applies the log's records to the fresh store at start: the same store operations on the same bytes. */
    private final class Replay implements WalReader.Handler, AutoCloseable {
        /**
         * BATCH records are applied on {@code applyThreads} lanes, a partition always on the same lane, so a
         * partition's records keep their log order while partitions replay in parallel. CACHE and TYPES
         * records are applied at once on the reading thread (the batches after them are not submitted yet).
         */
        private final ExecutorService[] lanes;
        /** The segment's submitted batches, awaited at its end (the segment's bytes are kept until then). */
        private final List<Future<?>> pending = new ArrayList<>();

        Replay(int threads) {
            lanes = new ExecutorService[threads];
            for (int i = 0; i < threads; i++) {
                int lane = i;
                lanes[i] = Executors.newSingleThreadExecutor(r -> {
                    Thread t = new Thread(r, "sluice-replay-" + lane);
                    t.setDaemon(true);
                    return t;
                });
            }
        }

        @Override
        public void types(byte[] metadata) {
            binary.importTypes(metadata);
        }

        @Override
        public void cache(int cacheId, int partitions, String name) {
            synchronized (lifecycle) {
                if (caches.containsKey(name)) {
                    throw new WalCorruptedException("the log creates cache '" + name + "' twice");
                }
                newCache(CacheConfig.named(name).withPartitions(partitions), cacheId);
            }
        }

        @Override
        public void store(int cacheId, byte[] attachment) {
            synchronized (lifecycle) {
                NodeCache<Object, Object> cache = cachesById.get(cacheId);
                if (cache == null) {
                    throw new WalCorruptedException("a STORE record names cache id " + cacheId
                            + ", which no earlier record created");
                }
                try {
                    cache.awaitStore(StoreAttachment.fromBytes(attachment, "the log (cache '" + cache.name() + "')"),
                            RECOVERING);
                } catch (IllegalStateException e) {
                    throw new WalCorruptedException(e.getMessage(), e);
                }
            }
        }

        @Override
        public void batch(int cacheId, int partition, BatchMode mode, boolean partial, boolean skipStore,
                          EntryBatch entries) {
            NodeCache<Object, Object> cache = cachesById.get(cacheId);
            if (cache == null) {
                throw new WalCorruptedException("a record names cache id " + cacheId + ", which no earlier record created");
            }
            if (partition < 0 || partition >= cache.partitions()) {
                throw new WalCorruptedException("a record names partition " + partition + " of cache '" + cache.name()
                        + "', which has " + cache.partitions());
            }
            CacheStoreConfig store = cache.awaitedStore();
            if (!skipStore && store != null && store.writeMode() == CacheStoreConfig.WriteMode.WRITE_BEHIND) {
                recoveredKeys.add(cacheId, cache.partitions(), partition, entries);
            }
            int lane = Math.floorMod(cacheId * 31 + partition, lanes.length);
            pending.add(lanes[lane].submit(() -> apply(cache, partition, mode, partial, entries)));
        }

        private void apply(NodeCache<Object, Object> cache, int partition, BatchMode mode, boolean partial,
                           EntryBatch entries) {
            try {
                cache.store(partition).applyBatch(entries, mode);
            } catch (BatchApplyException e) {
                if (!partial) {
                    throw new WalCorruptedException("replaying a batch of cache '" + cache.name() + "' partition "
                            + partition + " failed (is the data region smaller than when it was logged?): "
                            + e.getMessage(), e);
                }
                // It failed part way when it was first applied too (and was not acknowledged).
                LOG.warn("replay: a batch of cache '{}' partition {} that failed part way when applied failed again: {}",
                        cache.name(), partition, e.getMessage());
            }
        }

        @Override
        public void drop(int cacheId) {
            awaitPending("the records before a DROP record");
            synchronized (lifecycle) {
                NodeCache<Object, Object> cache = cachesById.remove(cacheId);
                if (cache == null) {
                    throw new WalCorruptedException("a DROP record names cache id " + cacheId
                            + ", which no earlier record created");
                }
                caches.remove(cache.name());
                recoveredKeys.forget(cacheId);
                for (int p = 0; p < cache.partitions(); p++) {
                    cache.store(p).destroy("cache '" + cache.name() + "' was destroyed");
                }
            }
        }

        @Override
        public void segmentEnd(Path segment) {
            awaitPending(segment.toString());
        }

        private void awaitPending(String segment) {
            RuntimeException failure = null;
            for (Future<?> f : pending) {
                try {
                    f.get();
                } catch (ExecutionException e) {
                    if (failure == null) {
                        failure = e.getCause() instanceof WalCorruptedException c ? c : new WalCorruptedException(
                                "replaying a record of " + segment + " failed: " + e.getCause(), e.getCause());
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new WalCorruptedException("interrupted while replaying " + segment, e);
                }
            }
            pending.clear();
            if (failure != null) {
                throw failure;
            }
        }

        @Override
        public void close() {
            for (ExecutorService lane : lanes) {
                lane.shutdownNow();
            }
        }
    }

    /**
     * Blocks until every write this thread made is durable per the WAL mode (at once without
     * persistence, or on an apply thread: the batch's task waits for its batch as a whole).
     *
     * @throws io.sluice.store.internal.wal.WalFailedException if the log failed
     */
    void awaitDurable() {
        if (wal != null && !stripes.isStripeThread()) {
            wal.awaitDurable(wal.end());
        }
    }

    /**
     * Calls done (with null, or the log's failure) once every write made so far is durable per the WAL
     * mode: at once without persistence, else on this thread or the log's writer thread (it must not block).
     */
    public void whenDurable(Consumer<Throwable> done) {
        if (wal == null) {
            done.accept(null);
        } else {
            wal.whenDurable(wal.end(), done);
        }
    }

    /** The future's result, once the writes made before it completed are durable. */
    <T> CompletableFuture<T> durable(CompletableFuture<T> future) {
        if (wal == null || stripes.isStripeThread()) {
            return future;
        }
        return future.thenCompose(value -> {
            CompletableFuture<T> out = new CompletableFuture<>();
            whenDurable(error -> {
                if (error == null) {
                    out.complete(value);
                } else {
                    out.completeExceptionally(error);
                }
            });
            return out;
        });
    }

    /** The node's meters (a network server reports its own events to them too). */
    public NodeMetrics metrics() {
        return metrics;
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

    /** Pages of the data region taken from the system so far (in use or free for reuse). */
    public long allocatedPages() {
        ensureOpen();
        return region.allocatedPages();
    }

    /** Fsyncs the write-ahead log made for records so far (0 without persistence). */
    public long walSyncs() {
        return wal == null ? 0 : wal.syncs();
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

    /**
     * {@inheritDoc}
     *
     * <p>A cache recovered from disk is in front of the store it had before the restart from the node's start on
     * (or of the one {@link NodeConfig#caches()} declares for it). One that could not be put in front of it
     * (the node does not register that store, or it failed to open) is attached here to the store the config
     * names. A config whose store differs from an attached cache's changes nothing (a warning says so).
     */
    @Override
    public <K, V> Cache<K, V> getOrCreateCache(CacheConfig config) {
        Objects.requireNonNull(config, "config");
        NodeCache<Object, Object> existing = caches.get(config.name());
        if (existing == null || (config.store() != null && existing.storeBridge() == null)) {
            synchronized (lifecycle) {
                ensureNotClosing();
                existing = caches.get(config.name());
                if (existing == null) {
                    return cast(newCache(config));
                }
            }
            if (config.store() != null && existing.storeBridge() == null) {
                attachRecovered(existing, config.store());
                return cast(existing);
            }
        }
        CacheStoreBridge bridge = existing.storeBridge();
        if (config.store() != null && bridge != null && !config.store().equals(bridge.config())) {
            LOG.warn("cache '{}' exists in front of {}; getOrCreateCache asked for {}, which changes nothing (declare a"
                    + " recovered cache's store in NodeConfig.cache, or the node file's caches, to change it at start)",
                    config.name(), bridge.config(), config.store());
        }
        return cast(existing);
    }

    /**
     * Puts a cache recovered from disk in front of the store, logs the attachment, and queues again for
     * write-behind the keys recovery replayed for it (the store may not have confirmed them).
     *
     * @throws IllegalArgumentException if the node does not register the store
     * @throws IllegalStateException if the store fails to open
     */
    private void attachRecovered(NodeCache<Object, Object> cache, CacheStoreConfig store) {
        if (checkpointer == null) {
            attachNow(cache, store);
        } else {
            // No checkpoint between the attachment and the requeue: its manifest would move recovery past the
            // recovered keys while some are not queued yet (a checkpoint flushes only what is queued).
            checkpointer.runExclusive(() -> attachNow(cache, store));
        }
    }

    private void attachNow(NodeCache<Object, Object> cache, CacheStoreConfig store) {
        RecoveredKeys.CacheKeys requeue;
        CacheStoreBridge bridge;
        synchronized (lifecycle) {
            ensureNotClosing();
            if (cache.storeBridge() != null || !cachesById.containsValue(cache)) {
                return; // attached meanwhile, or destroyed (no STORE record may follow its DROP record)
            }
            bridge = CacheStoreBridge.open(cache.name(), store, this.config.stores(), binary, cache.partitions());
            int cacheId = cacheIdOf(cache);
            if (wal != null) {
                wal.appendStore(cacheId, StoreAttachment.toBytes(store));
            }
            cache.attachStore(bridge);
            LOG.info("cache '{}' (recovered) is in front of store '{}' ({}) again", cache.name(), store.storeName(),
                    store.writeMode());
            // Noted only for a cache that was write-behind when logged; a write-through store now writes them at once.
            requeue = bridge.writes() ? recoveredKeys.take(cacheId) : null;
            if (requeue == null) {
                recoveredKeys.forget(cacheId);
            }
        }
        awaitDurable();
        if (requeue != null) {
            try {
                requeueRecovered(cache, bridge, requeue);
            } catch (RuntimeException | Error e) {
                unfinishedRequeues.add(cache.name());
                LOG.error("cache '{}': handing its recovered keys to store '{}' again failed; no checkpoint is taken"
                        + " from now on, so the next start replays them and tries again", cache.name(),
                        store.storeName(), e);
                throw e;
            }
        }
    }

    private void awaitCachesOpened() {
        boolean interrupted = false;
        while (true) {
            try {
                cachesOpened.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true; // a checkpoint is not abandoned half way; the flag is kept for the caller
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * At start, after recovery: the caches {@link NodeConfig#caches()} declares are created, or, recovered, put in
     * front of the store declared for them; every other recovered cache that had a store goes in front of it
     * again, with the settings it had. One that cannot (the store is not registered, or fails to open) stays
     * without a store, with an error logged, until {@link #getOrCreateCache} attaches one; its recovered keys and
     * its attachment are kept meanwhile.
     *
     * @throws IllegalArgumentException or IllegalStateException if a declared cache cannot be created or attached
     */
    private void openCaches() {
        Set<String> declared = new HashSet<>();
        for (CacheConfig cache : config.caches()) {
            declared.add(cache.name());
            NodeCache<Object, Object> recovered = caches.get(cache.name());
            if (recovered != null && cache.store() == null) {
                CacheStoreConfig had = recovered.forgetAwaitedStore();
                synchronized (lifecycle) {
                    recoveredKeys.forget(cacheIdOf(recovered)); // no store will take them
                }
                if (had != null) {
                    LOG.warn("cache '{}' was in front of {} before the restart and is declared without a store now: it"
                            + " stays without one, and changes recovery replayed are not sent to that store",
                            cache.name(), had);
                }
            }
            getOrCreateCache(cache);
        }
        List<NodeCache<Object, Object>> retry = new ArrayList<>();
        for (NodeCache<Object, Object> cache : awaitingStores()) {
            if (declared.contains(cache.name())) {
                continue;
            }
            CacheStoreConfig store = cache.awaitedStore();
            try {
                attachRecovered(cache, store);
            } catch (IllegalArgumentException notRegistered) {
                cache.awaitStore(store, notRegistered.getMessage() + "; getOrCreateCache with a registered store"
                        + " attaches one, NodeConfig.cache declaring it without a store detaches it");
                LOG.error("cache '{}' was in front of {} before the restart and cannot be put in front of it again: {};"
                        + " its writes are refused, its recovered changes kept, until getOrCreateCache with a store"
                        + " attaches one (or NodeConfig.cache declares it without a store)", cache.name(), store,
                        notRegistered.getMessage());
            } catch (IllegalStateException failedToOpen) {
                cache.awaitStore(store, AwaitedStores.failedToOpen(failedToOpen));
                retry.add(cache);
                LOG.error("cache '{}' was in front of {} before the restart and its store failed to open: {}; its"
                        + " writes are refused, its recovered changes kept, until the store opens (retried every {} s"
                        + " at most)", cache.name(), store, failedToOpen.getMessage(),
                        AwaitedStores.MAX_PAUSE.toSeconds(), failedToOpen);
            }
        }
        if (!retry.isEmpty()) {
            awaitedStores = AwaitedStores.start(retry, this::attachRecovered);
        }
    }

    /** The caches that await the store they were in front of before the restart. */
    private List<NodeCache<Object, Object>> awaitingStores() {
        List<NodeCache<Object, Object>> awaiting = new ArrayList<>();
        synchronized (lifecycle) {
            for (NodeCache<Object, Object> cache : cachesById.values()) {
                if (cache.storeBridge() == null && cache.awaitedStore() != null) {
                    awaiting.add(cache);
                }
            }
        }
        return awaiting;
    }

    private int cacheIdOf(NodeCache<Object, Object> cache) {
        for (Map.Entry<Integer, NodeCache<Object, Object>> e : cachesById.entrySet()) {
            if (e.getValue() == cache) {
                return e.getKey();
            }
        }
        throw new IllegalStateException("cache '" + cache.name() + "' has no id");
    }

    /**
     * Hands the store again every key recovery replayed from the log after the last checkpoint's mark (for a cache
     * that was write-behind then), with the value memory holds now (or its removal): the store may not have
     * confirmed them before the node stopped. Write-behind queues them; a store declared write-through since
     * writes them at once. Each partition's keys are read and queued under its write lock, so a write racing this one queues
     * after it and its value wins. Keys recovery spilled to disk are read back and queued a chunk at a time.
     */
    private void requeueRecovered(NodeCache<Object, Object> cache, CacheStoreBridge bridge, RecoveredKeys.CacheKeys keys) {
        long[] queued = {0};
        for (int p = 0; p < keys.partitions(); p++) {
            queued[0] += requeue(cache, bridge, p, keys.keys(p));
        }
        recoveredKeys.readSpilled(keys, (partition, partitionKeys) ->
                queued[0] += requeue(cache, bridge, partition, partitionKeys));
        LOG.info("cache '{}': {} keys changed since the last checkpoint {}{}", cache.name(), queued[0],
                bridge.writeBehind() != null ? "queued again for write-behind" : "written through again",
                keys.spilled() ? " (some read back from " + RecoveredKeys.SPILL_FILE + ")" : "");
    }

    /**
     * Hands the store the partition's keys with their values now (or their removal), under its write lock:
     * write-behind queues them, write-through writes them. @return keys handed over
     */
    private static int requeue(NodeCache<Object, Object> cache, CacheStoreBridge bridge, int partition,
                               List<byte[]> keys) {
        if (keys.isEmpty()) {
            return 0;
        }
        StoreChanges changes = bridge.newChanges();
        cache.store(partition).update(entry -> {
            for (byte[] key : keys) {
                entry.at(key, 0, key.length);
                byte[] value = null;
                if (entry.exists()) {
                    value = new byte[entry.valueLength()];
                    entry.readValue(value, 0);
                }
                changes.add(partition, key, 0, key.length, value == null ? key : value, 0,
                        value == null ? 0 : value.length, value == null);
            }
            bridge.beforeMemory(changes);
            bridge.afterMemory(changes);
        });
        return changes.size();
    }

    /**
     * Before a checkpoint's manifest moves the mark past them: every change a write-behind store has queued is
     * written (or reported). First every apply thread finishes what it had started (a streamed batch queues its
     * changes on its apply thread after applying them), and every application thread's write that changed memory
     * queues its change ({@link CacheStoreBridge#awaitWritesInFlight}); then each queue is flushed.
     *
     * @throws IllegalStateException if the apply threads do not get there within 5 minutes
     */
    private void confirmWriteBehind() {
        awaitCachesOpened();
        List<CacheStoreBridge> behind = new ArrayList<>();
        for (NodeCache<Object, Object> cache : caches.values()) {
            CacheStoreBridge bridge = cache.storeBridge();
            if (bridge != null && bridge.writeBehind() != null) {
                behind.add(bridge);
            }
        }
        if (behind.isEmpty()) {
            return;
        }
        StripedExecutor s = stripes;
        if (s != null) {
            CountDownLatch passed = new CountDownLatch(s.stripes());
            StripedExecutor.StripeTask barrier = new StripedExecutor.StripeTask() {
                @Override
                public void run() {
                    passed.countDown();
                }

                @Override
                public void abandon(Throwable reason) {
                    passed.countDown();
                }
            };
            for (int i = 0; i < s.stripes(); i++) {
                try {
                    s.execute(i, barrier);
                } catch (RejectedExecutionException stopped) {
                    barrier.abandon(stopped);
                }
            }
            try {
                if (!passed.await(5, TimeUnit.MINUTES)) {
                    throw new IllegalStateException("the apply threads did not finish their work within 5 minutes");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted waiting for the apply threads", e);
            }
        }
        for (CacheStoreBridge bridge : behind) {
            bridge.awaitWritesInFlight(); // application threads' writes that logged their change have queued it
            bridge.writeBehind().flush();
        }
    }

    private NodeCache<Object, Object> newCache(CacheConfig config) {
        int cacheId = nextCacheId;
        if (wal != null) {
            wal.appendCache(cacheId, config.partitions(), config.name());
            if (config.store() != null) {
                wal.appendStore(cacheId, StoreAttachment.toBytes(config.store()));
            }
        }
        NodeCache<Object, Object> cache;
        try {
            cache = newCache(config, cacheId);
        } catch (RuntimeException | Error e) {
            // The log names this id already: retire it, so that a replay does not bring a cache that never was.
            nextCacheId = cacheId + 1;
            if (wal != null) {
                wal.appendDrop(cacheId);
            }
            throw e;
        }
        awaitDurable();
        return cache;
    }

    /** Creates a cache whose partitions log their writes under this cache id (under the lifecycle lock). */
    private NodeCache<Object, Object> newCache(CacheConfig config, int cacheId) {
        PartitionStore[] stores = new PartitionStore[config.partitions()];
        try {
            for (int p = 0; p < stores.length; p++) {
                stores[p] = region.createPartition(wal == null ? StoreJournal.NONE : wal.journal(cacheId, p));
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
        NodeCache<Object, Object> cache = new NodeCache<>(this, config, stores, binary, false,
                new NodeCache.StoreSlot(storeBridge), false);
        caches.put(config.name(), cache);
        cachesById.put(cacheId, cache);
        nextCacheId = Math.max(nextCacheId, cacheId + 1);
        return cache;
    }

    @Override
    public <K, V> Cache<K, V> cache(String name) {
        return cast(nodeCache(name));
    }

    @Override
    public boolean destroyCache(String name) {
        Objects.requireNonNull(name, "name");
        NodeCache<Object, Object> cache;
        String reason = "cache '" + name + "' was destroyed";
        synchronized (lifecycle) {
            ensureNotClosing();
            if (wal != null) {
                wal.checkWritable();
            }
            cache = caches.remove(name);
            if (cache == null) {
                return false;
            }
            Integer cacheId = null;
            for (var e : cachesById.entrySet()) {
                if (e.getValue() == cache) {
                    cacheId = e.getKey();
                }
            }
            cachesById.remove(cacheId);
            cache.forgetAwaitedStore(); // the store retry lets it go
            recoveredKeys.forget(cacheId);
            // Each partition waits for the call running on it, then gives its pages to the free list; no write
            // to the cache is logged after the DROP record, and a checkpoint lists the cache only if its mark
            // comes before that record (both under the lifecycle lock).
            for (int p = 0; p < cache.partitions(); p++) {
                cache.store(p).destroy(reason);
            }
            if (wal != null) {
                wal.appendDrop(cacheId);
            }
        }
        awaitDurable();
        // Nothing writes to the cache any more: write-behind drains what it was given, then the store closes.
        if (cache.storeBridge() != null) {
            cache.storeBridge().close();
        }
        return true;
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
                () -> streamers.remove(self.get()), batchArrays);
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
        AwaitedStores retrying = awaitedStores;
        if (retrying != null) {
            retrying.close();
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
        if (checkpointer != null) {
            checkpointer.close();
            try {
                checkpointer.checkpoint(); // a clean stop leaves little log to replay
            } catch (CheckpointDeferredException e) {
                LOG.warn("no checkpoint at close: {}", e.getMessage());
            } catch (java.io.IOException | RuntimeException e) {
                LOG.error("the checkpoint at close failed; the next start replays the log since the previous one", e);
            }
        }
        closed = true;
        recoveredKeys.close();
        if (wal != null) {
            wal.close();
        }
        region.close();
        metrics.close();
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
