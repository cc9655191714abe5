package io.sluice.server.internal;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import io.sluice.CacheConfig;
import io.sluice.WriteSyncMode;
import io.sluice.EntryProcessor;
import io.sluice.StreamReceiver;
import io.sluice.node.NodeConfig;
import io.sluice.node.NodeOptions;
import io.sluice.node.PersistenceConfig;
import io.sluice.node.WalMode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * The node process's configuration file ({@code --config node.json}), read with Jackson. Every key
 * is optional; an unknown key or a bad value stops the start with a message naming the key. Sizes
 * are numbers of bytes or strings with a unit ({@code "256m"}, {@code "4g"}).
 * <pre>{@code
 * {
 *   "host": "127.0.0.1", "port": 10800,
 *   "pageSize": 4096, "dataRegionInitialSize": "256m", "dataRegionMaxSize": "4g", "applyThreads": 2,
 *   "caches": [{"name": "orders", "partitions": 1024, "store": {"name": "pg", "mode": "WRITE_THROUGH"},
 *               "backups": 1, "writeSync": "FULL_SYNC", "readFromBackup": true,
 *               "indexes": [["secCode"], ["account", "price"]]}],
 *   "receivers": {"audit": "com.example.AuditReceiver"},
 *   "processors": {"bump": "com.example.BumpProcessor"},
 *   "stores": {"pg": {"jdbc": {"url": "jdbc:postgresql://db/app", "table": "orders"}}},
 *   "maxFrameSize": "64m", "maxConnections": 1024, "idleTimeoutSeconds": 0, "maxQueuedBytes": "128m",
 *   "token": "secret", "metricsPort": 9404,
 *   "persistence": {"enabled": true, "directory": "/var/lib/sluice", "walMode": "FSYNC",
 *                   "walFlushIntervalMillis": 1000, "walSegmentSize": "64m",
 *                   "checkpointIntervalMillis": 60000},
 *   "cluster": {"zookeeper": "127.0.0.1:2181", "name": "demo", "nodeId": "a", "advertisedHost": "10.0.0.5",
 *               "sessionTimeoutMillis": 10000}
 * }
 * }</pre>
 * Stores and a cache's {@code store} are described in {@link StoreFileConfig}.
 * Without {@code persistence} (or with {@code "enabled": false}) the node keeps everything in memory.
 * Without {@code cluster} the node is standalone; reading a {@code cluster} object touches no class of the
 * cluster module (an optional dependency), which only the node process's join does.
 */
