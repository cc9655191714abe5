package io.sluice.cachestore.jdbc;

import io.sluice.cachestore.jdbc.internal.KeyColumn;

import java.time.Duration;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * How a {@link JdbcCacheStore} reaches its table: connection, table and column names, the key
 * column's type, batch sizes, pool and retries. Immutable; made with {@link #builder(String)} and
 * checked when built.
 *
 * <pre>{@code
 * JdbcStoreConfig.builder("jdbc:postgresql://db:5432/app").username("app").password(secret)
 *         .table("orders").keyColumn("id").keyType(KeyType.BIGINT).valueColumn("body")
 *         .createTable(true).build()
 * }</pre>
 *
 * The table needs the key column as its primary key (or a unique constraint) and a {@code bytea}
 * value column: {@code CREATE TABLE orders (id bigint PRIMARY KEY, body bytea NOT NULL)}; or, with
 * {@link Builder#jsonValues(String)}, a {@code jsonb} one holding each binary object's fields.
 */
public final class JdbcStoreConfig {

    /** The type of the key column, which the cache's keys must fit. */
    public enum KeyType {
        /** {@code bigint}: keys are {@code Long}, {@code Integer}, {@code Short} or {@code Byte}. */
        BIGINT(KeyColumn.BIGINT),
        /** {@code integer}: keys are {@code Integer}, {@code Short} or {@code Byte}. */
        INTEGER(KeyColumn.INTEGER),
        /** {@code text}: keys are {@code String}s. */
        TEXT(KeyColumn.TEXT),
        /** {@code bytea}: any key, stored as its binary encoding. */
        BYTEA(KeyColumn.BYTEA);

        private final KeyColumn column;

        KeyType(KeyColumn column) {
            this.column = column;
        }

        /** The SQL type. */
        public String sql() {
            return column.sql();
        }

        /** The element type name of an array of keys ({@code Connection.createArrayOf}). */
        public String arrayElement() {
            return column.arrayElement();
        }

        /** The column's SQL facts, for the store's internals. */
        KeyColumn column() {
            return column;
        }
    }

    /** The statement a writeBatch below {@link #copyThreshold()} runs. */
    public enum BatchStatement {
        /** One {@code INSERT ... SELECT * FROM unnest(?, ?) ON CONFLICT ...} with the keys and values as two arrays: one statement and round trip for any size, atomic on its own. */
        UNNEST_ARRAYS,
        /** A JDBC batch of single-row upserts in a transaction, which pgjdbc's {@code reWriteBatchedInserts} rewrites into multi-row INSERTs. */
        REWRITTEN_BATCH
    }

    /** How the value column holds a value. */
    public enum ValueFormat {
        /** {@code bytea}: the value's bytes exactly as the node stores them (a binary object's own bytes); any value. */
        BYTEA("bytea"),
        /**
         * {@code jsonb}: a binary object as a JSON object of its fields ({@code Binary.toJson}), so SQL can
         * read them ({@code v->>'price'}); loads build binary objects of {@link #valueType()} back from it.
         * Values must be binary objects.
         */
        JSONB("jsonb");

        private final String sql;

        ValueFormat(String sql) {
            this.sql = sql;
        }

        /** The SQL type of the value column. */
        public String sql() {
            return sql;
        }
    }

    /** An identifier: letters, digits, underscores; a table may be schema-qualified. */
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

    private final String jdbcUrl;
    private final String username;
    private final String password;
    private final String table;
    private final String keyColumn;
    private final String valueColumn;
    private final KeyType keyType;
    private final ValueFormat valueFormat;
    private final String valueType;
    private final boolean createTable;
    private final int maxBatchSize;
    private final int copyThreshold;
    private final BatchStatement batchStatement;
    private final int poolSize;
    private final int concurrentBatches;
    private final boolean insertFirst;
    private final Duration connectionTimeout;
    private final int retryAttempts;
    private final Duration retryBackoff;

    private JdbcStoreConfig(Builder b) {
        this.jdbcUrl = b.jdbcUrl;
        this.username = b.username;
        this.password = b.password;
        this.table = b.table;
        this.keyColumn = b.keyColumn;
        this.valueColumn = b.valueColumn;
        this.keyType = b.keyType;
        this.valueFormat = b.valueFormat;
        this.valueType = b.valueType;
        this.createTable = b.createTable;
        this.maxBatchSize = b.maxBatchSize;
        this.copyThreshold = b.copyThreshold;
        this.batchStatement = b.batchStatement;
        this.poolSize = b.poolSize;
        this.concurrentBatches = b.concurrentBatches;
        this.insertFirst = b.insertFirst;
        this.connectionTimeout = b.connectionTimeout;
        this.retryAttempts = b.retryAttempts;
        this.retryBackoff = b.retryBackoff;
    }

    /** A builder for a store reached at the JDBC URL, with the defaults. */
    public static Builder builder(String jdbcUrl) {
        return new Builder(jdbcUrl);
    }

    public String jdbcUrl() {
        return jdbcUrl;
    }

    public String username() {
        return username;
    }

    public String password() {
        return password;
    }

    public String table() {
        return table;
    }

    public String keyColumn() {
        return keyColumn;
    }

    public String valueColumn() {
        return valueColumn;
    }

    public KeyType keyType() {
        return keyType;
    }

    /** How the value column holds a value; default {@link ValueFormat#BYTEA}. */
    public ValueFormat valueFormat() {
        return valueFormat;
    }

    /** The binary type loads build from a {@link ValueFormat#JSONB} value; null with {@code BYTEA}. */
    public String valueType() {
        return valueType;
    }

    public boolean createTable() {
        return createTable;
    }

    public int maxBatchSize() {
        return maxBatchSize;
    }

    public int copyThreshold() {
        return copyThreshold;
    }

    public BatchStatement batchStatement() {
        return batchStatement;
    }

    public int poolSize() {
        return poolSize;
    }

    /** How many array-upsert writeBatch calls run on the database at once; calls beyond wait and go together. */
    public int concurrentBatches() {
        return concurrentBatches;
    }

    /** Whether an array writeBatch tries a plain INSERT before the upsert (see {@link Builder#insertFirst}). */
    public boolean insertFirst() {
        return insertFirst;
    }

    public Duration connectionTimeout() {
        return connectionTimeout;
    }

    public int retryAttempts() {
        return retryAttempts;
    }

    public Duration retryBackoff() {
        return retryBackoff;
    }

    @Override
    public String toString() {
        // No password.
        return "JdbcStoreConfig{url=" + jdbcUrl + ", user=" + username + ", table=" + table + " (" + keyColumn + ' '
                + keyType.sql() + ", " + valueColumn + ' ' + valueFormat.sql()
                + (valueType == null ? "" : " of " + valueType) + "), maxBatchSize=" + maxBatchSize + ", copyThreshold="
                + copyThreshold + ", batchStatement=" + batchStatement + ", poolSize=" + poolSize + ", concurrentBatches=" + concurrentBatches + ", insertFirst=" + insertFirst + ", retryAttempts=" + retryAttempts + '}';
    }

    /** Builds a {@link JdbcStoreConfig}; setters check their argument. */
    public static final class Builder {
        private final String jdbcUrl;
        private String username;
        private String password;
        private String table = "sluice_entries";
        private String keyColumn = "k";
        private String valueColumn = "v";
        private KeyType keyType = KeyType.BIGINT;
        private ValueFormat valueFormat = ValueFormat.BYTEA;
        private String valueType;
        private boolean createTable;
        private int maxBatchSize = 512;
        private int copyThreshold = 0;
        private BatchStatement batchStatement = BatchStatement.UNNEST_ARRAYS;
        private int poolSize = 4;
        private int concurrentBatches = 1;
        private boolean insertFirst = true;
        private Duration connectionTimeout = Duration.ofSeconds(5);
        private int retryAttempts = 3;
        private Duration retryBackoff = Duration.ofMillis(100);

        private Builder(String jdbcUrl) {
            Objects.requireNonNull(jdbcUrl, "jdbcUrl");
            if (!jdbcUrl.startsWith("jdbc:postgresql:")) {
                throw new IllegalArgumentException("jdbcUrl is '" + jdbcUrl
                        + "'; the JDBC store speaks PostgreSQL: it must start with jdbc:postgresql: (JdbcStoreConfig.jdbcUrl)");
            }
            this.jdbcUrl = jdbcUrl;
        }

        public Builder username(String username) {
            this.username = username;
            return this;
        }

        public Builder password(String password) {
            this.password = password;
            return this;
        }

        /** @param table an identifier, optionally schema-qualified ({@code schema.table}); default {@code sluice_entries} */
        public Builder table(String table) {
            Objects.requireNonNull(table, "table");
            String[] parts = table.split("\\.", -1);
            if (parts.length > 2 || !IDENTIFIER.matcher(parts[0]).matches()
                    || (parts.length == 2 && !IDENTIFIER.matcher(parts[1]).matches())) {
                throw new IllegalArgumentException("table is '" + table + "'; it must be an identifier (letters, digits,"
                        + " underscores), optionally schema-qualified (JdbcStoreConfig.table)");
            }
            this.table = table;
            return this;
        }

        /** @param column an identifier; default {@code k} */
        public Builder keyColumn(String column) {
            this.keyColumn = column(column, "keyColumn");
            return this;
        }

        /** @param column an identifier of a {@code bytea} column ({@code jsonb} with {@link #jsonValues}); default {@code v} */
        public Builder valueColumn(String column) {
            this.valueColumn = column(column, "valueColumn");
            return this;
        }

        private static String column(String column, String option) {
            Objects.requireNonNull(column, option);
            if (!IDENTIFIER.matcher(column).matches()) {
                throw new IllegalArgumentException(option + " is '" + column + "'; it must be an identifier (letters,"
                        + " digits, underscores) (JdbcStoreConfig." + option + ")");
            }
            return column;
        }

        /** @param type the key column's type; default {@link KeyType#BIGINT} */
        public Builder keyType(KeyType type) {
            this.keyType = Objects.requireNonNull(type, "type");
            return this;
        }

        /**
         * Values as JSON: a {@code jsonb} value column holding each binary object's fields; loads
         * (read-through) build binary objects of the named type from it.
         *
         * @param typeName the binary type of the cache's values (as in {@code Binary.builder(typeName)})
         */
        public Builder jsonValues(String typeName) {
            Objects.requireNonNull(typeName, "typeName");
            if (typeName.isBlank()) {
                throw new IllegalArgumentException("valueType is blank; name the binary type of the values"
                        + " (JdbcStoreConfig.valueType)");
            }
            this.valueFormat = ValueFormat.JSONB;
            this.valueType = typeName;
            return this;
        }

        /** Values as their stored bytes in a {@code bytea} column (the default). */
        public Builder bytesValues() {
            this.valueFormat = ValueFormat.BYTEA;
            this.valueType = null;
            return this;
        }

        /** @param create create the table if it does not exist when the store opens; default false */
        public Builder createTable(boolean create) {
            this.createTable = create;
            return this;
        }

        /** @param entries the most entries per writeBatch/deleteBatch ({@code CacheStore.maxBatchSize}); less than 1: no limit; default 512 */
        public Builder maxBatchSize(int entries) {
            this.maxBatchSize = entries;
            return this;
        }

        /**
         * @param entries a writeBatch of at least this many entries goes through {@code COPY} into a
         *                temporary staging table and one {@code INSERT ... SELECT ... ON CONFLICT}; smaller
         *                ones through a rewritten multi-row upsert. 0 (the default) never uses COPY.
         */
        public Builder copyThreshold(int entries) {
            if (entries < 0) {
                throw new IllegalArgumentException("copyThreshold is " + entries
                        + "; it must not be negative (JdbcStoreConfig.copyThreshold)");
            }
            this.copyThreshold = entries;
            return this;
        }

        /** @param statement how a writeBatch below the copy threshold is written; default {@link BatchStatement#UNNEST_ARRAYS} */
        public Builder batchStatement(BatchStatement statement) {
            this.batchStatement = Objects.requireNonNull(statement, "statement");
            return this;
        }

        /** @param connections the pool's fixed size; 1 to 1024, default 4 */
        public Builder poolSize(int connections) {
            if (connections < 1 || connections > 1024) {
                throw new IllegalArgumentException("poolSize is " + connections
                        + "; it must be between 1 and 1024 (JdbcStoreConfig.poolSize)");
            }
            this.poolSize = connections;
            return this;
        }

        /**
         * Group commit of small {@link BatchStatement#UNNEST_ARRAYS} writeBatch calls (fewer than 256 rows; larger
         * ones run alone at once): at most this many run on the database at once; calls arriving meanwhile wait,
         * and the next free one sends every waiting call together (each call's statement in one pipelined JDBC
         * batch, one transaction, one commit). A call that finds one free runs at once. Each call stays atomic and
         * keeps its own outcome (a group failing on one call's data is run again call by call). On a small
         * database machine one session committing many statements beats many sessions committing one each;
         * raise it for a database with many cores.
         *
         * @param calls 1 to 1024, default 1
         */
        public Builder concurrentBatches(int calls) {
            if (calls < 1 || calls > 1024) {
                throw new IllegalArgumentException("concurrentBatches is " + calls
                        + "; it must be between 1 and 1024 (JdbcStoreConfig.concurrentBatches)");
            }
            this.concurrentBatches = calls;
            return this;
        }

        /**
         * Whether a {@link BatchStatement#UNNEST_ARRAYS} writeBatch first tries its rows as a plain {@code INSERT}
         * (one at or over the {@link #copyThreshold} with {@code bytea} values: a {@code COPY} straight into the
         * table), and upserts them only if one of its keys is already in the table. A plain insert of a new row costs
         * PostgreSQL about 0.6 of an {@code INSERT ... ON CONFLICT DO UPDATE}'s CPU (the upsert checks the index
         * before each row and confirms each row after: speculative insertion), so loads of new keys go faster. An
         * insert that meets a present key fails whole (unique violation) and is rolled back, and the call's rows
         * are upserted in the same call; the store then upserts at once for its next 64 calls before it tries an
         * insert again, so a store whose writes are mostly updates wastes one short failed statement in 65 calls.
         * The result is the same either way: each row holds the call's value.
         *
         * @param tryInsert default true; false always upserts
         */
        public Builder insertFirst(boolean tryInsert) {
            this.insertFirst = tryInsert;
            return this;
        }

        /** @param timeout how long a call waits for a connection; at least 250 ms, default 5 s */
        public Builder connectionTimeout(Duration timeout) {
            Objects.requireNonNull(timeout, "timeout");
            if (timeout.toMillis() < 250) {
                throw new IllegalArgumentException("connectionTimeout is " + timeout
                        + "; it must be at least 250 ms (JdbcStoreConfig.connectionTimeout)");
            }
            this.connectionTimeout = timeout;
            return this;
        }

        /** @param attempts tries of a call failing with a transient error, in all; at least 1, default 3 */
        public Builder retryAttempts(int attempts) {
            if (attempts < 1) {
                throw new IllegalArgumentException("retryAttempts is " + attempts
                        + "; it must be at least 1 (JdbcStoreConfig.retryAttempts)");
            }
            this.retryAttempts = attempts;
            return this;
        }

        /** @param backoff the first pause between tries, doubled each time with jitter; positive, default 100 ms */
        public Builder retryBackoff(Duration backoff) {
            Objects.requireNonNull(backoff, "backoff");
            if (backoff.isZero() || backoff.isNegative()) {
                throw new IllegalArgumentException("retryBackoff is " + backoff
                        + "; it must be positive (JdbcStoreConfig.retryBackoff)");
            }
            this.retryBackoff = backoff;
            return this;
        }

        public JdbcStoreConfig build() {
            return new JdbcStoreConfig(this);
        }
    }
}
