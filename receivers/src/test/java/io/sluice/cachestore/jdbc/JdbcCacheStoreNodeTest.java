package io.sluice.cachestore.jdbc;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.CacheStoreConfig;
import io.sluice.CacheStoreException;
import io.sluice.DataStreamer;
import io.sluice.Receivers;
import io.sluice.StreamerException;
import io.sluice.StreamerOptions;
import io.sluice.binary.BinaryObject;
import io.sluice.node.NodeConfig;
import io.sluice.node.internal.NodeEngine;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The JDBC store behind a node on a real PostgreSQL: what streamed loads, puts, read-through and write-behind
 * leave in the table, byte for byte, and what a failing database does to batches. The store called alone is
 * {@code JdbcCacheStoreTest} (module sluice-jdbc-store).
 */
@Timeout(120)
class JdbcCacheStoreNodeTest {

    private static Postgres pg;
    private NodeEngine node;

    @BeforeAll
    static void startPostgres() {
        pg = Postgres.start();
    }

    @AfterAll
    static void stopPostgres() throws Exception {
        pg.close();
    }

    @AfterEach
    void closeNode() {
        if (node != null) {
            node.close();
        }
    }

    private NodeEngine node(JdbcStoreConfig config) {
        return new NodeEngine(NodeConfig.builder().dataRegionInitialSize(8L << 20).dataRegionMaxSize(256L << 20)
                .applyThreads(2).store("pg", () -> new JdbcCacheStore(config)).build());
    }

    private BinaryObject order(NodeEngine n, long id, String tag) {
        return n.binary().builder("Order").setLong("id", id).setField("sec", "SEC" + (id % 97))
                .setField("tag", tag).setField("price", id * 0.25).build();
    }

    /** key → value bytes of the table. */
    private static Map<Long, ByteBuffer> table(String table) throws Exception {
        Map<Long, ByteBuffer> rows = new HashMap<>();
        try (Connection c = pg.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT k, v FROM " + table)) {
            while (rs.next()) {
                rows.put(rs.getLong(1), ByteBuffer.wrap(rs.getBytes(2)));
            }
        }
        return rows;
    }