public record NodeFileConfig(String host, Integer port, Integer pageSize, Long dataRegionInitialSize,
                             Long dataRegionMaxSize, Integer applyThreads, List<CacheEntry> caches,
                             Map<String, String> receivers, Map<String, String> processors, Long maxFrameSize,
                             Integer maxConnections, Long idleTimeoutSeconds, Long maxQueuedBytes, String token,
                             PersistenceEntry persistence, TlsEntry tls, Integer metricsPort,
                             Map<String, StoreFileConfig.StoreEntry> stores, ClusterFileConfig cluster) {

    /** The keys a config file may have (what an unknown key's message lists): the node's declared options. */
    static final List<String> KEYS = NodeOptions.FILE.keys();
    /** The keys of the {@code tls} object. */
    static final List<String> TLS_KEYS = List.of("keyStore", "keyStorePassword");
    /** The keys of the {@code persistence} object: its declared settings. */
    static final List<String> PERSISTENCE_KEYS = NodeOptions.PERSISTENCE.keys();
    /** The keys of the {@code cluster} object: its declared settings. */
    static final List<String> CLUSTER_KEYS = NodeOptions.CLUSTER.keys();

    @JsonCreator
    public NodeFileConfig(@JsonProperty("host") String host, @JsonProperty("port") Integer port,
                          @JsonProperty("pageSize") Integer pageSize,
                          @JsonProperty("dataRegionInitialSize") JsonNode dataRegionInitialSize,
                          @JsonProperty("dataRegionMaxSize") JsonNode dataRegionMaxSize,
                          @JsonProperty("applyThreads") Integer applyThreads,
                          @JsonProperty("caches") List<CacheEntry> caches,
                          @JsonProperty("receivers") Map<String, String> receivers,
                          @JsonProperty("processors") Map<String, String> processors,
                          @JsonProperty("maxFrameSize") JsonNode maxFrameSize,
                          @JsonProperty("maxConnections") Integer maxConnections,
                          @JsonProperty("idleTimeoutSeconds") Long idleTimeoutSeconds,
                          @JsonProperty("maxQueuedBytes") JsonNode maxQueuedBytes,
                          @JsonProperty("token") String token,
                          @JsonProperty("persistence") PersistenceEntry persistence,
                          @JsonProperty("tls") TlsEntry tls,
                          @JsonProperty("metricsPort") Integer metricsPort,
                          @JsonProperty("stores") Map<String, StoreFileConfig.StoreEntry> stores,
                          @JsonProperty("cluster") ClusterFileConfig cluster) {
        this(host, port, pageSize, size("dataRegionInitialSize", dataRegionInitialSize),
                size("dataRegionMaxSize", dataRegionMaxSize), applyThreads, caches, receivers, processors,
                size("maxFrameSize", maxFrameSize), maxConnections, idleTimeoutSeconds,
                size("maxQueuedBytes", maxQueuedBytes), token, persistence, tls, metricsPort, stores, cluster);
    }

    /** The node's TLS: a PKCS#12 key store holding its key and certificate. Absent: plain TCP. */
    public record TlsEntry(String keyStore, String keyStorePassword) {
        @JsonCreator
        public TlsEntry(@JsonProperty("keyStore") String keyStore,
                        @JsonProperty("keyStorePassword") String keyStorePassword) {
            if (keyStore == null || keyStore.isBlank()) {
                throw new IllegalArgumentException("key 'tls.keyStore' is missing; TLS needs a PKCS#12 key store file");
            }
            if (keyStorePassword == null) {
                throw new IllegalArgumentException("key 'tls.keyStorePassword' is missing");
            }
            this.keyStore = keyStore;
            this.keyStorePassword = keyStorePassword;
        }

        TlsConfig config() {
            return new TlsConfig(java.nio.file.Path.of(keyStore), keyStorePassword);
        }

        /** Without the password (a record's own toString would print it). */
        @Override
        public String toString() {
            return "TlsEntry{keyStore=" + keyStore + ", keyStorePassword=set}";
        }
    }

    /** The data region's persistence: absent, or {@code enabled: false}, means in memory only. */
    public record PersistenceEntry(Boolean enabled, String directory, String walMode, Long walFlushIntervalMillis,
                                   Long walSegmentSize, Long checkpointIntervalMillis, Boolean checkOnRecovery,
                                   Long recoveredKeysMemory) {
        @JsonCreator
        public PersistenceEntry(@JsonProperty("enabled") Boolean enabled, @JsonProperty("directory") String directory,
                                @JsonProperty("walMode") String walMode,
                                @JsonProperty("walFlushIntervalMillis") Long walFlushIntervalMillis,
                                @JsonProperty("walSegmentSize") JsonNode walSegmentSize,
                                @JsonProperty("checkpointIntervalMillis") Long checkpointIntervalMillis,
                                @JsonProperty("checkOnRecovery") Boolean checkOnRecovery,
                                @JsonProperty("recoveredKeysMemory") JsonNode recoveredKeysMemory) {
            this(enabled, directory, walMode, walFlushIntervalMillis, size("persistence.walSegmentSize", walSegmentSize),
                    checkpointIntervalMillis, checkOnRecovery,
                    size("persistence.recoveredKeysMemory", recoveredKeysMemory));
        }

        /** The config it describes. @throws IllegalArgumentException naming the key of a bad or missing value */
        PersistenceConfig config() {
            if (Boolean.FALSE.equals(enabled)) {
                return PersistenceConfig.disabled();
            }
            if (directory == null || directory.isBlank()) {
                throw new IllegalArgumentException("key 'persistence.directory' is missing; persistence needs a directory"
                        + " (or set \"enabled\": false)");
            }
            PersistenceConfig config = PersistenceConfig.at(Path.of(directory));
            if (walMode != null) {
                WalMode mode;
                try {
                    mode = WalMode.valueOf(walMode.trim().toUpperCase(Locale.ROOT));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("key 'persistence.walMode' is '" + walMode + "'; it must be one of "
                            + java.util.Arrays.toString(WalMode.values()));
                }
                config = config.withWalMode(mode);
            }
            try {
                if (walFlushIntervalMillis != null) {
                    config = config.withWalFlushInterval(Duration.ofMillis(walFlushIntervalMillis));
                }
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("key 'persistence." + NodeOptions.WAL_FLUSH_INTERVAL.fileKey() + "': "
                        + e.getMessage(), e);
            }
            try {
                if (walSegmentSize != null) {
                    config = config.withWalSegmentSize(walSegmentSize);
                }
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("key 'persistence." + NodeOptions.WAL_SEGMENT_SIZE.fileKey() + "': "
                        + e.getMessage(), e);
            }
            try {
                if (checkpointIntervalMillis != null) {
                    config = config.withCheckpointInterval(Duration.ofMillis(checkpointIntervalMillis));
                }
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("key 'persistence." + NodeOptions.CHECKPOINT_INTERVAL.fileKey() + "': "
                        + e.getMessage(), e);
            }
            if (checkOnRecovery != null) {
                config = config.withCheckOnRecovery(checkOnRecovery);
            }
            try {
                if (recoveredKeysMemory != null) {
                    config = config.withRecoveredKeysMemory(recoveredKeysMemory);
                }
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("key 'persistence." + NodeOptions.RECOVERED_KEYS_MEMORY.fileKey() + "': "
                        + e.getMessage(), e);
            }
            return config;
        }
    }

    /**
     * A cache to create at start, optionally in front of a store of {@code "stores"}, with {@link CacheConfig}'s
     * options: {@code backups}, {@code writeSync} (a {@link WriteSyncMode} name), {@code readFromBackup} and
     * {@code indexes} (each index a list of fields).
     */
    public record CacheEntry(@JsonProperty("name") String name, @JsonProperty("partitions") Integer partitions,
                             @JsonProperty("store") StoreFileConfig.CacheStoreEntry store,
                             @JsonProperty("backups") Integer backups, @JsonProperty("writeSync") String writeSync,
                             @JsonProperty("readFromBackup") Boolean readFromBackup,
                             @JsonProperty("indexes") List<List<String>> indexes) {

        /** A cache with the default options. */
        public CacheEntry(String name, Integer partitions, StoreFileConfig.CacheStoreEntry store) {
            this(name, partitions, store, null, null, null, null);
        }

        /** The config this entry declares. @throws IllegalArgumentException naming the key of a bad value */
        CacheConfig config(String key) {
            CacheConfig config = CacheConfig.named(name);
            config = partitions == null ? config : config.withPartitions(partitions);
            if (store != null) {
                config = config.withStore(store.config(key + ".store"));
            }
            config = backups == null ? config : config.withBackups(backups);
            if (writeSync != null) {
                try {
                    config = config.withWriteSync(WriteSyncMode.valueOf(writeSync));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("key '" + key + ".writeSync' is " + writeSync + "; it must be"
                            + " one of " + Arrays.toString(WriteSyncMode.values()), e);
                }
            }
            config = readFromBackup == null ? config : config.withReadFromBackup(readFromBackup);
            if (indexes != null) {
                for (List<String> index : indexes) {
                    if (index == null) {
                        throw new IllegalArgumentException("key '" + key + ".indexes' holds a null index");
                    }
                    config = config.index(index.toArray(String[]::new));
                }
            }
            return config;
        }
    }

    /** No file: every default. */
    static NodeFileConfig empty() {
        return new NodeFileConfig(null, null, null, (Long) null, null, null, null, null, null, (Long) null, null,
                null, null, null, null, null, null, null, null);
    }

    /**
     * Reads a config file.
     *
     * @throws IllegalArgumentException naming the file and the key for an unknown key or a bad value
     */
    static NodeFileConfig read(Path file) {
        ObjectMapper mapper = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
        try {
            return mapper.readValue(Files.readAllBytes(file), NodeFileConfig.class);
        } catch (UnrecognizedPropertyException e) {
            throw new IllegalArgumentException(file + ": unknown key '" + e.getPropertyName() + "'"
                    + where(e.getPath()) + "; the keys are " + (e.getPath().size() <= 1 ? KEYS
                    : "persistence".equals(e.getPath().get(0).getFieldName()) ? PERSISTENCE_KEYS
                    : "tls".equals(e.getPath().get(0).getFieldName()) ? TLS_KEYS
                    : "cluster".equals(e.getPath().get(0).getFieldName()) ? CLUSTER_KEYS
                    : "stores".equals(e.getPath().get(0).getFieldName())
                            ? (e.getPath().size() >= 4 ? StoreFileConfig.JDBC_KEYS : StoreFileConfig.STORE_KEYS)
                    : e.getPath().size() >= 4 ? StoreFileConfig.CACHE_STORE_KEYS : "name, partitions, store"));
        } catch (ValueInstantiationException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new IllegalArgumentException(file + ": " + cause.getMessage(), e);
        } catch (InvalidFormatException e) {
            throw new IllegalArgumentException(file + ": key '" + path(e.getPath()) + "' has the value "
                    + e.getValue() + ", which is not a " + e.getTargetType().getSimpleName(), e);
        } catch (MismatchedInputException e) {
            throw new IllegalArgumentException(file + ": key '" + path(e.getPath()) + "' has a value of the wrong kind"
                    + " (expected " + (e.getTargetType() == null ? "another" : e.getTargetType().getSimpleName()) + ")", e);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the node config " + file + ": " + e.getMessage(), e);
        }
    }

    private static String path(List<com.fasterxml.jackson.databind.JsonMappingException.Reference> path) {
        return path.stream().map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
                .collect(Collectors.joining("."));
    }

    private static String where(List<com.fasterxml.jackson.databind.JsonMappingException.Reference> path) {
        return path.size() > 1 ? " in '" + path(path.subList(0, path.size() - 1)) + "'" : "";
    }

    /** A size: a number of bytes, or a string with a unit (k, m, g; case-insensitive). */
    static Long size(String key, JsonNode node) {
        if (node == null || node.isNull()) {
            return null;
        }
        if (node.isIntegralNumber()) {
            return node.asLong();
        }
        if (node.isTextual()) {
            String text = node.asText().trim().toLowerCase(Locale.ROOT);
            long unit = 1;
            if (text.endsWith("k") || text.endsWith("m") || text.endsWith("g")) {
                unit = switch (text.charAt(text.length() - 1)) {
                    case 'k' -> 1L << 10;
                    case 'm' -> 1L << 20;
                    default -> 1L << 30;
                };
                text = text.substring(0, text.length() - 1);
            }
            try {
                return Math.multiplyExact(Long.parseLong(text.trim()), unit);
            } catch (NumberFormatException | ArithmeticException e) {
                // falls through to the error below
            }
        }
        throw new IllegalArgumentException("key '" + key + "' has the value " + node
                + ", which is not a size (bytes, or a number with k, m or g)");
    }

    /**
     * The node's config, with the command line's host and port over the file's.
     *
     * @throws IllegalArgumentException naming the key of a bad value or an unloadable receiver or processor class
     */
    NodeConfig nodeConfig() {
        NodeConfig.Builder b = NodeConfig.builder();
        apply(NodeOptions.PAGE_SIZE.fileKey(), pageSize, v -> b.pageSize(v));
        apply(NodeOptions.DATA_REGION_INITIAL_SIZE.fileKey(), dataRegionInitialSize, v -> b.dataRegionInitialSize(v));
        apply(NodeOptions.DATA_REGION_MAX_SIZE.fileKey(), dataRegionMaxSize, v -> b.dataRegionMaxSize(v));
        apply(NodeOptions.APPLY_THREADS.fileKey(), applyThreads, v -> b.applyThreads(v));
        if (persistence != null) {
            b.persistence(persistence.config());
        }
        if (receivers != null) {
            receivers.forEach((name, cls) -> apply("receivers." + name, cls, c -> {
                Supplier<Object> make = factory("receivers." + name, c, StreamReceiver.class);
                b.receiver(name, () -> (StreamReceiver<?, ?>) make.get());
            }));
        }
        if (stores != null) {
            stores.forEach((name, entry) -> {
                if (entry == null) {
                    throw new IllegalArgumentException("key 'stores." + name + "' is null; give \"class\" or \"jdbc\"");
                }
                apply("stores." + name, entry, e -> b.store(name, e.factory(name)));
            });
        }
        if (processors != null) {
            processors.forEach((name, cls) -> apply("processors." + name, cls, c -> {
                Supplier<Object> make = factory("processors." + name, c, EntryProcessor.class);
                b.processor(name, () -> (EntryProcessor<?, ?, ?>) make.get());
            }));
        }
        for (CacheConfig cache : cacheConfigs()) {
            apply("caches", cache, b::cache);
        }
        if (cluster != null) {
            b.cluster(cluster.config());
        }
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("node config: " + e.getMessage(), e);
        }
    }

    /** The server's config, with the command line's host and port over the file's. */
    ServerConfig serverConfig(String hostOverride, Integer portOverride) {
        String h = hostOverride != null ? hostOverride : host != null ? host : NodeOptions.HOST.defaultValue();
        int p = portOverride != null ? portOverride : port != null ? port : NodeOptions.PORT.defaultValue();
        long frame = maxFrameSize != null ? maxFrameSize : NodeOptions.MAX_FRAME_SIZE.defaultValue();
        apply(NodeOptions.MAX_FRAME_SIZE.fileKey(), frame, NodeOptions.MAX_FRAME_SIZE::check);
        try {
            return new ServerConfig(h, p, (int) frame,
                    maxConnections != null ? maxConnections : NodeOptions.MAX_CONNECTIONS.defaultValue(),
                    Duration.ofSeconds(idleTimeoutSeconds != null ? idleTimeoutSeconds
                            : NodeOptions.IDLE_TIMEOUT_SECONDS.defaultValue()),
                    token, maxQueuedBytes != null ? maxQueuedBytes
                            : Math.max(NodeOptions.MAX_QUEUED_BYTES.defaultValue(), frame),
                    tls == null ? null : tls.config());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("node config: " + e.getMessage(), e);
        }
    }

    /**
     * The port of the Prometheus endpoint, the command line's over the file's: 0 = any free port, null = none.
     *
     * @throws IllegalArgumentException if it is not a port
     */
    Integer metricsPort(Integer override) {
        Integer p = override != null ? override : metricsPort;
        if (p != null) {
            try {
                NodeOptions.METRICS_PORT.check(p);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("key 'metricsPort' (--metrics-port) is " + p + "; it must "
                        + NodeOptions.METRICS_PORT.bounds(), e);
            }
        }
        return p;
    }

    /** The caches to create at start. */
    List<CacheConfig> cacheConfigs() {
        List<CacheConfig> list = new ArrayList<>();
        if (caches != null) {
            for (int i = 0; i < caches.size(); i++) {
                CacheEntry c = caches.get(i);
                if (c == null || c.name() == null) {
                    throw new IllegalArgumentException("key 'caches[" + i + "].name' is missing");
                }
                int index = i;
                apply("caches[" + index + "]", c, e -> list.add(e.config("caches[" + index + "]")));
            }
        }
        return list;
    }

    private static <T> void apply(String key, T value, java.util.function.Consumer<T> setter) {
        if (value == null) {
            return;
        }
        try {
            setter.accept(value);
        } catch (IllegalArgumentException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("key '")) {
                throw e; // names its key already
            }
            throw new IllegalArgumentException("key '" + key + "': " + e.getMessage(), e);
        }
    }

    /** A factory making instances of a class from the node's class path by its no-argument constructor. */
    static Supplier<Object> factory(String key, String className, Class<?> type) {
        Class<?> cls;
        try {
            cls = Class.forName(className, true, NodeFileConfig.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalArgumentException("class " + className + " is not on the node's class path (" + e + ")");
        }
        if (!type.isAssignableFrom(cls)) {
            throw new IllegalArgumentException("class " + className + " is not a " + type.getName());
        }
        java.lang.reflect.Constructor<?> constructor;
        try {
            constructor = cls.getConstructor();
        } catch (NoSuchMethodException e) {
            throw new IllegalArgumentException("class " + className + " has no public no-argument constructor");
        }
        return () -> {
            try {
                return constructor.newInstance();
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("creating " + className + " (" + key + ") failed: " + e.getCause(), e);
            }
        };
    }

    /** The config without its secrets (a record's own toString would print the token and the key store's password). */
    @Override
    public String toString() {
        return "NodeFileConfig" + describe();
    }

    /** The config as a map, for the start log. */
    Map<String, Object> describe() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("caches", caches == null ? List.of() : caches.stream().map(CacheEntry::name).toList());
        m.put("receivers", receivers == null ? Map.of() : receivers.keySet());
        m.put("processors", processors == null ? Map.of() : processors.keySet());
        m.put("stores", stores == null ? Map.of() : stores.keySet());
        m.put("token", token == null ? "none" : "set");
        m.put("tls", tls == null ? "off" : "key store " + tls.keyStore());
        m.put("metricsPort", metricsPort == null ? "off" : metricsPort);
        m.put("persistence", persistence == null ? PersistenceConfig.disabled() : persistence.config());
        m.put("cluster", cluster == null ? "none (standalone)" : cluster.config());
        return m;
    }
}
