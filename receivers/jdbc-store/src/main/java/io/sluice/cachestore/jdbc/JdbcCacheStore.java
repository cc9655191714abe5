package io.sluice.cachestore.jdbc;

import io.sluice.CacheStore;
import io.sluice.CacheStoreContext;
import io.sluice.CacheStoreException;
import io.sluice.cachestore.jdbc.internal.CopyRows;
import io.sluice.cachestore.jdbc.internal.GroupCommit;
import io.sluice.cachestore.jdbc.internal.InsertFirst;
import io.sluice.cachestore.jdbc.internal.KeyBinder;
import io.sluice.cachestore.jdbc.internal.KeyColumn;
import io.sluice.cachestore.jdbc.internal.RowArrays;
import io.sluice.cachestore.jdbc.internal.RowArrays.Row;
import io.sluice.cachestore.jdbc.internal.StorePool;
import io.sluice.cachestore.jdbc.internal.StoreSql;
import io.sluice.cachestore.jdbc.internal.TransientErrors;
import io.sluice.binary.BinaryObject;
import org.postgresql.PGConnection;
import org.postgresql.util.PGobject;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A {@link CacheStore} keeping a cache in a PostgreSQL table: one row per key, the value as the
 * bytes the node stores (a binary object's own bytes, in a {@code bytea} column: no re-encoding,
 * {@link CacheStoreContext#toBytes}), or as the JSON of a binary object's fields in a {@code jsonb}
 * column ({@link JdbcStoreConfig.Builder#jsonValues}).
 *
 * <ul>
 *   <li><b>Writes</b> are upserts ({@code INSERT ... ON CONFLICT (key) DO UPDATE}). A
 *   {@link #writeBatch} keeps the last value of a key that occurs twice (PostgreSQL refuses to update
 *   a row twice in one statement) and runs as one statement over two arrays
 *   ({@code INSERT ... SELECT * FROM unnest(keys, values) ON CONFLICT ...}, the default), or as one JDBC
 *   batch in a transaction, which pgjdbc's {@code reWriteBatchedInserts} turns into multi-row INSERTs
 *   ({@link JdbcStoreConfig.BatchStatement}). The array statement is first tried as a plain {@code INSERT}, and
 *   upserted only if a key is present ({@link JdbcStoreConfig.Builder#insertFirst}). A batch of at least
 *   {@link JdbcStoreConfig#copyThreshold()} entries is {@code COPY}ed (binary) straight into the table the same
 *   way first ({@code bytea} values), else into a temporary staging table and upserted from it in one
 *   statement. Each call is one transaction: it is written
 *   whole or not at all.</li>
 *   <li><b>Connections</b> come from a fixed-size HikariCP pool ({@link JdbcStoreConfig#poolSize()}),
 *   opened in {@link #open} and closed in {@link #close}.</li>
 *   <li><b>Failures</b>: a call failing with a transient error (lost connection, server shutting down,
 *   serialization failure, deadlock — {@code TransientErrors}) is retried with exponential backoff and
 *   jitter (Resilience4j) up to {@link JdbcStoreConfig#retryAttempts()} tries in all; then, or at once for
 *   any other error, it throws a {@link CacheStoreException} naming the table and the keys.</li>
 * </ul>
 * Thread-safe.
 */
public final class JdbcCacheStore implements CacheStore<Object, Object> {

    /** The most writeBatch calls sent together in one transaction. */
    private static final int MAX_GROUP = 64;
    /**
     * A call of at least this many rows runs alone at once, never waiting for a group: one statement that large
     * already spreads the per-statement and per-commit cost, and two streaming apply threads' 512-row calls
     * serialized behind one leader loaded 37% slower (results log, 2026-11-24 01:00 entry).
     */
    static final int GROUP_BELOW_ROWS = 256;

    private final JdbcStoreConfig config;
    private final StoreSql sql;
    /** The key column's SQL facts ({@link JdbcStoreConfig#keyType()}). */
    private final KeyColumn keyType;
    /** Values as JSON in a jsonb column, rather than their bytes in a bytea one. */
    private final boolean json;
    private volatile StorePool pool;
    private volatile KeyBinder keys;
    private volatile CacheStoreContext context;
    /** Concurrent array upserts, sent together while {@link JdbcStoreConfig#concurrentBatches()} run. */
    private final GroupCommit<PendingUpsert> upserts;
    private final UpsertGroups upsertsAlone;
    private final InsertFirst insertFirst;
    /** The physical connections (sessions) that have the staging table; weak, so closed ones go. */
    private final Map<PGConnection, Boolean> staged = java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());

    public JdbcCacheStore(JdbcStoreConfig config) {
        this.config = Objects.requireNonNull(config, "config");
        this.json = config.valueFormat() == JdbcStoreConfig.ValueFormat.JSONB;
        this.keyType = config.keyType().column();
        this.sql = new StoreSql(config.table(), config.keyColumn(), keyType, config.valueColumn(),
                config.valueFormat().sql(), json);
        this.upsertsAlone = new UpsertGroups();
        this.insertFirst = new InsertFirst(config.insertFirst());
        this.upserts = new GroupCommit<>(upsertsAlone, config.concurrentBatches(), MAX_GROUP);
    }

    /** The store's config. */
    public JdbcStoreConfig config() {
        return config;
    }

    /**
     * Opens the pool (failing if the database cannot be reached within the connection timeout) and
     * creates the table if so configured.
     */
    @Override
    public void open(CacheStoreContext context) throws Exception {
        this.context = context;
        this.keys = new KeyBinder(keyType, context);
        this.pool = new StorePool(new StorePool.Settings(config.jdbcUrl(), config.username(), config.password(),
                config.table(), config.poolSize(), config.connectionTimeout(), config.retryAttempts(),
                config.retryBackoff()), context.cacheName(), this::forgetSession);
        if (config.createTable()) {
            inTransaction("create table " + config.table(), List.of(), false, c -> {
                try (Statement s = c.createStatement()) {
                    s.execute(sql.createTable);
                }
                return null;
            });
        }
    }

    @Override
    public Object load(Object key) throws Exception {
        Object column = keys.columnValue(key);
        Object value = inTransaction("load from " + config.table(), List.of(key), false, c -> {
            try (PreparedStatement s = c.prepareStatement(sql.select)) {
                keys.bind(s, 1, column);
                try (ResultSet rs = s.executeQuery()) {
                    return rs.next() ? rs.getObject(1) : null;
                }
            }
        });
        return value == null ? null : decodeValue(value);
    }

    @Override
    public Map<Object, Object> loadAll(Collection<?> wanted) throws Exception {
        Map<Object, Object> byColumn = new HashMap<>();
        List<Object> columns = new ArrayList<>(wanted.size());
        for (Object key : wanted) {
            Object column = keys.columnValue(key);
            byColumn.put(KeyBinder.lookupKey(column), key);
            columns.add(column);
        }
        Map<Object, Object> rows = inTransaction("loadAll from " + config.table(), new ArrayList<>(wanted), false, c -> {
            Map<Object, Object> found = new HashMap<>();
            try (PreparedStatement s = c.prepareStatement(sql.selectAny)) {
                Array array = c.createArrayOf(keyType.arrayElement(), RowArrays.typedKeys(keyType, columns));
                s.setArray(1, array);
                try (ResultSet rs = s.executeQuery()) {
                    while (rs.next()) {
                        found.put(byColumn.get(KeyBinder.lookupKey(keys.read(rs, 1))), rs.getObject(2));
                    }
                }
            }
            return found;
        });
        Map<Object, Object> result = new HashMap<>();
        for (Map.Entry<Object, Object> row : rows.entrySet()) {
            result.put(row.getKey(), decodeValue(row.getValue()));
        }
        return result;
    }

    @Override
    public void write(Object key, Object value) throws Exception {
        Object column = keys.columnValue(key);
        Object encoded = encodeValue(key, value);
        inTransaction("write to " + config.table(), List.of(key), false, c -> {
            try (PreparedStatement s = c.prepareStatement(sql.upsert)) {
                keys.bind(s, 1, column);
                bindValue(s, 2, encoded);
                s.executeUpdate();
            }
            return null;
        });
    }

    @Override
    public void writeBatch(Collection<Map.Entry<Object, Object>> entries) throws Exception {
        // column key (compared by content) → row; a key written twice keeps its last value, in its last place.
        LinkedHashMap<Object, Row> rows = new LinkedHashMap<>();
        List<Object> named = new ArrayList<>(entries.size());
        for (Map.Entry<Object, Object> e : entries) {
            Object column = keys.columnValue(e.getKey());
            Object lookup = KeyBinder.lookupKey(column);
            rows.remove(lookup);
            rows.put(lookup, new Row(column, encodeValue(e.getKey(), e.getValue())));
            named.add(e.getKey());
        }
        if (rows.isEmpty()) {
            return;
        }
        boolean copy = config.copyThreshold() > 0 && rows.size() >= config.copyThreshold();
        boolean arrays = !copy && config.batchStatement() == JdbcStoreConfig.BatchStatement.UNNEST_ARRAYS;
        if (arrays) {
            PendingUpsert call = new PendingUpsert(named, rows.values());
            if (rows.size() < GROUP_BELOW_ROWS) {
                upserts.run(call);
            } else {
                upsertsAlone.runAlone(call);
            }
            return;
        }
        inTransaction((copy ? "COPY" : "writeBatch") + " of " + rows.size() + " entries to " + config.table(), named,
                !arrays, c -> {
                    if (copy) {
                        copyThenUpsert(c, rows.values());
                    } else {
                        upsertBatch(c, rows.values());
                    }
                    return null;
                });
    }

    /** One writeBatch call's rows, waiting to be upserted alone or in a group. */
    private record PendingUpsert(List<Object> named, Collection<Row> rows) {
    }

    /**
     * Array upserts, alone (one statement, its own transaction) or grouped: each call's statement in one
     * pipelined JDBC batch, one transaction, one commit. A call's rows stay one statement, so a key written by
     * two calls of a group is updated once by each, in queue order.
     */
    private final class UpsertGroups implements GroupCommit.Work<PendingUpsert> {
        @Override
        public void runGroup(List<PendingUpsert> calls) throws Exception {
            List<Object> named = new ArrayList<>();
            for (PendingUpsert call : calls) {
                named.addAll(call.named);
            }
            inTransaction("writeBatch of " + named.size() + " entries in " + calls.size() + " calls to " + config.table(),
                    named, true, c -> {
                        writeArrays(c, calls, true);
                        return null;
                    });
        }

        @Override
        public void runAlone(PendingUpsert call) throws Exception {
            inTransaction("writeBatch of " + call.rows.size() + " entries to " + config.table(), call.named, false, c -> {
                writeArrays(c, List.of(call), false);
                return null;
            });
        }

        @Override
        public boolean failsEveryCall(Exception groupFailure) {
            // Still transient after the retries: the database is away, and each call alone would wait as long again.
            return TransientErrors.isTransient(groupFailure);
        }

        @Override
        public Exception failureOf(PendingUpsert call, Exception groupFailure) {
            Throwable cause = groupFailure instanceof CacheStoreException && groupFailure.getCause() != null
                    ? groupFailure.getCause() : groupFailure;
            return new CacheStoreException("writeBatch of " + call.rows.size() + " entries to " + config.table(),
                    call.named, cause);
        }
    }

    /**
     * Writes the calls, one array statement each: plain inserts when {@link InsertFirst} says to try them, upserts
     * otherwise or when an insert met a present key. A failed insert changed nothing: alone, its statement was
     * its transaction; in a transaction, that transaction is rolled back before the upserts run in a new one.
     */
    private void writeArrays(Connection c, List<PendingUpsert> calls, boolean inTransaction) throws Exception {
        if (!insertedFirst(c, inTransaction, () -> runArrays(c, sql.insertArrays, calls))) {
            runArrays(c, sql.upsertArrays, calls);
        }
    }

    /**
     * Runs the plain insert if {@link InsertFirst} says to try one. @return whether it wrote the rows; if not (not
     * tried, or it met a present key and changed nothing), the caller upserts them — in a transaction, a new one,
     * as a failed insert's is rolled back here
     */
    private boolean insertedFirst(Connection c, boolean inTransaction, SqlAction insert) throws Exception {
        if (!insertFirst.tryInsert()) {
            return false;
        }
        try {
            insert.run();
            return true;
        } catch (SQLException e) {
            if (!InsertFirst.isUniqueViolation(e)) {
                throw e;
            }
            insertFirst.conflicted();
            if (inTransaction) {
                c.rollback();
            }
            return false;
        }
    }

    private void runArrays(Connection c, String statement, List<PendingUpsert> calls) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(statement)) {
            if (calls.size() == 1) {
                RowArrays.bind(s, keyType, json, calls.get(0).rows);
                s.executeUpdate();
                return;
            }
            for (PendingUpsert call : calls) {
                RowArrays.bind(s, keyType, json, call.rows);
                s.addBatch();
            }
            s.executeBatch();
        }
    }

    private void upsertBatch(Connection c, Collection<Row> rows) throws SQLException {
        try (PreparedStatement s = c.prepareStatement(sql.upsert)) {
            for (Row row : rows) {
                keys.bind(s, 1, row.key());
                bindValue(s, 2, row.value());
                s.addBatch();
            }
            s.executeBatch();
        }
    }

    private void copyThenUpsert(Connection c, Collection<Row> rows) throws Exception {
        int bytes = 0;
        for (Row row : rows) {
            bytes += (json ? ((String) row.value()).length() : ((byte[]) row.value()).length) + 24;
        }
        CopyRows copy = new CopyRows(keyType, bytes);
        for (Row row : rows) {
            // A jsonb value is staged as text, whose binary COPY form is its UTF-8 bytes.
            copy.add(row.key(), json ? ((String) row.value()).getBytes(StandardCharsets.UTF_8) : (byte[]) row.value());
        }
        PGConnection session = c.unwrap(PGConnection.class);
        byte[] stream = copy.finish();
        // Insert first: new keys are COPYed straight into the table; one present key fails the COPY whole (unique
        // violation), and the rows go through the staging table's upsert.
        if (!json && insertedFirst(c, true, () -> session.getCopyAPI().copyIn(sql.copyIntoTable,
                new ByteArrayInputStream(stream)))) {
            return;
        }
        // The temporary staging table lives as long as the session: created once per physical connection
        // (not a statement and catalog lookup per batch); forgotten if a transaction fails, as its rollback
        // may have undone the creation.
        if (!staged.containsKey(session)) {
            try (Statement s = c.createStatement()) {
                s.execute(sql.createStage);
            }
            staged.put(session, Boolean.TRUE);
        }
        session.getCopyAPI().copyIn(sql.copyIntoStage, new ByteArrayInputStream(stream));
        try (Statement s = c.createStatement()) {
            s.executeUpdate(sql.upsertFromStage);
        }
    }

    @Override
    public void delete(Object key) throws Exception {
        Object column = keys.columnValue(key);
        inTransaction("delete from " + config.table(), List.of(key), false, c -> {
            try (PreparedStatement s = c.prepareStatement(sql.delete)) {
                keys.bind(s, 1, column);
                s.executeUpdate();
            }
            return null;
        });
    }

    @Override
    public void deleteBatch(Collection<?> toDelete) throws Exception {
        if (toDelete.isEmpty()) {
            return;
        }
        List<Object> columns = new ArrayList<>(toDelete.size());
        for (Object key : toDelete) {
            columns.add(keys.columnValue(key));
        }
        inTransaction("deleteBatch of " + columns.size() + " keys from " + config.table(), new ArrayList<>(toDelete),
                false, c -> {
                    try (PreparedStatement s = c.prepareStatement(sql.deleteAny)) {
                        s.setArray(1, c.createArrayOf(keyType.arrayElement(),
                                RowArrays.typedKeys(keyType, columns)));
                        s.executeUpdate();
                    }
                    return null;
                });
    }

    /** Tried inserts that met a present key and were upserted (tests). */
    long insertConflicts() {
        return insertFirst.conflicts();
    }

    /** writeBatch calls waiting for a group (tests). */
    int callsWaiting() {
        return upserts.waiting();
    }

    @Override
    public int maxBatchSize() {
        return config.maxBatchSize();
    }

    /** Closes the pool; calls after this fail. */
    @Override
    public void close() {
        StorePool p = pool;
        if (p != null) {
            p.close();
        }
    }

    /** Runs the work on the pool ({@link StorePool#inTransaction}). */
    private <T> T inTransaction(String what, List<?> involved, boolean multiStatement, StorePool.SqlWork<T> work)
            throws CacheStoreException {
        StorePool p = pool;
        if (p == null) {
            throw new IllegalStateException("the JDBC store of table " + config.table() + " is not open");
        }
        return p.inTransaction(what, involved, multiStatement, work);
    }

    private void forgetSession(Connection c) {
        try {
            staged.remove(c.unwrap(PGConnection.class));
        } catch (SQLException ignored) {
            // not a PostgreSQL connection: nothing was staged on it
        }
    }

    @FunctionalInterface
    private interface SqlAction {
        void run() throws Exception;
    }

    /**
     * The value column's value: the stored bytes ({@code byte[]}) or, for {@code jsonb}, the binary
     * object's JSON text.
     *
     * @throws IllegalArgumentException naming the key if a {@code jsonb} store is given a value that is not a binary object
     */
    private Object encodeValue(Object key, Object value) {
        if (!json) {
            return context.toBytes(value);
        }
        if (value instanceof BinaryObject object) {
            return context.binary().toJson(object);
        }
        throw new IllegalArgumentException("the value of key " + key + " is a "
                + (value == null ? "null" : value.getClass().getName()) + "; the jsonb value column of table "
                + config.table() + " holds binary objects only (JdbcStoreConfig.jsonValues)");
    }

    private static void bindValue(PreparedStatement s, int index, Object value) throws SQLException {
        if (value instanceof byte[] bytes) {
            s.setBytes(index, bytes);
        } else {
            s.setString(index, (String) value);
        }
    }

    /** A value read from the value column: bytes made by the node, or JSON of a binary object of the configured type. */
    private Object decodeValue(Object column) {
        if (!json) {
            return context.fromBytes((byte[]) column);
        }
        // pgjdbc reads jsonb as a PGobject whose value is the text.
        String text = column instanceof PGobject o ? o.getValue() : column.toString();
        return context.binary().fromJson(text, config.valueType());
    }

    @Override
    public String toString() {
        return "JdbcCacheStore{" + config + '}';
    }
}
