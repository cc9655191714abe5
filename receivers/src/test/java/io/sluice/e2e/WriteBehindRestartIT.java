package io.sluice.e2e;

import io.sluice.Cache;
import io.sluice.DataStreamer;
import io.sluice.Sluice;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import io.sluice.server.internal.NodeProcess;
import io.sluice.cachestore.jdbc.Postgres;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Write-behind with persistence, on a real PostgreSQL and a real node process killed with SIGKILL: the changes
 * the node acknowledged but had only queued for the database (a flush interval of an hour) are queued again
 * when the node comes back on the same directory, and reach the table, key by key with their last value;
 * removals too. The first restart's file declares no cache: the recovered cache goes back in front of its store
 * with the settings it had (the log keeps the attachment), queues its recovered changes again, and its clean stop
 * drains them. The second restart's file declares the cache with a short flush interval, which wins over the hour
 * it had: a write after that restart reaches the table within seconds.
 */
@Timeout(180)
class WriteBehindRestartIT {

    private static final int KEYS = 2_000;

    @Test
    void queuedChangesAcknowledgedBeforeAKillReachTheDatabaseAfterTheRestart() throws Exception {
        Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "write-behind-restart-");
        try (Postgres pg = Postgres.start()) {
            Map<Long, String> expected = acknowledgedThenKilled(dir, pg);

            NodeProcess undeclared = NodeProcesses.start(config(dir, pg, -1), List.of());
            try {
                assertThat(undeclared.log()).contains("cache 'orders' (recovered) is in front of store 'pg' (WRITE_BEHIND)")
                        .contains("queued again for write-behind");
            } catch (AssertionError | RuntimeException e) {
                System.err.println("restarted node log:\n" + undeclared.log());
                throw e;
            } finally {
                assertThat(undeclared.stop()).as("exit code of the restarted node on SIGTERM").isZero(); // drains
            }
            Map<Long, ByteBuffer> table = rows(pg);
            assertThat(table).hasSize(expected.size());
            for (Map.Entry<Long, String> e : expected.entrySet()) {
                assertThat(table.get(e.getKey())).as("key %d", e.getKey()).isEqualTo(encoded(e.getValue()));
            }

            NodeProcess restarted = NodeProcesses.start(config(dir, pg, 200), List.of());
            try (Sluice client = connect(restarted)) {
                // Declared with a 200 ms flush interval, not the hour it had: a write reaches the table in seconds.
                client.cache("orders").put(KEYS + 7L, "after");
                await().atMost(Duration.ofSeconds(30)).until(() -> rows(pg).containsKey(KEYS + 7L));
            } catch (AssertionError | RuntimeException e) {
                System.err.println("restarted node log:\n" + restarted.log());
                throw e;
            } finally {
                assertThat(restarted.stop()).as("exit code of the restarted node on SIGTERM").isZero();
            }
        }
    }

    /**
     * The database is down when the node comes back: the recovered cache awaits its store, refuses writes over the
     * network, takes no checkpoint (it would move recovery past the changes the database has not seen), and a
     * second SIGKILL then loses nothing; once the database is back the node puts the cache in front of it by
     * itself and every acknowledged change reaches the table.
     */
    @Test
    void withTheDatabaseDownAtTheRestartNothingAcknowledgedIsLostAndTheNodeGoesBackToItByItself() throws Exception {
        Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "write-behind-db-down-");
        try (Postgres pg = Postgres.start()) {
            Map<Long, String> expected = acknowledgedThenKilled(dir, pg);
            pg.stop();

            NodeProcess down = NodeProcesses.start(config(dir, pg, -1, 200), List.of());
            try (Sluice client = connect(down)) {
                assertThatThrownBy(() -> client.cache("orders").put(1L, "refused"))
                        .hasMessageContaining("cache 'orders' is not in front of its store 'pg'")
                        .hasMessageContaining("writes are refused");
                assertThat(client.<Long, String>cache("orders").get(2L)).isEqualTo("v2");
                await().atMost(Duration.ofSeconds(30)).until(() -> down.log().contains("checkpoint in ")
                        && down.log().contains(" deferred: cache 'orders' awaits its write-behind store 'pg'"));
            } catch (AssertionError | RuntimeException e) {
                System.err.println("node log (database down):\n" + down.log());
                throw e;
            } finally {
                down.kill(); // a second crash while the database is down
            }

            NodeProcess back = NodeProcesses.start(config(dir, pg, -1, 200), List.of());
            try (Sluice client = connect(back)) {
                pg.restart();
                await().atMost(Duration.ofSeconds(60)).until(() -> back.log()
                        .contains("cache 'orders' (recovered) is in front of store 'pg' (WRITE_BEHIND) again"));
                client.cache("orders").put(KEYS + 1L, "after");
                expected.put(KEYS + 1L, "after");
            } catch (AssertionError | RuntimeException e) {
                System.err.println("node log (database back):\n" + back.log());
                throw e;
            } finally {
                assertThat(back.stop()).as("exit code of the node on SIGTERM").isZero(); // drains the queue
            }
            Map<Long, ByteBuffer> table = rows(pg);
            assertThat(table).hasSize(expected.size());
            for (Map.Entry<Long, String> e : expected.entrySet()) {
                assertThat(table.get(e.getKey())).as("key %d", e.getKey()).isEqualTo(encoded(e.getValue()));
            }
        }
    }

    /**
     * A node on the directory with an hour's flush interval: KEYS streamed keys, every 100th put again and the
     * next one removed, all acknowledged and none in the table yet; then SIGKILL (the queue is lost with the
     * process). @return key → the last value acknowledged
     */
    private static Map<Long, String> acknowledgedThenKilled(Path dir, Postgres pg) throws Exception {
        Map<Long, String> expected = new HashMap<>();
        NodeProcess node = NodeProcesses.start(config(dir, pg, 3_600_000), List.of());
        try (Sluice client = connect(node)) {
            try (DataStreamer<Long, String> s = client.dataStreamer("orders")) {
                for (long k = 0; k < KEYS; k++) {
                    s.addData(k, "v" + k);
                    expected.put(k, "v" + k);
                }
            } // closed: every entry acknowledged
            Cache<Long, String> cache = client.cache("orders");
            for (long k = 0; k < KEYS; k += 100) {
                cache.put(k, "w" + k);
                expected.put(k, "w" + k);
                cache.remove(k + 1);
                expected.remove(k + 1);
            }
            assertThat(rows(pg)).as("nothing flushed yet: an hour's flush interval").isEmpty();
        } catch (AssertionError | RuntimeException e) {
            System.err.println("node log:\n" + node.log());
            throw e;
        } finally {
            node.kill();
        }
        assertThat(rows(pg)).isEmpty();
        return expected;
    }

    private static String config(Path dir, Postgres pg, long flushIntervalMillis) {
        return config(dir, pg, flushIntervalMillis, 60_000);
    }

    /** The node's file; a negative flush interval declares no cache. */
    private static String config(Path dir, Postgres pg, long flushIntervalMillis, long checkpointIntervalMillis) {
        String caches = flushIntervalMillis < 0 ? "" : """
                 "caches": [{"name": "orders", "partitions": 16,
                             "store": {"name": "pg", "mode": "WRITE_BEHIND", "flushIntervalMillis": %d,
                                       "flushSize": 1000000, "queueBound": 1000000}}],
                """.formatted(flushIntervalMillis);
        return """
                {"dataRegionInitialSize": "16m", "dataRegionMaxSize": "256m", "applyThreads": 2,
                 "stores": {"pg": {"jdbc": {"url": "%s", "username": "postgres", "table": "orders",
                                            "createTable": true, "poolSize": 2}}},
                %s "persistence": {"directory": "%s", "walMode": "FSYNC", "checkOnRecovery": true,
                                   "checkpointIntervalMillis": %d}}
                """.formatted(pg.url(), caches, dir.toString().replace("\\", "\\\\"), checkpointIntervalMillis);
    }

    /** key → the value bytes in the table. */
    private static Map<Long, ByteBuffer> rows(Postgres pg) throws Exception {
        Map<Long, ByteBuffer> rows = new HashMap<>();
        try (Connection c = pg.connect(); Statement s = c.createStatement()) {
            try (ResultSet exists = s.executeQuery("SELECT to_regclass('orders') IS NOT NULL")) {
                exists.next();
                if (!exists.getBoolean(1)) {
                    return rows;
                }
            }
            try (ResultSet rs = s.executeQuery("SELECT k, v FROM orders")) {
                while (rs.next()) {
                    rows.put(rs.getLong(1), ByteBuffer.wrap(rs.getBytes(2)));
                }
            }
        }
        return rows;
    }

    private static ByteBuffer encoded(String value) {
        GrowableBuffer buf = new GrowableBuffer(32);
        new BinaryContext().encode(value, buf);
        return ByteBuffer.wrap(buf.toByteArray());
    }

    private static Sluice connect(NodeProcess node) {
        return SluiceClient.connect(ClientConfig.builder().addresses(node.address())
                .requestTimeout(Duration.ofSeconds(10)).retryAttempts(1).build());
    }
}
