package io.sluice.server.internal;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.CacheStore;
import io.sluice.CacheStoreConfig;
import io.sluice.DataStreamer;
import io.sluice.Sluice;
import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import io.sluice.node.NodeConfig;
import io.sluice.node.internal.NodeEngine;
import io.sluice.cachestore.jdbc.JdbcCacheStore;
import io.sluice.cachestore.jdbc.JdbcStoreConfig;
import io.sluice.cachestore.jdbc.Postgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Stores declared in the node file ({@code "stores"}, a cache's {@code "store"}): read and checked with
 * messages naming the key; and a node started from such a file writing through to a real PostgreSQL
 * for a cache of the file and for one a remote client creates.
 */
@Timeout(120)
class StoreFileConfigTest {

    @TempDir
    Path dir;

    private NodeFileConfig read(String json) throws IOException {
        Path file = dir.resolve("node.json");
        Files.writeString(file, json);
        return NodeFileConfig.read(file);
    }

    /** A store class for the file: stores nothing. */
    public static final class NothingStore implements CacheStore<Object, Object> {
        @Override
        public Object load(Object key) {
            return null;
        }

        @Override
        public void write(Object key, Object value) {
        }

        @Override
        public void delete(Object key) {
        }
    }

    @Test
    void everySettingIsRead() throws IOException {
        NodeFileConfig file = read("""
                {"stores": {
                   "pg": {"jdbc": {"url": "jdbc:postgresql://127.0.0.1:1/app", "username": "u", "password": "p",
                          "table": "app.orders", "keyColumn": "id", "keyType": "text", "valueColumn": "body",
                          "jsonValues": "StockOrder", "createTable": true, "maxBatchSize": 20, "copyThreshold": 256,
                          "batchStatement": "REWRITTEN_BATCH", "poolSize": 8, "concurrentBatches": 3, "connectionTimeoutMillis": 1000,
                          "retryAttempts": 5, "retryBackoffMillis": 50}},
                   "nothing": {"class": "io.sluice.server.internal.StoreFileConfigTest$NothingStore"}},
                 "caches": [{"name": "orders", "store": {"name": "pg", "mode": "write_behind", "readThrough": true,
                             "flushSize": 100, "flushIntervalMillis": 250, "queueBound": 1000, "flushAttempts": 2,
                             "flushThreads": 3}},
                            {"name": "plain"}, {"name": "through", "store": {"name": "nothing"}}]}
                """);
        NodeConfig node = file.nodeConfig();
        assertThat(node.stores()).containsOnlyKeys("pg", "nothing");
        assertThat(node.stores().get("nothing").get()).isInstanceOf(NothingStore.class);
        JdbcStoreConfig jdbc = ((JdbcCacheStore) node.stores().get("pg").get()).config();
        assertThat(jdbc.jdbcUrl()).isEqualTo("jdbc:postgresql://127.0.0.1:1/app");
        assertThat(jdbc.username()).isEqualTo("u");
        assertThat(jdbc.password()).isEqualTo("p");
        assertThat(jdbc.table()).isEqualTo("app.orders");
        assertThat(jdbc.keyColumn()).isEqualTo("id");
        assertThat(jdbc.keyType()).isEqualTo(JdbcStoreConfig.KeyType.TEXT);
        assertThat(jdbc.valueColumn()).isEqualTo("body");
        assertThat(jdbc.valueFormat()).isEqualTo(JdbcStoreConfig.ValueFormat.JSONB);
        assertThat(jdbc.valueType()).isEqualTo("StockOrder");
        assertThat(jdbc.createTable()).isTrue();
        assertThat(jdbc.maxBatchSize()).isEqualTo(20);
        assertThat(jdbc.copyThreshold()).isEqualTo(256);
        assertThat(jdbc.batchStatement()).isEqualTo(JdbcStoreConfig.BatchStatement.REWRITTEN_BATCH);
        assertThat(jdbc.poolSize()).isEqualTo(8);
        assertThat(jdbc.concurrentBatches()).isEqualTo(3);
        assertThat(jdbc.connectionTimeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(jdbc.retryAttempts()).isEqualTo(5);
        assertThat(jdbc.retryBackoff()).isEqualTo(Duration.ofMillis(50));

        List<CacheConfig> caches = file.cacheConfigs();
        CacheStoreConfig behind = caches.get(0).store();
        assertThat(behind.storeName()).isEqualTo("pg");
        assertThat(behind.writeMode()).isEqualTo(CacheStoreConfig.WriteMode.WRITE_BEHIND);
        assertThat(behind.readThrough()).isTrue();
        assertThat(behind.flushSize()).isEqualTo(100);
        assertThat(behind.flushInterval()).isEqualTo(Duration.ofMillis(250));
        assertThat(behind.queueBound()).isEqualTo(1000);
        assertThat(behind.flushAttempts()).isEqualTo(2);
        assertThat(behind.flushThreads()).isEqualTo(3);
        assertThat(caches.get(1).store()).isNull();
        assertThat(caches.get(2).store().writeMode()).isEqualTo(CacheStoreConfig.WriteMode.WRITE_THROUGH);
        assertThat(caches.get(2).store().readThrough()).isFalse();
    }

    @Test
    void unknownKeysAndBadValuesStopTheStartNamingTheKey() {
        assertThatThrownBy(() -> read("{\"stores\": {\"pg\": {\"jdbc\": {\"url\": \"jdbc:postgresql://h/d\","
                + " \"tabel\": \"t\"}}}}").nodeConfig())
                .hasMessageContaining("unknown key 'tabel' in 'stores.pg.jdbc'").hasMessageContaining("keyColumn");
        assertThatThrownBy(() -> read("{\"stores\": {\"pg\": {\"jbdc\": {}}}}").nodeConfig())
                .hasMessageContaining("unknown key 'jbdc' in 'stores.pg'").hasMessageContaining("[class, jdbc]");
        assertThatThrownBy(() -> read("{\"stores\": {\"pg\": {\"jdbc\": {\"url\": \"jdbc:postgresql://h/d\","
                + " \"poolSize\": 0}}}}").nodeConfig())
                .hasMessageContaining("key 'stores.pg.jdbc.poolSize'").hasMessageContaining("between 1 and 1024");
        assertThatThrownBy(() -> read("{\"stores\": {\"pg\": {\"jdbc\": {\"url\": \"jdbc:mysql://h/d\"}}}}").nodeConfig())
                .hasMessageContaining("key 'stores.pg.jdbc.url'").hasMessageContaining("jdbc:postgresql:");
        assertThatThrownBy(() -> read("{\"stores\": {\"pg\": {\"jdbc\": {\"username\": \"u\"}}}}").nodeConfig())
                .hasMessageContaining("key 'stores.pg.jdbc.url' is missing");
        assertThatThrownBy(() -> read("{\"stores\": {\"pg\": {\"jdbc\": {\"url\": \"jdbc:postgresql://h/d\","
                + " \"keyType\": \"uuid\"}}}}").nodeConfig())
                .hasMessageContaining("key 'stores.pg.jdbc.keyType' is 'uuid'; it must be one of [BIGINT, INTEGER, TEXT, BYTEA]");
        assertThatThrownBy(() -> read("{\"stores\": {\"pg\": {\"jdbc\": {\"url\": \"jdbc:postgresql://h/d\","
                + " \"maxBatchSize\": \"many\"}}}}").nodeConfig())
                .hasMessageContaining("key 'stores.pg.jdbc.maxBatchSize'");
        assertThatThrownBy(() -> read("{\"stores\": {\"x\": {}}}").nodeConfig())
                .hasMessageContaining("key 'stores.x' must have exactly one of \"class\"");
        assertThatThrownBy(() -> read("{\"stores\": {\"x\": {\"class\": \"java.lang.String\"}}}").nodeConfig())
                .hasMessageContaining("stores.x").hasMessageContaining("is not a io.sluice.CacheStore");
        assertThatThrownBy(() -> read("{\"caches\": [{\"name\": \"c\", \"store\": {\"name\": \"pg\","
                + " \"mode\": \"sometimes\"}}]}").cacheConfigs())
                .hasMessageContaining("key 'caches[0].store.mode' is 'sometimes'; it must be one of [NONE, WRITE_THROUGH,"
                        + " WRITE_BEHIND]");
        assertThatThrownBy(() -> read("{\"caches\": [{\"name\": \"c\", \"store\": {\"mode\": \"NONE\"}}]}").cacheConfigs())
                .hasMessageContaining("key 'caches[0].store.name' is missing");
        assertThatThrownBy(() -> read("{\"caches\": [{\"name\": \"c\", \"store\": {\"name\": \"pg\","
                + " \"flushSize\": 0}}]}").cacheConfigs())
                .hasMessageContaining("key 'caches[0].store.flushSize'");
        assertThatThrownBy(() -> read("{\"caches\": [{\"name\": \"c\", \"store\": {\"name\": \"pg\","
                + " \"flush\": 1}}]}").cacheConfigs())
                .hasMessageContaining("unknown key 'flush' in 'caches.[0].store'").hasMessageContaining("flushInterval");
    }

    @Test
    void aNodeFromTheFileWritesThroughToPostgresForItsCachesAndARemoteClientsOwn() throws Exception {
        try (Postgres pg = Postgres.start()) {
            NodeFileConfig file = read("{\"dataRegionInitialSize\": \"8m\", \"dataRegionMaxSize\": \"128m\","
                    + " \"applyThreads\": 2, \"stores\": {\"pg\": {\"jdbc\": {\"url\": \"" + pg.url() + "\", \"username\":"
                    + " \"postgres\", \"table\": \"file_orders\", \"createTable\": true, \"maxBatchSize\": 100}},"
                    + " \"pg2\": {\"jdbc\": {\"url\": \"" + pg.url() + "\", \"username\": \"postgres\","
                    + " \"table\": \"remote_orders\", \"createTable\": true}}},"
                    + " \"caches\": [{\"name\": \"orders\", \"partitions\": 16, \"store\": {\"name\": \"pg\"}}]}");
            NodeEngine node = new NodeEngine(file.nodeConfig());
            try (SluiceServer server = SluiceServer.start(node, ServerConfig.defaults().withPort(0))) {
                for (CacheConfig cache : file.cacheConfigs()) {
                    node.getOrCreateCache(cache);
                }
                try (Sluice client = SluiceClient.connect(ClientConfig.addresses("127.0.0.1:"
                        + server.address().getPort()))) {
                    // The file's cache: streamed by a remote client, written through.
                    try (DataStreamer<Long, String> s = client.dataStreamer("orders")) {
                        for (long k = 0; k < 1_000; k++) {
                            s.addData(k, "order-" + k);
                        }
                    }
                    // A cache the remote client creates in front of a store of the file.
                    Cache<Long, String> remote = client.createCache(CacheConfig.named("remote").withPartitions(8)
                            .withStore(CacheStoreConfig.writeThrough("pg2").withReadThrough(true)));
                    remote.putAll(Map.of(1L, "one", 2L, "two"));
                    remote.put(3L, "three");
                    assertThat(remote.putIfAbsent(3L, "again")).isFalse();
                    assertThat(remote.remove(1L)).isTrue();
                    assertThat(node.nodeCache("remote").storeBridge().config().storeName()).isEqualTo("pg2");
                    assertThat(keys(pg, "remote_orders")).containsExactly(2L, 3L);
                    // Read-through for a remote get and getAll: a cache in front of the same table loads its misses.
                    Cache<Long, String> reader = client.createCache(CacheConfig.named("reader")
                            .withStore(CacheStoreConfig.readThrough("pg2")));
                    assertThat(reader.get(3L)).isEqualTo("three");
                    assertThat(reader.getAll(java.util.Set.of(2L, 3L, 4L))).containsOnly(Map.entry(2L, "two"),
                            Map.entry(3L, "three"));
                    assertThat(node.nodeCache("reader").size()).isEqualTo(2);
                    // A store the node does not have is refused, naming the ones it has.
                    assertThatThrownBy(() -> client.createCache(CacheConfig.named("bad")
                            .withStore(CacheStoreConfig.writeThrough("nope"))))
                            .hasMessageContaining("nope").hasMessageContaining("[pg, pg2]");
                }
                assertThat(count(pg, "file_orders")).isEqualTo(1_000);
                assertThat(count(pg, "remote_orders")).isEqualTo(2);
            } finally {
                node.close();
            }
        }
    }

    private static List<Long> keys(Postgres pg, String table) throws Exception {
        List<Long> keys = new java.util.ArrayList<>();
        try (Connection c = pg.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT k FROM " + table + " ORDER BY k")) {
            while (rs.next()) {
                keys.add(rs.getLong(1));
            }
        }
        return keys;
    }

    private static long count(Postgres pg, String table) throws Exception {
        try (Connection c = pg.connect(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
