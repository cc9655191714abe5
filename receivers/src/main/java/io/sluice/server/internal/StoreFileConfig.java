package io.sluice.server.internal;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.sluice.CacheStore;
import io.sluice.CacheStoreConfig;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The cache store parts of the node file: the stores the node offers by name ({@code "stores"}),
 * and a cache's attachment to one ({@code "caches": [{"store": ...}]}).
 * <pre>{@code
 * "stores": {
 *   "pg":    {"jdbc": {"url": "jdbc:postgresql://db:5432/app", "username": "app", "password": "...",
 *                      "table": "orders", "keyColumn": "id", "keyType": "BIGINT", "valueColumn": "body",
 *                      "jsonValues": "StockOrder", "createTable": true, "maxBatchSize": 512,
 *                      "copyThreshold": 0, "batchStatement": "UNNEST_ARRAYS", "poolSize": 4,
 *                      "concurrentBatches": 2, "connectionTimeoutMillis": 5000, "retryAttempts": 3, "retryBackoffMillis": 100}},
 *   "audit": {"class": "com.example.AuditStore"}
 * },
 * "caches": [{"name": "orders", "store": {"name": "pg", "mode": "WRITE_THROUGH", "readThrough": true}}]
 * }</pre>
 * A {@code "class"} is a {@link CacheStore} with a public no-argument constructor on the node's class
 * path; the node makes one instance per cache that names the store. Every error names its key.
 */
final class StoreFileConfig {

    /** The keys of a {@code stores.<name>} object. */
    static final List<String> STORE_KEYS = List.of("class", "jdbc");
    /** The keys of a {@code stores.<name>.jdbc} object. */
    static final List<String> JDBC_KEYS = List.of("url", "username", "password", "table", "keyColumn", "keyType",
            "valueColumn", "jsonValues", "createTable", "maxBatchSize", "copyThreshold", "batchStatement", "poolSize",
            "concurrentBatches", "connectionTimeoutMillis", "retryAttempts", "retryBackoffMillis");
    /** The keys of a {@code caches[i].store} object. */
    static final List<String> CACHE_STORE_KEYS = List.of("name", "mode", "readThrough", "flushSize",
            "flushIntervalMillis", "queueBound", "flushAttempts", "flushThreads");

    private StoreFileConfig() {
    }

    /** A store the node offers: a class, or the built-in JDBC store with its settings. Exactly one. */
    record StoreEntry(String className, JdbcEntry jdbc) {
        @JsonCreator
        StoreEntry(@JsonProperty("class") String className, @JsonProperty("jdbc") JdbcEntry jdbc) {
            this.className = className;
            this.jdbc = jdbc;
        }

        /**
         * The factory of the store named {@code name}.
         *
         * @throws IllegalArgumentException naming the key if neither or both are given, or the class is unusable
         */
        Supplier<? extends CacheStore<?, ?>> factory(String name) {
            String key = "stores." + name;
            if ((className == null) == (jdbc == null)) {
                throw new IllegalArgumentException("key '" + key + "' must have exactly one of \"class\" (a CacheStore"
                        + " class) or \"jdbc\" (the built-in JDBC store's settings)");
            }
            if (className != null) {
                Supplier<Object> make = NodeFileConfig.factory(key + ".class", className, CacheStore.class);
                return () -> (CacheStore<?, ?>) make.get();
            }
            try {
                return JdbcStoreFile.factory(key + ".jdbc", jdbc);
            } catch (NoClassDefFoundError missing) {
                // sluice-jdbc-store is an optional dependency of the node: in sluice-node.jar, not always embedded.
                throw new IllegalArgumentException("key '" + key + ".jdbc' configures the JDBC store, which is not"
                        + " on the node's class path (add io.sluice:sluice-jdbc-store): " + missing, missing);
            }
        }
    }

