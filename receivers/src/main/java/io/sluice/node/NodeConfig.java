package io.sluice.node;

import io.sluice.CacheConfig;
import io.sluice.CacheStore;
import io.sluice.EntryProcessor;
import io.sluice.Processors;
import io.sluice.Receivers;
import io.sluice.StreamReceiver;
import io.sluice.receiver.internal.ReceiverRegistry;
import io.sluice.pagestore.internal.DataRegionConfig;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How an embedded {@link SluiceNode} is set up: the size of its off-heap data region, the number
 * of threads that apply streamed batches, and the custom receivers it offers by name. Immutable;
 * made with {@link #defaults()} or {@link #builder()} and validated when built. Each option's name,
 * default, bounds and documentation are declared once, in {@link NodeOptions}.
 *
 * <pre>{@code
 * NodeConfig config = NodeConfig.builder()
 *         .dataRegionMaxSize(8L << 30)
 *         .receiver("audit", AuditReceiver::new)
 *         .build();
 * }</pre>
 */
public final class NodeConfig {

    private static final Logger LOG = LoggerFactory.getLogger(NodeConfig.class);

    /** The most apply threads a node may have. */
    public static final int MAX_APPLY_THREADS = 1024;

    private final DataRegionConfig dataRegion;
    private final int applyThreads;
    private final PersistenceConfig persistence;
    private final Map<String, Supplier<? extends StreamReceiver<?, ?>>> receivers;
    private final Map<String, Supplier<? extends EntryProcessor<?, ?, ?>>> processors;
    private final Map<String, Supplier<? extends CacheStore<?, ?>>> stores;
    private final List<CacheConfig> caches;
    private final ClusterConfig cluster;

    private NodeConfig(Builder b) {
        this.dataRegion = b.region();
        this.applyThreads = b.applyThreads;
        this.persistence = b.persistence;
        this.receivers = Collections.unmodifiableMap(new LinkedHashMap<>(b.receivers));
        this.processors = Collections.unmodifiableMap(new LinkedHashMap<>(b.processors));
        this.stores = Collections.unmodifiableMap(new LinkedHashMap<>(b.stores));
        this.caches = List.copyOf(b.caches.values());
        this.cluster = b.cluster;
    }

    /** The defaults: 4 KiB pages, a data region of 256 MiB at start and 4 GiB at most, one apply thread per processor. */
    public static NodeConfig defaults() {
        return builder().build();
    }

    /** A builder holding the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** Bytes per page of the data region. */
    public int pageSize() {
        return dataRegion.pageSize();
    }

    /** Bytes of page memory reserved when the node starts. */
    public long dataRegionInitialSize() {
        return dataRegion.initialSize();
    }

    /** Bytes the data region may grow to. */
    public long dataRegionMaxSize() {
        return dataRegion.maxSize();
    }

    /** Threads applying streamed batches; partition {@code p} is applied by thread {@code p % applyThreads}. */
    public int applyThreads() {
        return applyThreads;
    }

    /** Whether and how the data region is persisted; {@link PersistenceConfig#disabled()} unless set. */
    public PersistenceConfig persistence() {
        return persistence;
    }

    /** The custom receivers by name, in the order they were registered. */
    public Map<String, Supplier<? extends StreamReceiver<?, ?>>> receivers() {
        return receivers;
    }

    /** The custom entry processors by name, in the order they were registered. */
    public Map<String, Supplier<? extends EntryProcessor<?, ?, ?>>> processors() {
        return processors;
    }

    /** The cache stores by name, in the order they were registered ({@link io.sluice.CacheStoreConfig#storeName()}). */
    public Map<String, Supplier<? extends CacheStore<?, ?>>> stores() {
        return stores;
    }

    /**
     * The caches the node has from its start, in the order they were declared ({@link Builder#cache}).
     */
    public List<CacheConfig> caches() {
        return caches;
    }

    /**
     * The cluster the node joins, if any; empty (the default): the node is standalone and needs no ZooKeeper.
     * Joining is the node process's ({@link ClusterConfig}).
     */
    public Optional<ClusterConfig> cluster() {
        return Optional.ofNullable(cluster);
    }

    /** Whether the name is one of the built-in receivers ({@link Receivers}). */
    static boolean isBuiltInReceiver(String name) {
        return ReceiverRegistry.BUILT_INS.containsKey(name);
    }

    @Override
    public String toString() {
        return "NodeConfig{pageSize=" + pageSize() + ", dataRegionInitialSize=" + dataRegionInitialSize()
                + ", dataRegionMaxSize=" + dataRegionMaxSize() + ", applyThreads=" + applyThreads
                + ", persistence=" + persistence + ", receivers=" + receivers.keySet() + ", processors=" + processors.keySet()
                + (stores.isEmpty() ? "" : ", stores=" + stores.keySet())
                + (caches.isEmpty() ? "" : ", caches=" + caches.stream().map(CacheConfig::name).toList())
                + (cluster == null ? "" : ", cluster=" + cluster) + '}';
    }

    /** Builds a {@link NodeConfig}; every setter checks its argument, {@link #build()} checks them together. */
    public static final class Builder {
        private int pageSize = NodeOptions.PAGE_SIZE.defaultValue();
        /** The sizes the user set, or -1 for the default. */
        private long dataRegionInitialSize = -1;
        private long dataRegionMaxSize = -1;
        private int applyThreads = Runtime.getRuntime().availableProcessors();
        private PersistenceConfig persistence = PersistenceConfig.disabled();
        private final Map<String, Supplier<? extends StreamReceiver<?, ?>>> receivers = new LinkedHashMap<>();
        private final Map<String, Supplier<? extends EntryProcessor<?, ?, ?>>> processors = new LinkedHashMap<>();
        private final Map<String, Supplier<? extends CacheStore<?, ?>>> stores = new LinkedHashMap<>();
        private final Map<String, CacheConfig> caches = new LinkedHashMap<>();
        private ClusterConfig cluster;

        private Builder() {
        }

        /** @param bytes a power of two from 1024 to 16384; default 4096 ({@link NodeOptions#PAGE_SIZE}) */
        public Builder pageSize(int bytes) {
            this.pageSize = NodeOptions.PAGE_SIZE.check(bytes);
            return this;
        }

        /**
         * @param bytes zero or more, at most {@link #dataRegionMaxSize(long)}; default 256 MiB, or the
         *              max size if that is set lower
         */
        public Builder dataRegionInitialSize(long bytes) {
            this.dataRegionInitialSize = NodeOptions.DATA_REGION_INITIAL_SIZE.check(bytes);
            return this;
        }

        /**
         * @param bytes at least {@value DataRegionConfig#MIN_PAGES} pages; default 4 GiB, or the initial size if
         *              that is set higher
         */
        public Builder dataRegionMaxSize(long bytes) {
            this.dataRegionMaxSize = NodeOptions.DATA_REGION_MAX_SIZE.check(bytes);
            return this;
        }

        /**
         * The region's sizes: what the user set; a default the user did not set follows the other size
         * when it would contradict it (logged once), so that setting one size alone never fails.
         */
        private DataRegionConfig region() {
            long initial = dataRegionInitialSize;
            long max = dataRegionMaxSize;
            if (initial < 0 && max >= 0 && NodeOptions.DATA_REGION_INITIAL_SIZE.defaultValue() > max) {
                initial = max;
                LOG.info("dataRegionInitialSize not set: it follows dataRegionMaxSize down to {} bytes "
                        + "(the default is {})", max, NodeOptions.DATA_REGION_INITIAL_SIZE.defaultValue());
            }
            if (max < 0 && initial > NodeOptions.DATA_REGION_MAX_SIZE.defaultValue()) {
                max = initial;
                LOG.info("dataRegionMaxSize not set: it follows dataRegionInitialSize up to {} bytes "
                        + "(the default is {})", initial, NodeOptions.DATA_REGION_MAX_SIZE.defaultValue());
            }
            return new DataRegionConfig(pageSize,
                    initial < 0 ? NodeOptions.DATA_REGION_INITIAL_SIZE.defaultValue() : initial,
                    max < 0 ? NodeOptions.DATA_REGION_MAX_SIZE.defaultValue() : max);
        }

        /** @param threads 1 to {@value NodeConfig#MAX_APPLY_THREADS}; default the number of processors */
        public Builder applyThreads(int threads) {
            this.applyThreads = NodeOptions.APPLY_THREADS.check(threads);
            return this;
        }

        /**
         * Whether and how the data region survives a restart (a directory and a {@link WalMode}); default
         * {@link PersistenceConfig#disabled()}: in memory only.
         *
         * @throws NullPointerException if persistence is null
         */
        public Builder persistence(PersistenceConfig persistence) {
            this.persistence = Objects.requireNonNull(persistence, "persistence");
            return this;
        }

        /**
         * Registers a custom receiver that streamers choose with {@link Receivers#named(String)}. The
         * node calls the factory once per apply thread when it starts, so a receiver instance is only
         * ever called by one thread at a time and need not be thread-safe.
         *
         * @throws NullPointerException if name or factory is null
         * @throws IllegalArgumentException if name is blank, a built-in receiver's name, or already registered
         */
        public Builder receiver(String name, Supplier<? extends StreamReceiver<?, ?>> factory) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(factory, "factory");
            if (name.isBlank()) {
                throw new IllegalArgumentException("receiver name must not be blank (NodeConfig.receiver)");
            }
            if (isBuiltInReceiver(name)) {
                throw new IllegalArgumentException("receiver name '" + name + "' is reserved for a built-in receiver "
                        + new TreeSet<>(ReceiverRegistry.BUILT_INS.keySet()) + "; choose another name (NodeConfig.receiver)");
            }
            if (name.startsWith(Receivers.TRANSFORM_PREFIX)) {
                throw new IllegalArgumentException("receiver name '" + name + "' starts with '"
                        + Receivers.TRANSFORM_PREFIX + "', which names transformer receivers; choose another name"
                        + " (NodeConfig.receiver)");
            }
            if (receivers.containsKey(name)) {
                throw new IllegalArgumentException("receiver '" + name
                        + "' is already registered; each name may be registered once (NodeConfig.receiver)");
            }
            receivers.put(name, factory);
            return this;
        }

        /**
         * Registers a custom entry processor that callers choose with {@link Processors#named} for
         * {@code Cache.invoke}/{@code invokeAll} and streamers with {@link Receivers#transform(String)}.
         * The node calls the factory once per apply thread when it starts, so an instance is only ever
         * called by one thread at a time and need not be thread-safe.
         *
         * @throws NullPointerException if name or factory is null
         * @throws IllegalArgumentException if name is blank, starts with {@value Processors#BUILT_IN_PREFIX}
         *         (reserved for the built-ins), or is already registered
         */
        public Builder processor(String name, Supplier<? extends EntryProcessor<?, ?, ?>> factory) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(factory, "factory");
            if (name.isBlank()) {
                throw new IllegalArgumentException("processor name must not be blank (NodeConfig.processor)");
            }
            if (name.startsWith(Processors.BUILT_IN_PREFIX)) {
                throw new IllegalArgumentException("processor name '" + name + "' starts with '"
                        + Processors.BUILT_IN_PREFIX + "', which is reserved for built-in processors; choose another"
                        + " name (NodeConfig.processor)");
            }
            if (processors.containsKey(name)) {
                throw new IllegalArgumentException("processor '" + name
                        + "' is already registered; each name may be registered once (NodeConfig.processor)");
            }
            processors.put(name, factory);
            return this;
        }

        /**
         * Registers a cache store that caches attach by name
         * ({@code CacheConfig.withStore(CacheStoreConfig.writeThrough(name))}). The node calls the
         * factory once per cache that names the store, when the cache is created; that instance serves
         * the whole cache from several threads and must be thread-safe ({@link CacheStore}).
         *
         * @throws NullPointerException if name or factory is null
         * @throws IllegalArgumentException if name is blank or already registered
         */
        public Builder store(String name, Supplier<? extends CacheStore<?, ?>> factory) {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(factory, "factory");
            if (name.isBlank()) {
                throw new IllegalArgumentException("store name must not be blank (NodeConfig.store)");
            }
            if (stores.containsKey(name)) {
                throw new IllegalArgumentException("store '" + name
                        + "' is already registered; each name may be registered once (NodeConfig.store)");
            }
            stores.put(name, factory);
            return this;
        }

        /**
         * Declares a cache the node has from its start: created when the node starts, or, when persistence
         * recovered it, put in front of the store this config names — the declaration wins over the store
         * attachment the cache had before the restart, so this is where a recovered cache's store settings
         * change (a config without a store leaves a recovered cache without one). A recovered cache that is
         * not declared goes back in front of the store it had, with its settings. The node file's
         * {@code caches} are declared here.
         *
         * @throws NullPointerException if config is null
         * @throws IllegalArgumentException if a cache of that name is declared already
         */
        public Builder cache(CacheConfig config) {
            Objects.requireNonNull(config, "config");
            if (caches.containsKey(config.name())) {
                throw new IllegalArgumentException("cache '" + config.name()
                        + "' is already declared; each name may be declared once (NodeConfig.cache)");
            }
            caches.put(config.name(), config);
            return this;
        }

        /**
         * Makes the node a member of a cluster (ZooKeeper's address, the cluster's name, the node's id); default
         * none: standalone. The node process ({@code sluice-node.jar}) joins it once its server listens;
         * {@link SluiceNode#start} refuses a config with a cluster.
         *
         * @throws NullPointerException if cluster is null
         */
        public Builder cluster(ClusterConfig cluster) {
            this.cluster = Objects.requireNonNull(cluster, "cluster");
            return this;
        }

        /**
         * Builds the config.
         *
         * @throws IllegalArgumentException if the data region cannot hold 16 pages, or its initial size
         *         exceeds its maximum size
         */
        public NodeConfig build() {
            return new NodeConfig(this);
        }
    }
}
