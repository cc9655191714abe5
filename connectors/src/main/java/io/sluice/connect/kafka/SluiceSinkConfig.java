package io.sluice.connect.kafka;

import io.sluice.CacheConfig;
import io.sluice.ReceiverRef;
import io.sluice.Receivers;
import io.sluice.StreamerOptions;
import io.sluice.client.ClientConfig;
import io.sluice.connect.kafka.internal.ConversionSettings;
import io.sluice.connect.kafka.internal.ConversionSettings.KeySource;
import io.sluice.connect.kafka.internal.ConversionSettings.OnNullKey;
import io.sluice.connect.kafka.internal.ConversionSettings.OnNullValue;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.Width;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Every option of the Sluice sink, declared once in {@link #CONFIG_DEF} with its documentation,
 * default, validator and group ({@code docs/kafka-connect.md} is generated from it), and read back
 * typed. Options that depend on each other are checked together when the config is made: a bad
 * config throws {@link ConfigException} naming the key.
 */
public final class SluiceSinkConfig extends AbstractConfig {

    /** How a record becomes a cache key. */
    public enum KeyMode {
        /** The record's key (a Struct or Map key becomes a binary object). */
        RECORD_KEY,
        /** Fields of the record's value ({@value #KEY_FIELDS}): one field is the key itself, several a binary object. */
        VALUE_FIELDS,
        /** The text {@code topic/partition/offset}: every record is its own entry (an append-only log). */
        TOPIC_PARTITION_OFFSET
    }

    /** What a record with a null value does. */
    public enum NullValueBehavior { DELETE, IGNORE, FAIL }

    /** What a record with a null key does (key mode {@code RECORD_KEY}). */
    public enum NullKeyBehavior { FAIL, IGNORE, TOPIC_PARTITION_OFFSET }

    /** How a String value is read. */
    public enum StringFormat { JSON, STRING }

    /** How a bytes value is read. */
    public enum BytesFormat { BYTES, JSON }

    private static final String G_NODE = "Sluice node";
    private static final String G_CACHE = "Topics to caches";
    private static final String G_STREAMER = "Streamer";
    private static final String G_CONVERSION = "Keys and values";
    private static final String G_RETRY = "Retries";

    public static final String ADDRESSES = "sluice.addresses";
    public static final String TOKEN = "sluice.token";
    public static final String CONNECT_TIMEOUT_MS = "sluice.connect.timeout.ms";
    public static final String REQUEST_TIMEOUT_MS = "sluice.request.timeout.ms";
    public static final String TLS_ENABLED = "sluice.tls.enabled";
    public static final String TLS_TRUSTED_CERTIFICATES = "sluice.tls.trusted.certificates";

    public static final String CACHE_NAME = "sluice.cache.name";
    public static final String CACHE_MAPPING = "sluice.cache.mapping";
    public static final String CACHE_NAME_FORMAT = "sluice.cache.name.format";
    public static final String CACHE_CREATE = "sluice.cache.create";
    public static final String CACHE_PARTITIONS = "sluice.cache.partitions";

    public static final String RECEIVER = "sluice.receiver";
    public static final String BUFFER_SIZE = "sluice.streamer.buffer.size";
    public static final String BUFFER_BYTES = "sluice.streamer.buffer.bytes";
    public static final String FLUSH_INTERVAL_MS = "sluice.streamer.flush.interval.ms";
    public static final String PARALLEL_OPS = "sluice.streamer.parallel.operations";
    public static final String BUFFER_MEMORY = "sluice.streamer.buffer.memory";
    public static final String MAX_BLOCK_MS = "sluice.streamer.max.block.ms";
    public static final String TIMEOUT_MS = "sluice.streamer.timeout.ms";

    // the conversion options are named where the converter, which cites them in its errors, declares them
    public static final String KEY_MODE = ConversionSettings.KEY_MODE;
    public static final String KEY_FIELDS = ConversionSettings.KEY_FIELDS;
    public static final String KEY_TYPE_NAME = ConversionSettings.KEY_TYPE_NAME;
    public static final String VALUE_TYPE_NAME = ConversionSettings.VALUE_TYPE_NAME;
    public static final String VALUE_STRING_FORMAT = ConversionSettings.VALUE_STRING_FORMAT;
    public static final String VALUE_BYTES_FORMAT = ConversionSettings.VALUE_BYTES_FORMAT;
    public static final String NULL_VALUES = ConversionSettings.NULL_VALUES;
    public static final String NULL_KEYS = ConversionSettings.NULL_KEYS;

    public static final String RETRY_BACKOFF_MS = "sluice.retry.backoff.ms";
    public static final String RETRY_BACKOFF_MAX_MS = "sluice.retry.backoff.max.ms";
    public static final String RETRY_TIMEOUT_MS = "sluice.retry.timeout.ms";
    public static final String REQUEST_RETRY_ATTEMPTS = "sluice.request.retry.attempts";
    public static final String REQUEST_RETRY_BACKOFF_MS = "sluice.request.retry.backoff.ms";
    public static final String CIRCUIT_BREAKER_FAILURE_RATE = "sluice.circuit.breaker.failure.rate";
    public static final String CIRCUIT_BREAKER_WAIT_MS = "sluice.circuit.breaker.wait.ms";

    /** Kafka Connect's own key: with {@code all}, bad records go to the errant record reporter. */
    public static final String ERRORS_TOLERANCE = "errors.tolerance";

    /** Every option; {@code docs/kafka-connect.md} is generated from it ({@code ConfigDocs}). */
    public static final ConfigDef CONFIG_DEF = configDef();

    private final Map<String, String> mapping;

    /**
     * Parses and checks the options.
     *
     * @throws ConfigException naming the key whose value is missing or wrong
     */
    public SluiceSinkConfig(Map<String, String> props) {
        super(CONFIG_DEF, props);
        this.mapping = parseMapping(getList(CACHE_MAPPING));
        if (keyMode() == KeyMode.VALUE_FIELDS && getList(KEY_FIELDS).isEmpty()) {
            throw new ConfigException(KEY_FIELDS, "", "is required when " + KEY_MODE + "=VALUE_FIELDS");
        }
        streamerOptions(); // the streamer's cross-option checks, reported under the sluice key
        if (getString(TLS_TRUSTED_CERTIFICATES) != null && !getBoolean(TLS_ENABLED)) {
            throw new ConfigException(TLS_TRUSTED_CERTIFICATES, getString(TLS_TRUSTED_CERTIFICATES),
                    "is set but " + TLS_ENABLED + "=false; set " + TLS_ENABLED + "=true to connect with TLS");
        }
        String tolerance = props.getOrDefault(ERRORS_TOLERANCE, "none").trim().toLowerCase(Locale.ROOT);
        if (!tolerance.equals("none") && !tolerance.equals("all")) {
            throw new ConfigException(ERRORS_TOLERANCE, tolerance, "must be none or all");
        }
    }

    private static ConfigDef configDef() {
        ConfigDef d = new ConfigDef();
        int o = 0;
        d.define(ADDRESSES, Type.LIST, ConfigDef.NO_DEFAULT_VALUE, new AddressesValidator(), Importance.HIGH,
                "Sluice nodes to connect to, host:port, comma-separated (at least one). The connector is a"
                        + " remote client: no node runs inside the Connect worker.",
                G_NODE, ++o, Width.LONG, "Node addresses");
        d.define(TOKEN, Type.PASSWORD, null, Importance.MEDIUM,
                "Token presented in the handshake, if the node requires one (its config key 'token').",
                G_NODE, ++o, Width.MEDIUM, "Token");
        d.define(CONNECT_TIMEOUT_MS, Type.LONG, ClientConfig.DEFAULT_CONNECT_TIMEOUT.toMillis(),
                ConfigDef.Range.atLeast(1), Importance.LOW,
                "Bound of connecting to a node, handshake included, in milliseconds.",
                G_NODE, ++o, Width.SHORT, "Connect timeout");
        d.define(REQUEST_TIMEOUT_MS, Type.LONG, 30_000L, ConfigDef.Range.atLeast(1), Importance.LOW,
                "Bound of one request to a node (a cache operation, or a streamed request's answer), in milliseconds.",
                G_NODE, ++o, Width.SHORT, "Request timeout");
        d.define(TLS_ENABLED, Type.BOOLEAN, false, Importance.MEDIUM,
                "Connect to the nodes with TLS (ClientConfig.tls; the node must be started with TLS). The node's"
                        + " certificate must be trusted by the worker JVM's default trust store, or by "
                        + TLS_TRUSTED_CERTIFICATES + ", and name the host of the address (hostname verification"
                        + " is on).",
                G_NODE, ++o, Width.SHORT, "TLS");
        d.define(TLS_TRUSTED_CERTIFICATES, Type.STRING, null, new NonBlankOrNull(), Importance.MEDIUM,
                "Path of a PEM file of the certificates to trust (a node's self-signed certificate, or the CA that"
                        + " signed it) instead of the JVM's trust store (ClientConfig.tls(pem)); needs " + TLS_ENABLED
                        + "=true. The file must be readable on every worker that runs a task; a task that cannot"
                        + " read it fails at start naming this key.",
                G_NODE, ++o, Width.LONG, "TLS trusted certificates");

        o = 0;
        d.define(CACHE_NAME, Type.STRING, null, new NonBlankOrNull(), Importance.HIGH,
                "One cache for every topic. When unset, a topic goes to its cache in " + CACHE_MAPPING
                        + ", else to the cache named by " + CACHE_NAME_FORMAT + ".",
                G_CACHE, ++o, Width.MEDIUM, "Cache");
        d.define(CACHE_MAPPING, Type.LIST, "", new MappingValidator(), Importance.HIGH,
                "Explicit topic:cache pairs, comma-separated (e.g. orders:orders_cache,trades:trades_cache)."
                        + " Ignored when " + CACHE_NAME + " is set.",
                G_CACHE, ++o, Width.LONG, "Topic to cache mapping");
        d.define(CACHE_NAME_FORMAT, Type.STRING, "${topic}", new FormatValidator(CACHE_NAME_FORMAT), Importance.MEDIUM,
                "Cache of a topic that neither " + CACHE_NAME + " nor " + CACHE_MAPPING + " names; ${topic} is"
                        + " replaced by the topic (works with topics.regex).",
                G_CACHE, ++o, Width.MEDIUM, "Cache name format");
        d.define(CACHE_CREATE, Type.BOOLEAN, true, Importance.MEDIUM,
                "Create a cache that does not exist (with " + CACHE_PARTITIONS + " partitions); when false a missing"
                        + " cache fails the task with its name.",
                G_CACHE, ++o, Width.SHORT, "Create missing caches");
        d.define(CACHE_PARTITIONS, Type.INT, CacheConfig.DEFAULT_PARTITIONS,
                ConfigDef.Range.between(1, CacheConfig.MAX_PARTITIONS), Importance.LOW,
                "Partitions of a cache the connector creates.",
                G_CACHE, ++o, Width.SHORT, "Partitions of a created cache");

        o = 0;
        // batched, not individual: the same entries in the end (the later record of a key wins, removals
        // included) from one sorted pass per batch, which cost the node 40% less CPU per record
        d.define(RECEIVER, Type.STRING, Receivers.BATCHED, new NonBlankOrNull(), Importance.MEDIUM,
                "Receiver applying batches on the node: 'batched' (each batch as one putAll/removeAll in one"
                        + " sorted pass: later records of a key overwrite earlier ones), 'individual' (put/remove"
                        + " record by record, the same result), 'isolated' (insert-if-absent: first write wins,"
                        + " deletes ignored), or the name of a receiver registered on the node.",
                G_STREAMER, ++o, Width.MEDIUM, "Receiver");
        d.define(BUFFER_SIZE, Type.INT, StreamerOptions.DEFAULT_PER_PARTITION_BUFFER_SIZE,
                ConfigDef.Range.between(1, 1_000_000), Importance.LOW,
                "Entries a cache partition's buffer holds before it is sent (StreamerOptions.perPartitionBufferSize).",
                G_STREAMER, ++o, Width.SHORT, "Buffer size (entries)");
        d.define(BUFFER_BYTES, Type.INT, StreamerOptions.DEFAULT_PER_PARTITION_BUFFER_BYTES,
                ConfigDef.Range.between(64, 256 * 1024 * 1024), Importance.LOW,
                "Bytes a cache partition's buffer holds before it is sent (StreamerOptions.perPartitionBufferBytes).",
                G_STREAMER, ++o, Width.SHORT, "Buffer size (bytes)");
        d.define(FLUSH_INTERVAL_MS, Type.LONG, 200L, ConfigDef.Range.atLeast(0), Importance.MEDIUM,
                "Longest time an entry waits in a buffer before it is sent, in milliseconds; 0 sends only full"
                        + " buffers and on commit (StreamerOptions.autoFlushInterval). Offsets are committed only"
                        + " after the node acknowledged, so this bounds the commit lag.",
                G_STREAMER, ++o, Width.SHORT, "Flush interval");
        d.define(PARALLEL_OPS, Type.INT, StreamerOptions.DEFAULT_PER_NODE_PARALLEL_OPERATIONS,
                ConfigDef.Range.between(1, 1024), Importance.LOW,
                "Streamed requests in flight to one node at most (StreamerOptions.perNodeParallelOperations).",
                G_STREAMER, ++o, Width.SHORT, "Parallel operations");
        d.define(BUFFER_MEMORY, Type.LONG, 64L * 1024 * 1024, ConfigDef.Range.atLeast(1024), Importance.MEDIUM,
                "Bytes one task buffers or has in flight at most (StreamerOptions.bufferMemory). When it is full,"
                        + " put waits at most " + MAX_BLOCK_MS + ", then pauses the partitions and asks the worker"
                        + " to redeliver: the worker thread never hangs.",
                G_STREAMER, ++o, Width.SHORT, "Buffer memory");
        d.define(MAX_BLOCK_MS, Type.LONG, 500L, ConfigDef.Range.atLeast(0), Importance.LOW,
                "How long put waits for buffer memory before it asks for redelivery, in milliseconds"
                        + " (StreamerOptions.maxBlock).",
                G_STREAMER, ++o, Width.SHORT, "Max block");
        d.define(TIMEOUT_MS, Type.LONG, 60_000L, ConfigDef.Range.atLeast(1), Importance.LOW,
                "Bound of flushing when the task stops, in milliseconds (StreamerOptions.timeout).",
                G_STREAMER, ++o, Width.SHORT, "Flush timeout");

        o = 0;
        d.define(KEY_MODE, Type.STRING, KeyMode.RECORD_KEY.name(), enumValidator(KeyMode.values()), Importance.HIGH,
                "How a record becomes a cache key: RECORD_KEY (the record key; a Struct or Map key becomes a binary"
                        + " object of type " + KEY_TYPE_NAME + "), VALUE_FIELDS (fields " + KEY_FIELDS + " of the"
                        + " value: one field is the key, several a binary object), TOPIC_PARTITION_OFFSET (the text"
                        + " topic/partition/offset, each record its own entry).",
                G_CONVERSION, ++o, Width.SHORT, "Key mode");
        d.define(KEY_FIELDS, Type.LIST, "", Importance.MEDIUM,
                "Value fields forming the key, in order (" + KEY_MODE + "=VALUE_FIELDS).",
                G_CONVERSION, ++o, Width.LONG, "Key fields");
        d.define(KEY_TYPE_NAME, Type.STRING, "${topic}.Key", new FormatValidator(KEY_TYPE_NAME), Importance.LOW,
                "Binary type of keys made from Structs, Maps or several value fields; ${topic} is replaced.",
                G_CONVERSION, ++o, Width.MEDIUM, "Key type name");
        d.define(VALUE_TYPE_NAME, Type.STRING, "${topic}", new FormatValidator(VALUE_TYPE_NAME), Importance.MEDIUM,
                "Binary type of values made from Structs, Maps and JSON objects; ${topic} is replaced by the topic"
                        + " and ${schema} by the value schema's name (the topic when it has none). Nested objects"
                        + " are of type <type>.<field>.",
                G_CONVERSION, ++o, Width.MEDIUM, "Value type name");
        d.define(VALUE_STRING_FORMAT, Type.STRING, StringFormat.JSON.name(), enumValidator(StringFormat.values()),
                Importance.MEDIUM,
                "A String value (StringConverter): JSON parses it as a JSON object into a binary object (other"
                        + " text, a JSON array or number too, is an errant record); STRING stores the text.",
                G_CONVERSION, ++o, Width.SHORT, "String values");
        d.define(VALUE_BYTES_FORMAT, Type.STRING, BytesFormat.BYTES.name(), enumValidator(BytesFormat.values()),
                Importance.LOW,
                "A bytes value (ByteArrayConverter): BYTES stores the bytes as they are, unread; JSON parses them as"
                        + " a UTF-8 JSON object into a binary object (other bytes, a JSON array or number too, are an"
                        + " errant record).",
                G_CONVERSION, ++o, Width.SHORT, "Bytes values");
        d.define(NULL_VALUES, Type.STRING, NullValueBehavior.DELETE.name(), enumValidator(NullValueBehavior.values()),
                Importance.MEDIUM,
                "A record with a null value (a tombstone): DELETE removes the key (with a receiver that removes;"
                        + " 'isolated' ignores removals), IGNORE skips it, FAIL makes it an errant record.",
                G_CONVERSION, ++o, Width.SHORT, "Null values");
        d.define(NULL_KEYS, Type.STRING, NullKeyBehavior.FAIL.name(), enumValidator(NullKeyBehavior.values()),
                Importance.MEDIUM,
                "A record with a null key (" + KEY_MODE + "=RECORD_KEY): FAIL makes it an errant record (dead"
                        + " letter queue with errors.tolerance=all), IGNORE skips it, TOPIC_PARTITION_OFFSET keys it"
                        + " by topic/partition/offset.",
                G_CONVERSION, ++o, Width.SHORT, "Null keys");

        o = 0;
        d.define(RETRY_BACKOFF_MS, Type.LONG, 500L, ConfigDef.Range.atLeast(1), Importance.LOW,
                "First wait before reconnecting to an unreachable node, in milliseconds; doubled (with jitter) on"
                        + " every failed attempt up to " + RETRY_BACKOFF_MAX_MS + ".",
                G_RETRY, ++o, Width.SHORT, "Retry backoff");
        d.define(RETRY_BACKOFF_MAX_MS, Type.LONG, 10_000L, ConfigDef.Range.atLeast(1), Importance.LOW,
                "Longest wait between reconnection attempts, in milliseconds.",
                G_RETRY, ++o, Width.SHORT, "Max retry backoff");
        d.define(RETRY_TIMEOUT_MS, Type.LONG, 300_000L, ConfigDef.Range.atLeast(0), Importance.MEDIUM,
                "How long the task keeps retrying an unreachable node before it fails, in milliseconds. While it"
                        + " retries, its partitions are paused and nothing past the node's acknowledgements is"
                        + " committed.",
                G_RETRY, ++o, Width.SHORT, "Retry timeout");
        d.define(REQUEST_RETRY_ATTEMPTS, Type.INT, ClientConfig.DEFAULT_RETRY_ATTEMPTS, ConfigDef.Range.between(1, 100),
                Importance.LOW,
                "Attempts of one request to a node that fails in a retriable way (connection lost before the answer,"
                        + " refused, node stopping), the first included; 1 means no retry (ClientConfig.retryAttempts)."
                        + " These retries happen inside the client, within " + REQUEST_TIMEOUT_MS + "; once they are"
                        + " spent the task reconnects as " + RETRY_BACKOFF_MS + " says.",
                G_RETRY, ++o, Width.SHORT, "Request retry attempts");
        d.define(REQUEST_RETRY_BACKOFF_MS, Type.LONG, ClientConfig.DEFAULT_RETRY_INITIAL_BACKOFF.toMillis(),
                ConfigDef.Range.between(1, ClientConfig.MAX_BACKOFF.toMillis()), Importance.LOW,
                "Wait before the client's first retry of a request, in milliseconds; doubled with jitter up to "
                        + ClientConfig.MAX_BACKOFF.toMillis() + " ms (ClientConfig.retryInitialBackoff).",
                G_RETRY, ++o, Width.SHORT, "Request retry backoff");
        d.define(CIRCUIT_BREAKER_FAILURE_RATE, Type.INT, ClientConfig.DEFAULT_CIRCUIT_BREAKER_FAILURE_RATE,
                ConfigDef.Range.between(1, 100), Importance.LOW,
                "Failure rate, in percent of a node's last 20 calls (at least 10 made), that opens the node's circuit"
                        + " breaker: calls then fail fast as unreachable for " + CIRCUIT_BREAKER_WAIT_MS + ", and the"
                        + " task retries as " + RETRY_BACKOFF_MS + " says (ClientConfig.circuitBreakerFailureRate).",
                G_RETRY, ++o, Width.SHORT, "Circuit breaker failure rate");
        d.define(CIRCUIT_BREAKER_WAIT_MS, Type.LONG, ClientConfig.DEFAULT_CIRCUIT_BREAKER_WAIT_IN_OPEN_STATE.toMillis(),
                ConfigDef.Range.atLeast(1), Importance.LOW,
                "How long an open circuit breaker fails calls fast before it lets probe calls through, in"
                        + " milliseconds (ClientConfig.circuitBreakerWaitInOpenState).",
                G_RETRY, ++o, Width.SHORT, "Circuit breaker wait");
        return d;
    }

    // ---- typed reads ----

    /** @throws ConfigException naming {@value #TLS_TRUSTED_CERTIFICATES} if that file cannot be read */
    public ClientConfig clientConfig(String clientName) {
        Password token = getPassword(TOKEN);
        ClientConfig.Builder b = ClientConfig.builder()
                .addresses(getList(ADDRESSES).toArray(String[]::new))
                .clientName(clientName)
                .token(token == null ? null : token.value())
                .connectTimeout(Duration.ofMillis(getLong(CONNECT_TIMEOUT_MS)))
                .requestTimeout(Duration.ofMillis(getLong(REQUEST_TIMEOUT_MS)))
                .retryAttempts(getInt(REQUEST_RETRY_ATTEMPTS))
                .retryInitialBackoff(Duration.ofMillis(getLong(REQUEST_RETRY_BACKOFF_MS)))
                .circuitBreakerFailureRate(getInt(CIRCUIT_BREAKER_FAILURE_RATE))
                .circuitBreakerWaitInOpenState(Duration.ofMillis(getLong(CIRCUIT_BREAKER_WAIT_MS)));
        if (getBoolean(TLS_ENABLED)) {
            String pem = getString(TLS_TRUSTED_CERTIFICATES);
            if (pem == null) {
                b.tls();
            } else {
                try {
                    b.tls(java.nio.file.Path.of(pem));
                } catch (IllegalArgumentException e) { // unreadable, or not a path (InvalidPathException)
                    throw new ConfigException(TLS_TRUSTED_CERTIFICATES, pem, e.getMessage());
                }
            }
        }
        return b.build();
    }

    /** @throws ConfigException naming the option when the streamer options do not fit together */
    public StreamerOptions streamerOptions() {
        try {
            return StreamerOptions.builder()
                    .receiver(receiver())
                    .allowOverwrite(!Receivers.ISOLATED.equals(getString(RECEIVER)))
                    .perPartitionBufferSize(getInt(BUFFER_SIZE))
                    .perPartitionBufferBytes(getInt(BUFFER_BYTES))
                    .autoFlushInterval(Duration.ofMillis(getLong(FLUSH_INTERVAL_MS)))
                    .perNodeParallelOperations(getInt(PARALLEL_OPS))
                    .bufferMemory(getLong(BUFFER_MEMORY))
                    .maxBlock(Duration.ofMillis(getLong(MAX_BLOCK_MS)))
                    .timeout(Duration.ofMillis(getLong(TIMEOUT_MS)))
                    .build();
        } catch (IllegalArgumentException e) {
            throw new ConfigException(BUFFER_MEMORY, getLong(BUFFER_MEMORY), e.getMessage());
        }
    }

    public ReceiverRef receiver() {
        String name = getString(RECEIVER).trim();
        switch (name) {
            case Receivers.ISOLATED: return Receivers.isolated();
            case Receivers.INDIVIDUAL: return Receivers.individual();
            case Receivers.BATCHED: return Receivers.batched();
            default: return Receivers.named(name);
        }
    }

    /** The cache a topic's records go to. */
    public String cacheFor(String topic) {
        String single = getString(CACHE_NAME);
        if (single != null) {
            return single;
        }
        String mapped = mapping.get(topic);
        return mapped != null ? mapped : getString(CACHE_NAME_FORMAT).replace("${topic}", topic);
    }

    public boolean createCaches() {
        return getBoolean(CACHE_CREATE);
    }

    public int cachePartitions() {
        return getInt(CACHE_PARTITIONS);
    }

    public KeyMode keyMode() {
        return KeyMode.valueOf(upper(KEY_MODE));
    }

    public List<String> keyFields() {
        return getList(KEY_FIELDS);
    }

    public String keyTypeName() {
        return getString(KEY_TYPE_NAME);
    }

    public String valueTypeName() {
        return getString(VALUE_TYPE_NAME);
    }

    public StringFormat stringFormat() {
        return StringFormat.valueOf(upper(VALUE_STRING_FORMAT));
    }

    public BytesFormat bytesFormat() {
        return BytesFormat.valueOf(upper(VALUE_BYTES_FORMAT));
    }

    public NullValueBehavior nullValues() {
        return NullValueBehavior.valueOf(upper(NULL_VALUES));
    }

    public NullKeyBehavior nullKeys() {
        return NullKeyBehavior.valueOf(upper(NULL_KEYS));
    }

    /**
     * The conversion options in the record converter's terms (its own enums, so that it sees nothing of this
     * public class); the switches are exhaustive, so a constant added to a public enum fails the build here.
     */
    ConversionSettings conversionSettings() {
        KeySource keySource = switch (keyMode()) {
            case RECORD_KEY -> KeySource.RECORD_KEY;
            case VALUE_FIELDS -> KeySource.VALUE_FIELDS;
            case TOPIC_PARTITION_OFFSET -> KeySource.TOPIC_PARTITION_OFFSET;
        };
        OnNullValue onNullValue = switch (nullValues()) {
            case DELETE -> OnNullValue.DELETE;
            case IGNORE -> OnNullValue.IGNORE;
            case FAIL -> OnNullValue.FAIL;
        };
        OnNullKey onNullKey = switch (nullKeys()) {
            case FAIL -> OnNullKey.FAIL;
            case IGNORE -> OnNullKey.IGNORE;
            case TOPIC_PARTITION_OFFSET -> OnNullKey.TOPIC_PARTITION_OFFSET;
        };
        return new ConversionSettings(keySource, keyFields(), keyTypeName(), valueTypeName(),
                stringFormat() == StringFormat.JSON, bytesFormat() == BytesFormat.JSON, onNullValue, onNullKey);
    }

    public Duration retryBackoff() {
        return Duration.ofMillis(getLong(RETRY_BACKOFF_MS));
    }

    public Duration retryBackoffMax() {
        return Duration.ofMillis(Math.max(getLong(RETRY_BACKOFF_MAX_MS), getLong(RETRY_BACKOFF_MS)));
    }

    public Duration retryTimeout() {
        return Duration.ofMillis(getLong(RETRY_TIMEOUT_MS));
    }

    private String upper(String key) {
        return getString(key).trim().toUpperCase(Locale.ROOT);
    }

    // ---- validators ----

    static Map<String, String> parseMapping(List<String> pairs) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String pair : pairs) {
            int colon = pair.indexOf(':');
            if (colon <= 0 || colon == pair.length() - 1 || pair.indexOf(':', colon + 1) >= 0) {
                throw new ConfigException(CACHE_MAPPING, pairs, "entry '" + pair + "' is not topic:cache");
            }
            String topic = pair.substring(0, colon).trim();
            String cache = pair.substring(colon + 1).trim();
            if (topic.isEmpty() || cache.isEmpty()) {
                throw new ConfigException(CACHE_MAPPING, pairs, "entry '" + pair + "' is not topic:cache");
            }
            if (m.put(topic, cache) != null) {
                throw new ConfigException(CACHE_MAPPING, pairs, "topic '" + topic + "' is mapped twice");
            }
        }
        return m;
    }

    private static ConfigDef.Validator enumValidator(Enum<?>[] values) {
        String[] names = new String[values.length];
        for (int i = 0; i < values.length; i++) {
            names[i] = values[i].name();
        }
        return new ConfigDef.Validator() {
            @Override
            public void ensureValid(String name, Object value) {
                String v = value == null ? null : ((String) value).trim().toUpperCase(Locale.ROOT);
                if (v == null || !List.of(names).contains(v)) {
                    throw new ConfigException(name, value, "must be one of " + String.join(", ", names));
                }
            }

            @Override
            public String toString() {
                return "one of " + String.join(", ", names);
            }
        };
    }

    private static final class AddressesValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            @SuppressWarnings("unchecked")
            List<String> list = (List<String>) value;
            if (list == null || list.isEmpty()) {
                throw new ConfigException(name, value, "needs at least one host:port");
            }
            for (String a : list) {
                try {
                    ClientConfig.builder().addresses(a);
                } catch (IllegalArgumentException e) {
                    throw new ConfigException(name, value, "'" + a + "' is not host:port with a port from 1 to 65535");
                }
            }
        }

        @Override
        public String toString() {
            return "host:port, ...";
        }
    }

    private static final class MappingValidator implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            @SuppressWarnings("unchecked")
            List<String> list = (List<String>) value;
            parseMapping(list);
        }

        @Override
        public String toString() {
            return "topic:cache, ...";
        }
    }

    private static final class NonBlankOrNull implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            if (value != null && ((String) value).isBlank()) {
                throw new ConfigException(name, value, "must not be blank");
            }
        }

        @Override
        public String toString() {
            return "non-blank";
        }
    }

    private static final class FormatValidator implements ConfigDef.Validator {
        private final String key;

        FormatValidator(String key) {
            this.key = key;
        }

        @Override
        public void ensureValid(String name, Object value) {
            String v = (String) value;
            if (v == null || v.isBlank()) {
                throw new ConfigException(key, value, "must not be blank");
            }
            String rest = v.replace("${topic}", "").replace("${schema}", "");
            if (rest.contains("${")) {
                throw new ConfigException(key, value, "only ${topic} and ${schema} may be replaced");
            }
        }

        @Override
        public String toString() {
            return "text with ${topic}";
        }
    }
}
