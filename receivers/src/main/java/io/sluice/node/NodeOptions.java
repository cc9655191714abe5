package io.sluice.node;

import io.sluice.protocol.internal.Wire;
import io.sluice.pagestore.internal.DataRegionConfig;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Every option of a node, declared once: its key in the node process's file, its default, its bounds and its
 * documentation. {@link NodeConfig}, {@link PersistenceConfig} and the node process's server check their values
 * with these rows; the file reader's keys (and its unknown-key messages) are these rows' keys; the key tables of
 * {@code docs/protocol.md} (the file) and {@code docs/durability.md} (its {@code persistence} object) are
 * {@link Section#markdownTable()} of {@link #FILE} and {@link #PERSISTENCE}, which a test checks.
 *
 * <p>The default values themselves stay constants where they were ({@code PersistenceConfig.DEFAULT_*},
 * {@code NodeConfig.MAX_APPLY_THREADS}, the page store's region defaults), so that code and annotations can use
 * them as compile-time constants; the rows refer to them.
 */
public final class NodeOptions {

    /** The address the node process listens on unless set otherwise: loopback. */
    public static final String DEFAULT_HOST = "127.0.0.1";
    /** The port the node process listens on unless set otherwise. */
    public static final int DEFAULT_PORT = 10800;
    /** Connections served at once unless set otherwise. */
    public static final int DEFAULT_MAX_CONNECTIONS = 1024;
    /** Received bytes of a connection waiting to be applied before its socket is paused, unless set otherwise. */
    public static final long DEFAULT_MAX_QUEUED_BYTES = 128L << 20;

    /** The top level of the node file (and of {@link NodeConfig} and the server's config). */
    public static final Section FILE = new Section("key");
    /** The node file's {@code persistence} object ({@link PersistenceConfig}). */
    public static final Section PERSISTENCE = new Section("setting");
    /** The node file's {@code cluster} object ({@link ClusterConfig}). */
    public static final Section CLUSTER = new Section("setting");

    public static final Option<String> HOST = FILE.add(Option.text("host", DEFAULT_HOST,
            "`127.0.0.1`", "address to listen on"));
    public static final Option<Integer> PORT = FILE.add(Option.of("port", null, DEFAULT_PORT,
            v -> v >= 0 && v <= 65535, "be between 0 (any free port) and 65535", "",
            "`10800`", "port; 0 = any free port"));
    public static final Option<Integer> PAGE_SIZE = FILE.add(Option.of("pageSize", "NodeConfig",
            DataRegionConfig.DEFAULT_PAGE_SIZE, v -> v >= 1024 && v <= 16384 && Integer.bitCount(v) == 1,
            "be a power of two from 1024 to 16384", "",
            "4096", "bytes per page (power of two, 1 KiB to 16 KiB)"));
    public static final Option<Long> DATA_REGION_INITIAL_SIZE = FILE.add(Option.of("dataRegionInitialSize",
            "NodeConfig", DataRegionConfig.DEFAULT_INITIAL_SIZE, v -> v >= 0, "not be negative", " bytes",
            "256 MiB (or the maximum if smaller)", "page memory reserved at start"));
    public static final Option<Long> DATA_REGION_MAX_SIZE = FILE.add(Option.of("dataRegionMaxSize", "NodeConfig",
            DataRegionConfig.DEFAULT_MAX_SIZE, v -> v > 0, "be positive", " bytes",
            "4 GiB (or the initial size if larger)", "page memory at most"));
    /** Default: the number of processors (no fixed value). */
    public static final Option<Integer> APPLY_THREADS = FILE.add(Option.of("applyThreads", "NodeConfig", null,
            v -> v >= 1 && v <= NodeConfig.MAX_APPLY_THREADS, "be between 1 and " + NodeConfig.MAX_APPLY_THREADS, "",
            "processors", "threads applying batches (partition p on thread p % n)"));
    public static final Option<Object> CACHES = FILE.add(Option.structure("caches", "none",
            "caches declared at start (`NodeConfig.cache`): created, or, recovered from disk, put in front of the"
                    + " store declared here (over the one they had): `[{\"name\": \"orders\", \"partitions\": 1024}]`;"
                    + " also `backups` (0-3), `writeSync` (`FULL_SYNC`, `PRIMARY_SYNC`, `FULL_ASYNC`), `readFromBackup`"
                    + " and `indexes` (`[[\"secCode\"], [\"account\", \"price\"]]`) as in `CacheConfig`; a recovered"
                    + " cache keeps the ones it was created with (a warning names a difference)"));
    public static final Option<Object> RECEIVERS = FILE.add(Option.structure("receivers", "none",
            "custom receivers by name: `{\"audit\": \"com.example.AuditReceiver\"}` (a `StreamReceiver` with a"
                    + " public no-argument constructor, on the node's class path)"));
    public static final Option<Object> PROCESSORS = FILE.add(Option.structure("processors", "none",
            "custom entry processors by name, the same way (`EntryProcessor`)"));
    public static final Option<Object> STORES = FILE.add(Option.structure("stores", "none",
            "cache stores by name: a `CacheStore` class (`{\"audit\": {\"class\": \"com.example.AuditStore\"}}`)"
                    + " or the built-in JDBC store's settings (`{\"pg\": {\"jdbc\": {\"url\":"
                    + " \"jdbc:postgresql://db/app\"}}}`); a cache of `caches` names one in its `store`; see"
                    + " [cache-store.md](cache-store.md)"));
    public static final Option<Long> MAX_FRAME_SIZE = FILE.add(Option.of("maxFrameSize", null,
            (long) Wire.DEFAULT_MAX_FRAME, v -> v >= 1024 && v <= Integer.MAX_VALUE - 16,
            "be at least 1024 and below 2 GiB", "", "64 MiB + 64 KiB", "longest frame accepted"));
    public static final Option<Integer> MAX_CONNECTIONS = FILE.add(Option.of("maxConnections", null,
            DEFAULT_MAX_CONNECTIONS, v -> v >= 1, "be at least 1", "", "1024", "connections at once; more are closed"));
    public static final Option<Long> IDLE_TIMEOUT_SECONDS = FILE.add(Option.of("idleTimeoutSeconds", null, 0L,
            v -> v >= 0, "not be negative", "", "0 (never)", "close a connection idle this long"));
    public static final Option<Long> MAX_QUEUED_BYTES = FILE.add(Option.of("maxQueuedBytes", null,
            DEFAULT_MAX_QUEUED_BYTES, v -> v > 0, "be positive", "",
            "128 MiB", "received, not yet applied bytes of a connection, plus its answers not yet sent, before its"
                    + " socket is paused"));
    public static final Option<String> TOKEN = FILE.add(Option.text("token", null,
            "none", "the token clients must present in the handshake"));
    public static final Option<Object> TLS = FILE.add(Option.structure("tls", "none (plain TCP)",
            "`{\"keyStore\": \"node.p12\", \"keyStorePassword\": \"...\"}`: TLS with the node's key and certificate"
                    + " from a PKCS#12 file (`keytool -genkeypair -storetype PKCS12 ... -ext SAN=dns:HOST`); clients"
                    + " use `ClientConfig.builder().tls(Path.of(\"node.pem\"))` (or `.tls()` for the JVM's trust"
                    + " store) and check that the certificate names the host they dial"));
    public static final Option<Object> PERSISTENCE_OBJECT = FILE.add(Option.structure("persistence",
            "none (in memory)", "see [durability.md](durability.md)"));
    public static final Option<Object> CLUSTER_OBJECT = FILE.add(Option.structure("cluster", "none (standalone)",
            "`{\"zookeeper\": \"127.0.0.1:2181\", \"name\": \"demo\", \"nodeId\": \"a\"}`: the node joins"
                    + " this cluster; see [cluster.md](cluster.md)"));
    public static final Option<Integer> METRICS_PORT = FILE.add(Option.of("metricsPort", null, null,
            v -> v >= 0 && v <= 65535, "be between 0 (any free port) and 65535", "", "none (off)",
            "serve the node's metrics as Prometheus text at `http://HOST:PORT/metrics` on the node's `host`; 0 = any"
                    + " free port (the log names it). The metrics are MBeans (JMX domain `sluice`) with or without"
                    + " it; every metric is in [metrics.md](metrics.md)"));

    public static final Option<String> DIRECTORY = PERSISTENCE.add(Option.text("directory", null,
            "— (required)", "where the log segments live; created if missing; a lock file keeps a second node out"));
    public static final Option<WalMode> WAL_MODE = PERSISTENCE.add(Option.of("walMode", "PersistenceConfig",
            PersistenceConfig.DEFAULT_WAL_MODE, v -> true, "be a WalMode", "",
            "`LOG_ONLY`", "when a write counts as done (below)"));
    /** File key {@code walFlushIntervalMillis}. */
    public static final Option<Duration> WAL_FLUSH_INTERVAL = PERSISTENCE.add(Option.of("walFlushInterval",
            "PersistenceConfig", PersistenceConfig.DEFAULT_FLUSH_INTERVAL,
            between(Duration.ofMillis(1), Duration.ofHours(1)), "be between 1 ms and 1 hour", "",
            "1000", "`BACKGROUND` writes and fsyncs the log this often (1 ms – 1 h)").fileKey("walFlushIntervalMillis"));
    public static final Option<Long> WAL_SEGMENT_SIZE = PERSISTENCE.add(Option.of("walSegmentSize",
            "PersistenceConfig", PersistenceConfig.DEFAULT_SEGMENT_SIZE,
            v -> v >= PersistenceConfig.MIN_SEGMENT_SIZE && v <= 1L << 30,
            "be between " + PersistenceConfig.MIN_SEGMENT_SIZE + " (1 MiB) and 1 GiB", " bytes",
            "64 MiB", "a segment is closed and the next one started past this size (1 MiB – 1 GiB)"));
    /** File key {@code checkpointIntervalMillis}. */
    public static final Option<Duration> CHECKPOINT_INTERVAL = PERSISTENCE.add(Option.of("checkpointInterval",
            "PersistenceConfig", PersistenceConfig.DEFAULT_CHECKPOINT_INTERVAL,
            between(Duration.ofMillis(10), Duration.ofHours(24)), "be between 10 ms and 24 hours", "",
            "60000", "from the end of one checkpoint to the start of the next (10 ms – 24 h;"
                    + " `PersistenceConfig.withCheckpointInterval`)").fileKey("checkpointIntervalMillis"));
    public static final Option<Boolean> CHECK_ON_RECOVERY = PERSISTENCE.add(Option.of("checkOnRecovery",
            "PersistenceConfig", false, v -> true, "be true or false", "",
            "false", "after recovery, before serving, run the store's consistency check (below); a problem stops"
                    + " the start (`PersistenceConfig.withCheckOnRecovery`)"));
    public static final Option<Long> RECOVERED_KEYS_MEMORY = PERSISTENCE.add(Option.of("recoveredKeysMemory",
            "PersistenceConfig", PersistenceConfig.DEFAULT_RECOVERED_KEYS_MEMORY, v -> v >= 0 && v <= 1L << 30,
            "be between 0 and 1 GiB", " bytes",
            "64 MiB", "heap for the keys recovery replays for write-behind caches (queued again for their stores,"
                    + " below); past it they go to `recovered-keys.spill` in the directory, read back and deleted"
                    + " once queued (0 – 1 GiB; `PersistenceConfig.withRecoveredKeysMemory`)"));
    public static final Option<Boolean> ENABLED = PERSISTENCE.add(Option.of("enabled", null, true, v -> true,
            "be true or false", "", "true when the object is present", "`false` keeps the node in memory"));

    /** A cluster's name or a node's id: a ZooKeeper path element Helix accepts, and readable in logs. */
    private static final java.util.regex.Pattern CLUSTER_WORD = java.util.regex.Pattern.compile("[A-Za-z0-9_.-]{1,100}");

    public static final Option<String> ZOOKEEPER = CLUSTER.add(Option.of("zookeeper", "ClusterConfig", null,
            v -> true, "be host:port[,host:port...]", "", "— (required)",
            "ZooKeeper's connect string, `host:port[,host:port...]`"));
    public static final Option<String> CLUSTER_NAME = CLUSTER.add(Option.of("name", "ClusterConfig", null,
            v -> CLUSTER_WORD.matcher(v).matches(), "be 1 to 100 letters, digits, _, - or .", "", "— (required)",
            "the cluster's name, as `create-cluster --name` made it"));
    public static final Option<String> NODE_ID = CLUSTER.add(Option.of("nodeId", "ClusterConfig", null,
            v -> CLUSTER_WORD.matcher(v).matches(), "be 1 to 100 letters, digits, _, - or .", "", "— (required)",
            "this node's id, unique in the cluster (a second node with the same id is refused); a node that comes"
                    + " back with its id gets its partitions back"));
    public static final Option<String> ADVERTISED_HOST = CLUSTER.add(Option.of("advertisedHost", "ClusterConfig",
            null, v -> true, "be a host name or address, without a port", "", "the node's `host`",
            "the address the other nodes and the clients dial, put in the map with the node's port; required"
                    + " when `host` is `0.0.0.0`"));
    /** File key {@code sessionTimeoutMillis}. */
    public static final Option<Duration> SESSION_TIMEOUT = CLUSTER.add(Option.of("sessionTimeout", "ClusterConfig",
            ClusterConfig.DEFAULT_SESSION_TIMEOUT, between(Duration.ofSeconds(1), Duration.ofMinutes(10)),
            "be between 1 s and 10 minutes", "", "10000",
            "ZooKeeper session timeout: a node that stops answering keeps its partitions this long; one whose"
                    + " session expired stops serving writes until it has joined again (1 s – 10 min; ZooKeeper"
                    + " bounds it to 2 – 20 of its ticks)").fileKey("sessionTimeoutMillis"));
    public static final Option<Integer> MAX_CONCURRENT_MOVES = CLUSTER.add(Option.of("maxConcurrentMoves",
            "ClusterConfig", ClusterConfig.DEFAULT_MAX_CONCURRENT_MOVES, v -> v >= 1 && v <= 64,
            "be between 1 and 64", "", "2",
            "partitions this node builds at once (taking one over, a backup catching up); promoting a backup in"
                    + " sync builds nothing and never waits"));
    public static final Option<Long> MOVE_BYTES_PER_SECOND = CLUSTER.add(Option.of("moveBytesPerSecond",
            "ClusterConfig", ClusterConfig.DEFAULT_MOVE_BYTES_PER_SECOND, v -> v >= 0, "be 0 or more", "bytes/s",
            "268435456 (256 MiB/s)", "bytes per second this node sends for partition moves, all together; 0: no"
                    + " limit"));
    public static final Option<ClusterConfig.MoveMethod> MOVE_METHOD = CLUSTER.add(Option.of("moveMethod",
            "ClusterConfig", ClusterConfig.MoveMethod.FILES, v -> true, "be FILES or ENTRIES", "", "FILES",
            "how a partition is built: `FILES` sends its image as a checked partition file, `ENTRIES` its"
                    + " entries page by page (the baseline, and the fallback of `FILES`); a node in memory builds by"
                    + " entries ([Moving a partition](#moving-a-partition))"));

    private NodeOptions() {
    }

    private static Predicate<Duration> between(Duration min, Duration max) {
        return v -> v.compareTo(min) >= 0 && v.compareTo(max) <= 0;
    }

    /** The options of one object of the node file, in the order its table lists them. */
    public static final class Section {
        private final String heading;
        private final List<Option<?>> options = new ArrayList<>();

        private Section(String heading) {
            this.heading = heading;
        }

        private <T> Option<T> add(Option<T> option) {
            options.add(option);
            return option;
        }

        /** The options, in table order. */
        public List<Option<?>> options() {
            return Collections.unmodifiableList(options);
        }

        /** The keys the file's object may have. */
        public List<String> keys() {
            return options.stream().map(Option::fileKey).toList();
        }

        /** The object's key table as the docs show it: key, default, meaning. */
        public String markdownTable() {
            StringBuilder b = new StringBuilder("| " + heading + " | default | meaning |\n|---|---|---|\n");
            for (Option<?> o : options) {
                b.append("| `").append(o.fileKey()).append("` | ").append(o.defaultDoc()).append(" | ")
                        .append(o.doc()).append(" |\n");
            }
            return b.toString();
        }
    }

    /**
     * One option: its name (in the Java API and in messages), its key in the file (the name, or the name with
     * its unit for a duration), its default (null if it has none, or it depends on the machine or on other
     * options), its bounds, and its documentation.
     */
    public static final class Option<T> {
        private final String name;
        private final String owner;
        private final T defaultValue;
        private final Predicate<T> valid;
        private final String bounds;
        private final String unit;
        private final String defaultDoc;
        private final String doc;
        private final String fileKey;

        private Option(String name, String fileKey, String owner, T defaultValue, Predicate<T> valid, String bounds,
                       String unit, String defaultDoc, String doc) {
            this.name = name;
            this.owner = owner;
            this.defaultValue = defaultValue;
            this.valid = valid;
            this.bounds = bounds;
            this.unit = unit;
            this.defaultDoc = defaultDoc;
            this.doc = doc;
            this.fileKey = fileKey;
        }

        private static <T> Option<T> of(String name, String owner, T defaultValue, Predicate<T> valid, String bounds,
                                        String unit, String defaultDoc, String doc) {
            return new Option<>(name, name, owner, defaultValue, valid, bounds, unit, defaultDoc, doc);
        }

        private static Option<String> text(String name, String defaultValue, String defaultDoc, String doc) {
            return new Option<>(name, name, null, defaultValue, v -> true, "be text", "", defaultDoc, doc);
        }

        /** An object or list of the file, read by its own rules (its javadoc and docs say which). */
        private static Option<Object> structure(String name, String defaultDoc, String doc) {
            return new Option<>(name, name, null, null, v -> true, "be an object", "", defaultDoc, doc);
        }

        /** The same option under another key in the file (a duration's key names its unit). */
        private Option<T> fileKey(String key) {
            return new Option<>(name, key, owner, defaultValue, valid, bounds, unit, defaultDoc, doc);
        }

        /** The name in the Java API and in messages. */
        public String name() {
            return name;
        }

        /** The key in the node file. */
        public String fileKey() {
            return fileKey;
        }

        /** The default, or null if it has none or it is computed (see {@link #defaultDoc()}). */
        public T defaultValue() {
            return defaultValue;
        }

        /** The default as the docs state it. */
        public String defaultDoc() {
            return defaultDoc;
        }

        /** What the option does, as the docs state it. */
        public String doc() {
            return doc;
        }

        /** The values it takes, as the end of a sentence "it must ..." ("be between 1 and 1024"). */
        public String bounds() {
            return bounds;
        }

        /**
         * Checks a value against the bounds.
         *
         * @return the value
         * @throws NullPointerException if value is null
         * @throws IllegalArgumentException naming the option, the value and the bounds, e.g. "applyThreads is 0;
         *         it must be between 1 and 1024 (NodeConfig.applyThreads)"
         */
        public T check(T value) {
            Objects.requireNonNull(value, name);
            if (!valid.test(value)) {
                throw new IllegalArgumentException(name + " is " + value + unit + "; it must " + bounds
                        + (owner == null ? "" : " (" + owner + "." + name + ")"));
            }
            return value;
        }

        @Override
        public String toString() {
            return fileKey;
        }
    }
}
