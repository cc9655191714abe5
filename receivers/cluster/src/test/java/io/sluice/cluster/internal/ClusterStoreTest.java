package io.sluice.cluster.internal;

import org.apache.curator.test.TestingServer;
import org.apache.helix.zookeeper.api.client.HelixZkClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The catalogue and the owner log as two nodes see them (each its own ZooKeeper client, as members have). */
@Timeout(60)
class ClusterStoreTest {

    private static final String CLUSTER = "store";
    private static TestingServer zk;
    private HelixZkClient a;
    private HelixZkClient b;
    private ZkCatalogue catalogueA;
    private ZkCatalogue catalogueB;

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zk = ZooKeeperForTests.start();
        ClusterSetup.create(zk.getConnectString(), CLUSTER, 16, Duration.ofSeconds(1));
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        zk.close();
    }

    @BeforeEach
    void connect() {
        a = ZkAccess.open(zk.getConnectString(), CLUSTER, Duration.ofSeconds(10));
        b = ZkAccess.open(zk.getConnectString(), CLUSTER, Duration.ofSeconds(10));
        catalogueA = new ZkCatalogue(a, new ClusterPaths(CLUSTER));
        catalogueB = new ZkCatalogue(b, new ClusterPaths(CLUSTER));
    }

    @AfterEach
    void disconnect() {
        catalogueA.close();
        catalogueB.close();
        a.close();
        b.close();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aCacheMadeOnOneNodeIsSeenAndHeardOfOnTheOtherAndTheFirstDescriptionWins() {
        AtomicReference<Map<String, byte[]>> heard = new AtomicReference<>(Map.of());
        catalogueB.onCachesChange(heard::set);

        assertThat(catalogueA.putCacheIfAbsent("orders/EU", bytes("v1"))).isEqualTo(bytes("v1"));
        assertThat(catalogueB.putCacheIfAbsent("orders/EU", bytes("v2"))).isEqualTo(bytes("v1"));
        assertThat(catalogueB.caches()).containsOnlyKeys("orders/EU");
        assertThat(catalogueB.caches().get("orders/EU")).isEqualTo(bytes("v1"));
        await().atMost(Duration.ofSeconds(10)).until(() -> heard.get().containsKey("orders/EU"));

        catalogueA.putCacheIfAbsent("trades", bytes("t"));
        await().atMost(Duration.ofSeconds(10)).until(() -> heard.get().keySet().equals(
                java.util.Set.of("orders/EU", "trades")));

        assertThat(catalogueB.removeCache("orders/EU")).isTrue();
        assertThat(catalogueA.removeCache("orders/EU")).isFalse();
        assertThat(catalogueA.caches()).containsOnlyKeys("trades");
        await().atMost(Duration.ofSeconds(10)).until(() -> heard.get().keySet().equals(java.util.Set.of("trades")));
        catalogueA.removeCache("trades");
    }

    @Test
    void typeUpdatesMergeByCompareAndSetAndEveryNodeHearsOfThem() throws Exception {
        AtomicReference<byte[]> heard = new AtomicReference<>();
        catalogueA.onTypesChange(heard::set);
        int before = catalogueA.types().length;

        // Two nodes append concurrently: compare-and-set retries the loser, so nothing is lost.
        List<Thread> writers = new ArrayList<>();
        for (ZkCatalogue c : List.of(catalogueA, catalogueB)) {
            for (int w = 0; w < 2; w++) {
                writers.add(new Thread(() -> {
                    for (int i = 0; i < 10; i++) {
                        c.updateTypes(stored -> append(stored, (byte) 1));
                    }
                }));
            }
        }
        writers.forEach(Thread::start);
        for (Thread t : writers) {
            t.join();
        }
        assertThat(catalogueB.types()).hasSize(before + 40);
        await().atMost(Duration.ofSeconds(10)).until(() -> heard.get() != null && heard.get().length == before + 40);

        // A merge that changes nothing writes nothing.
        byte[] same = catalogueA.types();
        catalogueA.updateTypes(stored -> stored);
        assertThat(catalogueB.types()).isEqualTo(same);
    }

    private static byte[] append(byte[] stored, byte b) {
        byte[] next = java.util.Arrays.copyOf(stored, stored.length + 1);
        next[stored.length] = b;
        return next;
    }

    @Test
    void theOwnerLogKeepsTheLastOwnerOfEachPartition() {
        ZkOwnerLog logA = new ZkOwnerLog(a, new ClusterPaths(CLUSTER));
        ZkOwnerLog logB = new ZkOwnerLog(b, new ClusterPaths(CLUSTER));
        assertThat(logA.lastOwner(3)).isNull();
        logA.recordOwner(3, "node-a");
        assertThat(logB.lastOwner(3)).isEqualTo("node-a");
        logB.recordOwner(3, "node-b");
        assertThat(logA.lastOwner(3)).isEqualTo("node-b");
        assertThat(logA.lastOwner(4)).isNull();
    }
}