    /**
     * The built-in JDBC store's settings as the file gives them; only {@code url} is required, the rest default as
     * in {@code JdbcStoreConfig}. Plain values: reading them touches no class of the JDBC store, which
     * {@link JdbcStoreFile} turns them into only when a store is configured.
     */
    record JdbcEntry(String url, String username, String password, String table, String keyColumn, String keyType,
                     String valueColumn, String jsonValues, Boolean createTable, Integer maxBatchSize,
                     Integer copyThreshold, String batchStatement, Integer poolSize, Integer concurrentBatches,
                     Long connectionTimeoutMillis, Integer retryAttempts, Long retryBackoffMillis) {
        @JsonCreator
        JdbcEntry(@JsonProperty("url") String url, @JsonProperty("username") String username,
                  @JsonProperty("password") String password, @JsonProperty("table") String table,
                  @JsonProperty("keyColumn") String keyColumn, @JsonProperty("keyType") String keyType,
                  @JsonProperty("valueColumn") String valueColumn, @JsonProperty("jsonValues") String jsonValues,
                  @JsonProperty("createTable") Boolean createTable, @JsonProperty("maxBatchSize") Integer maxBatchSize,
                  @JsonProperty("copyThreshold") Integer copyThreshold,
                  @JsonProperty("batchStatement") String batchStatement, @JsonProperty("poolSize") Integer poolSize,
                  @JsonProperty("concurrentBatches") Integer concurrentBatches,
                  @JsonProperty("connectionTimeoutMillis") Long connectionTimeoutMillis,
                  @JsonProperty("retryAttempts") Integer retryAttempts,
                  @JsonProperty("retryBackoffMillis") Long retryBackoffMillis) {
            this.url = url;
            this.username = username;
            this.password = password;
            this.table = table;
            this.keyColumn = keyColumn;
            this.keyType = keyType;
            this.valueColumn = valueColumn;
            this.jsonValues = jsonValues;
            this.createTable = createTable;
            this.maxBatchSize = maxBatchSize;
            this.copyThreshold = copyThreshold;
            this.batchStatement = batchStatement;
            this.poolSize = poolSize;
            this.concurrentBatches = concurrentBatches;
            this.connectionTimeoutMillis = connectionTimeoutMillis;
            this.retryAttempts = retryAttempts;
            this.retryBackoffMillis = retryBackoffMillis;
        }
    }

    /** A cache's attachment to a store: the store's name, the mode and write-behind's settings. */
    record CacheStoreEntry(String name, String mode, Boolean readThrough, Integer flushSize, Long flushIntervalMillis,
                           Integer queueBound, Integer flushAttempts, Integer flushThreads) {
        @JsonCreator
        CacheStoreEntry(@JsonProperty("name") String name, @JsonProperty("mode") String mode,
                        @JsonProperty("readThrough") Boolean readThrough, @JsonProperty("flushSize") Integer flushSize,
                        @JsonProperty("flushIntervalMillis") Long flushIntervalMillis,
                        @JsonProperty("queueBound") Integer queueBound,
                        @JsonProperty("flushAttempts") Integer flushAttempts,
                        @JsonProperty("flushThreads") Integer flushThreads) {
            this.name = name;
            this.mode = mode;
            this.readThrough = readThrough;
            this.flushSize = flushSize;
            this.flushIntervalMillis = flushIntervalMillis;
            this.queueBound = queueBound;
            this.flushAttempts = flushAttempts;
            this.flushThreads = flushThreads;
        }

        /**
         * The cache's store config; {@code mode} defaults to {@code WRITE_THROUGH}.
         *
         * @throws IllegalArgumentException naming the key of a missing or bad value
         */
        CacheStoreConfig config(String key) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("key '" + key + ".name' is missing; name a store of \"stores\"");
            }
            CacheStoreConfig.WriteMode writeMode = mode == null ? CacheStoreConfig.WriteMode.WRITE_THROUGH
                    : constant(key + ".mode", mode, CacheStoreConfig.WriteMode.class);
            CacheStoreConfig[] c = {CacheStoreConfig.writeThrough(name).withWriteMode(writeMode)};
            set(key + ".readThrough", readThrough, v -> c[0] = c[0].withReadThrough(v));
            set(key + ".flushSize", flushSize, v -> c[0] = c[0].withFlushSize(v));
            set(key + ".flushIntervalMillis", flushIntervalMillis,
                    v -> c[0] = c[0].withFlushInterval(Duration.ofMillis(v)));
            set(key + ".queueBound", queueBound, v -> c[0] = c[0].withQueueBound(v));
            set(key + ".flushAttempts", flushAttempts, v -> c[0] = c[0].withFlushAttempts(v));
            set(key + ".flushThreads", flushThreads, v -> c[0] = c[0].withFlushThreads(v));
            return c[0];
        }
    }

    static <T, R> R set(String key, T value, java.util.function.Function<T, R> setter) {
        if (value == null) {
            return null;
        }
        try {
            return setter.apply(value);
        } catch (IllegalArgumentException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("key '")) {
                throw e;
            }
            throw new IllegalArgumentException("key '" + key + "': " + e.getMessage(), e);
        }
    }

    static <E extends Enum<E>> E constant(String key, String value, Class<E> type) {
        try {
            return Enum.valueOf(type, value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("key '" + key + "' is '" + value + "'; it must be one of "
                    + Arrays.toString(type.getEnumConstants()));
        }
    }
}