    /** key → value bytes in memory. */
    private static Map<Long, ByteBuffer> memory(Cache<Long, BinaryObject> cache) {
        Map<Long, ByteBuffer> entries = new HashMap<>();
        cache.scan().forEach(e -> entries.put(e.getKey(), ByteBuffer.wrap(e.getValue().toBytes())));
        return entries;
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"unnest", "rewritten", "copy"})
    void streamedLoadsLeaveTheTableEqualToMemoryByteForByte(String statement) throws Exception {
        String table = "loads_" + statement;
        node = node(pg.config(table).maxBatchSize(512).copyThreshold(statement.equals("copy") ? 100 : 0)
                .batchStatement(statement.equals("rewritten") ? JdbcStoreConfig.BatchStatement.REWRITTEN_BATCH
                        : JdbcStoreConfig.BatchStatement.UNNEST_ARRAYS).build());
        Cache<Long, BinaryObject> cache = node.<Long, BinaryObject>createCache(CacheConfig.named("orders")
                .withPartitions(16).withStore(CacheStoreConfig.writeThrough("pg"))).withKeepBinary();
        try (DataStreamer<Long, BinaryObject> s = node.dataStreamer("orders")) {
            for (long k = 0; k < 20_000; k++) {
                s.addData(k, order(node, k, "first"));
            }
        }
        cache.put(5L, order(node, 5, "put"));
        try (DataStreamer<Long, BinaryObject> s = node.dataStreamer("orders", StreamerOptions.builder()
                .allowOverwrite(true).build())) {
            for (long k = 10_000; k < 30_000; k++) {
                s.addData(k, order(node, k, "second"));
                s.addData(k, order(node, k, "third")); // the same key twice in one batch: the last wins
            }
            for (long k = 0; k < 1_000; k++) {
                s.removeData(k);
            }
        }
        try (DataStreamer<Long, BinaryObject> s = node.dataStreamer("orders", StreamerOptions.builder()
                .receiver(Receivers.batched()).build())) {
            for (long k = 29_000; k < 31_000; k++) {
                s.addData(k, order(node, k, "batched"));
            }
        }
        Map<Long, ByteBuffer> memory = memory(cache);
        assertThat(memory).hasSize(30_000);
        assertThat(table(table)).isEqualTo(memory);
        assertThat(cache.get(20_000L).<String>field("tag")).isEqualTo("third");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"unnest", "rewritten", "copy"})
    void jsonValuesAreTheObjectsFieldsQueryableInSqlAndLoadBack(String statement) throws Exception {
        String table = "json_" + statement;
        node = node(pg.config(table).jsonValues("Order").maxBatchSize(256)
                .copyThreshold(statement.equals("copy") ? 100 : 0)
                .batchStatement(statement.equals("rewritten") ? JdbcStoreConfig.BatchStatement.REWRITTEN_BATCH
                        : JdbcStoreConfig.BatchStatement.UNNEST_ARRAYS).build());
        Cache<Long, BinaryObject> cache = node.<Long, BinaryObject>createCache(CacheConfig.named("orders")
                .withPartitions(8).withStore(CacheStoreConfig.writeThrough("pg"))).withKeepBinary();
        try (DataStreamer<Long, BinaryObject> s = node.dataStreamer("orders")) {
            for (long k = 0; k < 2_000; k++) {
                s.addData(k, order(node, k, "streamed"));
            }
        }
        cache.put(5L, order(node, 5, "put"));
        try (Connection c = pg.connect(); Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT jsonb_typeof(v), v->>'sec', v->>'tag', (v->>'price')::float8,"
                    + " (v->>'id')::bigint FROM " + table + " WHERE k = 42")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo("object");
                assertThat(rs.getString(2)).isEqualTo("SEC42");
                assertThat(rs.getString(3)).isEqualTo("streamed");
                assertThat(rs.getDouble(4)).isEqualTo(10.5);
                assertThat(rs.getLong(5)).isEqualTo(42L);
            }
            try (ResultSet rs = s.executeQuery("SELECT count(*) FILTER (WHERE v->>'tag' = 'streamed'),"
                    + " count(*) FILTER (WHERE v->>'tag' = 'put' AND k = 5) FROM " + table)) {
                rs.next();
                assertThat(rs.getLong(1)).isEqualTo(1_999);
                assertThat(rs.getLong(2)).isEqualTo(1);
            }
        }
        // Read-through builds binary objects of the configured type back from the JSON.
        Cache<Long, BinaryObject> reader = node.<Long, BinaryObject>createCache(CacheConfig.named("reader")
                .withStore(CacheStoreConfig.readThrough("pg"))).withKeepBinary();
        BinaryObject loaded = reader.get(42L);
        assertThat(loaded.type().typeName()).isEqualTo("Order");
        assertThat(loaded.<String>field("sec")).isEqualTo("SEC42");
        assertThat(loaded.<Double>field("price")).isEqualTo(10.5);
        assertThat(loaded.<Long>field("id")).isEqualTo(42L);
        assertThat(reader.getAll(Set.of(5L, 6L, 99_999L))).containsOnlyKeys(5L, 6L);
        assertThat(reader.get(5L).<String>field("tag")).isEqualTo("put");
        // A value that is not a binary object has no fields to write: refused, naming the key.
        Cache<Long, String> strings = node.createCache(CacheConfig.named("strings")
                .withStore(CacheStoreConfig.writeThrough("pg")));
        assertThatThrownBy(() -> strings.put(77L, "text")).isInstanceOf(CacheStoreException.class)
                .hasStackTraceContaining("the value of key 77 is a java.lang.String")
                .hasStackTraceContaining("binary objects only");
        assertThat(strings.get(77L)).isNull();
    }

    @Test
    void readThroughLoadsWhatTheTableHas() throws Exception {
        JdbcStoreConfig config = pg.config("read_through").build();
        node = node(config);
        Cache<Long, BinaryObject> writer = node.<Long, BinaryObject>createCache(CacheConfig.named("w")
                .withStore(CacheStoreConfig.writeThrough("pg"))).withKeepBinary();
        writer.putAll(Map.of(1L, order(node, 1, "one"), 2L, order(node, 2, "two")));
        Cache<Long, BinaryObject> reader = node.<Long, BinaryObject>createCache(CacheConfig.named("r")
                .withStore(CacheStoreConfig.readThrough("pg"))).withKeepBinary();
        assertThat(reader.size()).isZero();
        assertThat(reader.get(1L).<String>field("tag")).isEqualTo("one");
        assertThat(reader.getAll(Set.of(1L, 2L, 3L))).containsOnlyKeys(1L, 2L);
        assertThat(reader.size()).isEqualTo(2);
        reader.put(9L, order(node, 9, "memory only")); // read-through only: the table is not written
        assertThat(table("read_through")).containsOnlyKeys(1L, 2L);
    }

    @Test
    void writeBehindReachesTheTableCoalescedAndDrainsOnClose() throws Exception {
        node = node(pg.config("behind").maxBatchSize(1_000).build());
        Cache<Long, BinaryObject> cache = node.<Long, BinaryObject>createCache(CacheConfig.named("b")
                .withStore(CacheStoreConfig.writeBehind("pg").withFlushInterval(Duration.ofMinutes(10))
                        .withFlushSize(1_000_000))).withKeepBinary();
        for (int round = 0; round < 3; round++) {
            try (DataStreamer<Long, BinaryObject> s = node.dataStreamer("b", StreamerOptions.builder()
                    .allowOverwrite(true).build())) {
                for (long k = 0; k < 10_000; k++) {
                    s.addData(k, order(node, k, "round" + round));
                }
            }
        }
        cache.remove(7L);
        assertThat(table("behind")).isEmpty(); // nothing flushed yet: by size or time only
        assertThat(node.nodeCache("b").storeBridge().writeBehind().pending()).isEqualTo(10_000);
        Map<Long, ByteBuffer> memory = memory(cache);
        node.close();
        node = null;
        assertThat(table("behind")).isEqualTo(memory).hasSize(9_999);
    }

    @Test
    void aTransientErrorIsRetried() throws Exception {
        node = node(pg.config("transient").poolSize(2).retryAttempts(4).build());
        Cache<Long, String> cache = node.createCache(CacheConfig.named("t").withStore(CacheStoreConfig.writeThrough("pg")));
        cache.put(1L, "before");
        // Cut every connection of the pool: the next statement fails on a dead connection (class 08 / 57P01).
        try (Connection c = pg.connect(); Statement s = c.createStatement()) {
            s.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid()"
                    + " AND datname = 'postgres' AND backend_type = 'client backend'");
        }
        cache.put(2L, "after");
        assertThat(table("transient")).containsOnlyKeys(1L, 2L);

        // The pool may replace a dead connection before a statement sees it; a serialization failure
        // (40001) raised by the table's first write from now on cannot be avoided: the put succeeds only
        // through a retry. The failure counter is a sequence, which a rolled-back attempt still advances.
        try (Connection c = pg.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE SEQUENCE transient_attempts");
            s.execute("CREATE FUNCTION transient_fail_once() RETURNS trigger AS $$ BEGIN"
                    + " IF nextval('transient_attempts') = 1 THEN"
                    + " RAISE EXCEPTION 'injected serialization failure' USING ERRCODE = 'serialization_failure';"
                    + " END IF; RETURN NEW; END $$ LANGUAGE plpgsql");
            s.execute("CREATE TRIGGER transient_fail_once BEFORE INSERT OR UPDATE ON transient"
                    + " FOR EACH ROW EXECUTE FUNCTION transient_fail_once()");
        }
        try {
            cache.put(3L, "retried");
            assertThat(table("transient")).containsOnlyKeys(1L, 2L, 3L);
            try (Connection c = pg.connect(); Statement s = c.createStatement();
                 ResultSet rs = s.executeQuery("SELECT last_value FROM transient_attempts")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getLong(1)).as("attempts: the failed one and its retry").isEqualTo(2);
            }
        } finally {
            try (Connection c = pg.connect(); Statement s = c.createStatement()) {
                s.execute("DROP TRIGGER transient_fail_once ON transient");
                s.execute("DROP FUNCTION transient_fail_once()");
                s.execute("DROP SEQUENCE transient_attempts");
            }
        }
    }

    @Test
    void aDatabaseStoppedMidLoadFailsBatchesWithTheCauseAndKeepsEveryAcknowledgedEntry() throws Exception {
        node = node(pg.config("midload").maxBatchSize(100).poolSize(2).retryAttempts(2)
                .retryBackoff(Duration.ofMillis(20)).connectionTimeout(Duration.ofMillis(300)).build());
        Cache<Long, BinaryObject> cache = node.<Long, BinaryObject>createCache(CacheConfig.named("m").withPartitions(8)
                .withStore(CacheStoreConfig.writeThrough("pg"))).withKeepBinary();
        Map<CompletableFuture<?>, List<Long>> batches = new IdentityHashMap<>();
        DataStreamer<Long, BinaryObject> s = node.dataStreamer("m", StreamerOptions.builder()
                .perPartitionBufferSize(100).build());
        boolean stopped = false;
        try {
            for (long k = 0; k < 6_000; k++) {
                batches.computeIfAbsent(s.addData(k, order(node, k, "v")), f -> new ArrayList<>()).add(k);
                if (k == 4_000) {
                    await().atMost(Duration.ofSeconds(30))
                            .until(() -> batches.keySet().stream().filter(f -> f.isDone() && !f.isCompletedExceptionally()).count() >= 5);
                    pg.stop();
                    stopped = true;
                }
            }
            assertThatThrownBy(s::close).isInstanceOf(StreamerException.class);
        } finally {
            if (stopped) {
                pg.restart();
            }
        }
        Map<Long, ByteBuffer> table = table("midload");
        int acknowledged = 0;
        int failed = 0;
        for (Map.Entry<CompletableFuture<?>, List<Long>> batch : batches.entrySet()) {
            CompletableFuture<?> f = batch.getKey();
            assertThat(f).isDone();
            if (!f.isCompletedExceptionally()) {
                for (long k : batch.getValue()) {
                    acknowledged++;
                    assertThat(table.get(k)).as("acknowledged key %d", k)
                            .isEqualTo(ByteBuffer.wrap(cache.get(k).toBytes()));
                }
            } else {
                failed++;
                Throwable cause = f.handle((v, e) -> e instanceof CompletionException ? e.getCause() : e).join();
                assertThat(cause).isInstanceOf(CacheStoreException.class).hasMessageContaining("midload");
                assertThat(((CacheStoreException) cause).keys()).isNotEmpty();
                for (long k : batch.getValue()) {
                    assertThat(cache.get(k)).as("key %d of a failed batch is not in memory", k).isNull();
                }
            }
        }
        assertThat(acknowledged).isGreaterThanOrEqualTo(500);
        assertThat(failed).isPositive();
        // The database is back: writing through works again once the pool has reconnected.
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(
                () -> cache.put(1_000_000L, order(node, 1_000_000L, "after")));
        assertThat(table("midload")).containsKey(1_000_000L);
    }
}
