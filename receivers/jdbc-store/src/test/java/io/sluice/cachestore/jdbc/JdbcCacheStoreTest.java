package io.sluice.cachestore.jdbc;

import io.sluice.CacheStoreContext;
import io.sluice.CacheStoreException;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.binary.internal.GrowableBuffer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The JDBC store called directly on a real PostgreSQL, without a node: duplicate keys, grouped and large
 * batches, insert-first. What a node streams into it is {@code JdbcCacheStoreNodeTest} (receivers).
 */
@Timeout(120)
class JdbcCacheStoreTest {

    private static Postgres pg;

    @BeforeAll
    static void startPostgres() {
        pg = Postgres.start();
    }

    @AfterAll
    static void stopPostgres() throws Exception {
        pg.close();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"unnest", "rewritten", "copy"})
    void writeBatchKeepsTheLastValueOfAKeyGivenTwice(String statement) throws Exception {
        BinaryContext binary = new BinaryContext();
        JdbcCacheStore store = new JdbcCacheStore(pg.config("dups_" + statement).keyType(JdbcStoreConfig.KeyType.TEXT)
                .copyThreshold(statement.equals("copy") ? 2 : 0)
                .batchStatement(statement.equals("rewritten") ? JdbcStoreConfig.BatchStatement.REWRITTEN_BATCH
                        : JdbcStoreConfig.BatchStatement.UNNEST_ARRAYS).build());
        store.open(context(binary));
        try {
            store.writeBatch(List.of(Map.entry("a", "1"), Map.entry("b", "2"), Map.entry("a", "3")));
            store.writeBatch(List.of(Map.entry("b", "4"), Map.entry("c", "5")));
            assertThat(store.loadAll(List.of("a", "b", "c", "d"))).containsOnly(Map.entry("a", "3"), Map.entry("b", "4"),
                    Map.entry("c", "5"));
            store.deleteBatch(List.of("a", "d"));
            assertThat(store.load("a")).isNull();
            assertThat(store.load("b")).isEqualTo("4");
            assertThatThrownBy(() -> store.write(42L, "x")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("does not fit a text key column");
        } finally {
            store.close();
        }
    }

    @Test
    void writeBatchesWaitingForTheDatabaseGoTogetherAndABadCallFailsAlone() throws Exception {
        BinaryContext binary = new BinaryContext();
        JdbcCacheStore store = new JdbcCacheStore(pg.config("grouped").keyType(JdbcStoreConfig.KeyType.TEXT)
                .concurrentBatches(1).poolSize(2).retryAttempts(1).build());
        store.open(context(binary));
        ExecutorService threads = Executors.newFixedThreadPool(6);
        try (Connection locker = pg.connect()) {
            // Hold the table: the first call waits in the database while the next ones queue behind it.
            holdTable(locker, "grouped");
            Future<?> first = write(threads, store, List.of(Map.entry("first", "0")));
            await().atMost(Duration.ofSeconds(20)).until(() -> waitingForLock(locker, "grouped") == 1);
            List<Future<?>> good = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                String prefix = "t" + t + "-";
                good.add(write(threads, store, List.of(Map.entry(prefix + 1, prefix + "a"),
                        Map.entry(prefix + 2, prefix + "b"))));
            }
            Future<?> bad = write(threads, store, List.of(Map.entry("nul\u0000key", "x"),
                    Map.entry("bad-but-fine", "y")));
            await().atMost(Duration.ofSeconds(20)).until(() -> store.callsWaiting() == 5);
            locker.commit();
            first.get(20, TimeUnit.SECONDS);
            for (Future<?> f : good) {
                f.get(20, TimeUnit.SECONDS);
            }
            assertThatThrownBy(() -> bad.get(20, TimeUnit.SECONDS)).hasCauseInstanceOf(CacheStoreException.class)
                    .hasMessageContaining("bad-but-fine").hasMessageContaining("2 key(s)");
            Map<Object, Object> rows = store.loadAll(List.of("first", "t0-1", "t0-2", "t1-1", "t1-2", "t2-1", "t2-2",
                    "t3-1", "t3-2", "bad-but-fine"));
            assertThat(rows).hasSize(9).containsEntry("first", "0").containsEntry("t2-2", "t2-b")
                    .doesNotContainKey("bad-but-fine");
        } finally {
            threads.shutdownNow();
            store.close();
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"unnest", "copy"})
    void aBatchMeetingAPresentKeyIsUpsertedWholeAndTheNextCallsUpsertAtOnce(String statement) throws Exception {
        BinaryContext binary = new BinaryContext();
        String table = "insert_first_" + statement;
        int copyThreshold = statement.equals("copy") ? 1 : 0;
        JdbcCacheStore store = new JdbcCacheStore(pg.config(table).keyType(JdbcStoreConfig.KeyType.TEXT)
                .copyThreshold(copyThreshold).build());
        JdbcCacheStore upsertsOnly = new JdbcCacheStore(pg.config(table).keyType(JdbcStoreConfig.KeyType.TEXT)
                .copyThreshold(copyThreshold).insertFirst(false).build());
        store.open(context(binary));
        upsertsOnly.open(context(binary));
        try {
            store.writeBatch(List.of(Map.entry("a", "1"), Map.entry("b", "2")));
            assertThat(store.insertConflicts()).isZero(); // new keys: the plain insert went through
            // "b" is present: the insert fails whole and the call is upserted, new key and present key alike.
            store.writeBatch(List.of(Map.entry("c", "3"), Map.entry("b", "4")));
            assertThat(store.insertConflicts()).isEqualTo(1);
            // For the next calls the store upserts at once: no second conflict for another present key.
            store.writeBatch(List.of(Map.entry("a", "5"), Map.entry("d", "6")));
            assertThat(store.insertConflicts()).isEqualTo(1);
            assertThat(store.loadAll(List.of("a", "b", "c", "d"))).containsOnly(Map.entry("a", "5"),
                    Map.entry("b", "4"), Map.entry("c", "3"), Map.entry("d", "6"));
            // Switched off, every call upserts: present keys never fail an insert.
            upsertsOnly.writeBatch(List.of(Map.entry("a", "7"), Map.entry("e", "8")));
            assertThat(upsertsOnly.insertConflicts()).isZero();
            assertThat(store.loadAll(List.of("a", "e"))).containsOnly(Map.entry("a", "7"), Map.entry("e", "8"));
        } finally {
            store.close();
            upsertsOnly.close();
        }
    }

    @Test
    void aGroupMeetingAPresentKeyIsRolledBackAndUpsertedInOneTransaction() throws Exception {
        BinaryContext binary = new BinaryContext();
        JdbcCacheStore store = new JdbcCacheStore(pg.config("group_conflict").keyType(JdbcStoreConfig.KeyType.TEXT)
                .concurrentBatches(1).poolSize(2).retryAttempts(1).build());
        store.open(context(binary));
        ExecutorService threads = Executors.newFixedThreadPool(3);
        try (Connection locker = pg.connect()) {
            store.writeBatch(List.of(Map.entry("present", "old")));
            holdTable(locker, "group_conflict");
            Future<?> first = write(threads, store, List.of(Map.entry("first", "0")));
            await().atMost(Duration.ofSeconds(20)).until(() -> waitingForLock(locker, "group_conflict") == 1);
            // Two calls queue behind the busy leader and go as one group: the new key's call before the present one's.
            Future<?> fresh = write(threads, store, List.of(Map.entry("new", "n")));
            await().atMost(Duration.ofSeconds(20)).until(() -> store.callsWaiting() == 1);
            Future<?> present = write(threads, store, List.of(Map.entry("present", "updated")));
            await().atMost(Duration.ofSeconds(20)).until(() -> store.callsWaiting() == 2);
            locker.commit();
            first.get(20, TimeUnit.SECONDS);
            fresh.get(20, TimeUnit.SECONDS);
            present.get(20, TimeUnit.SECONDS);
            // The group's inserts were undone (the new key's row too) and both calls upserted in one new transaction.
            assertThat(store.insertConflicts()).isEqualTo(1);
            assertThat(store.loadAll(List.of("first", "new", "present"))).containsOnly(Map.entry("first", "0"),
                    Map.entry("new", "n"), Map.entry("present", "updated"));
        } finally {
            threads.shutdownNow();
            store.close();
        }
    }

    @Test
    void aLargeWriteBatchNeverWaitsForAGroup() throws Exception {
        BinaryContext binary = new BinaryContext();
        JdbcCacheStore store = new JdbcCacheStore(pg.config("large").keyType(JdbcStoreConfig.KeyType.TEXT)
                .concurrentBatches(1).poolSize(3).retryAttempts(1).build());
        store.open(context(binary));
        ExecutorService threads = Executors.newFixedThreadPool(3);
        try (Connection locker = pg.connect()) {
            holdTable(locker, "large");
            Future<?> small = write(threads, store, List.of(Map.entry("small", "s")));
            await().atMost(Duration.ofSeconds(20)).until(() -> waitingForLock(locker, "large") == 1);
            List<Map.Entry<Object, Object>> rows = new ArrayList<>();
            for (int i = 0; i < JdbcCacheStore.GROUP_BELOW_ROWS; i++) {
                rows.add(Map.entry("big-" + i, "b" + i));
            }
            Future<?> large = write(threads, store, rows);
            // The large call went to the database beside the busy leader instead of queueing behind it.
            await().atMost(Duration.ofSeconds(20)).until(() -> waitingForLock(locker, "large") == 2);
            assertThat(store.callsWaiting()).isZero();
            locker.commit();
            small.get(20, TimeUnit.SECONDS);
            large.get(20, TimeUnit.SECONDS);
            assertThat(store.loadAll(List.of("small", "big-0", "big-255"))).hasSize(3);
        } finally {
            threads.shutdownNow();
            store.close();
        }
    }

    /** Holds the table locked in the connection's open transaction: writes to it wait until the commit. */
    private static void holdTable(Connection locker, String table) throws Exception {
        locker.setAutoCommit(false);
        try (Statement s = locker.createStatement()) {
            s.execute("LOCK TABLE " + table + " IN EXCLUSIVE MODE");
        }
    }

    /** One writeBatch call on a thread of the pool. */
    private static Future<?> write(ExecutorService threads, JdbcCacheStore store, List<Map.Entry<Object, Object>> rows) {
        return threads.submit(() -> {
            store.writeBatch(rows);
            return null;
        });
    }

    private static int waitingForLock(Connection c, String table) throws Exception {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_locks l JOIN"
                + " pg_class r ON r.oid = l.relation WHERE r.relname = '" + table + "' AND NOT l.granted")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    private static CacheStoreContext context(BinaryContext binary) {
        return new CacheStoreContext() {
            @Override
            public String cacheName() {
                return "direct";
            }

            @Override
            public byte[] toBytes(Object value) {
                GrowableBuffer buf = new GrowableBuffer(64);
                binary.encode(value, buf);
                return buf.toByteArray();
            }

            @Override
            public Object fromBytes(byte[] bytes) {
                return binary.decode(bytes, 0, bytes.length, true);
            }

            @Override
            public io.sluice.binary.Binary binary() {
                return binary;
            }
        };
    }
}
