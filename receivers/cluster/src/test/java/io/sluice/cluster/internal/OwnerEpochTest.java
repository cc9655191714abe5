package io.sluice.cluster.internal;

import org.apache.curator.test.TestingServer;
import org.apache.helix.zookeeper.api.client.HelixZkClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;

/** The partitions' epochs in ZooKeeper: bumped by compare-and-set, strictly increasing whoever claims. */
@Timeout(90)
class OwnerEpochTest {

    private static final String CLUSTER = "epochs";
    private TestingServer zk;
    private final List<HelixZkClient> clients = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        zk = ZooKeeperForTests.start();
        ClusterSetup.create(zk.getConnectString(), CLUSTER, 16, Duration.ofSeconds(1));
    }

    @AfterEach
    void stop() throws Exception {
        clients.forEach(HelixZkClient::close);
        zk.close();
    }

    /** An owner log on a ZooKeeper client of its own, as each node has. */
    private ZkOwnerLog log() {
        HelixZkClient client = ZkAccess.open(zk.getConnectString(), CLUSTER, Duration.ofSeconds(10));
        clients.add(client);
        return new ZkOwnerLog(client, new ClusterPaths(CLUSTER));
    }

    @Test
    void eachRecordBumpsTheEpochAndTheOwnerIsTheLastRecorded() {
        ZkOwnerLog a = log();
        ZkOwnerLog b = log();
        assertThat(a.epoch(3)).isZero();
        assertThat(a.lastOwner(3)).isNull();
        assertThat(a.recordOwner(3, "node-a")).isEqualTo(1);
        assertThat(b.epoch(3)).isEqualTo(1);
        assertThat(b.recordOwner(3, "node-b")).isEqualTo(2);
        // the same node again (a primary promoted anew) bumps too
        assertThat(b.recordOwner(3, "node-b")).isEqualTo(3);
        assertThat(a.lastOwner(3)).isEqualTo("node-b");
        assertThat(a.epoch(3)).isEqualTo(3);
        assertThat(a.epoch(4)).isZero();
    }

    @Test
    void concurrentClaimersGetDistinctIncreasingEpochsAndNoneIsLost() throws Exception {
        List<ZkOwnerLog> nodes = List.of(log(), log(), log());
        int threadsPerNode = 3;
        int claimsPerThread = 20;
        Map<Long, String> claimed = new ConcurrentHashMap<>();
        List<Long> duplicates = new java.util.concurrent.CopyOnWriteArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int n = 0; n < nodes.size(); n++) {
            ZkOwnerLog log = nodes.get(n);
            String id = "node-" + n;
            for (int t = 0; t < threadsPerNode; t++) {
                threads.add(new Thread(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    long last = 0;
                    for (int i = 0; i < claimsPerThread; i++) {
                        long epoch = log.recordOwner(5, id);
                        if (epoch <= last || claimed.putIfAbsent(epoch, id) != null) {
                            duplicates.add(epoch);
                        }
                        last = epoch;
                    }
                }));
            }
        }
        threads.forEach(Thread::start);
        go.countDown();
        for (Thread t : threads) {
            t.join();
        }
        int total = nodes.size() * threadsPerNode * claimsPerThread;
        assertThat(duplicates).as("epochs returned twice or not increasing within a thread").isEmpty();
        assertThat(claimed).hasSize(total);
        // a compare-and-set never skips: the epochs are exactly 1..total, and the last one names the owner
        Set<Long> expected = new HashSet<>();
        for (long e = 1; e <= total; e++) {
            expected.add(e);
        }
        assertThat(claimed.keySet()).isEqualTo(expected);
        assertThat(nodes.get(0).epoch(5)).isEqualTo(total);
        assertThat(nodes.get(1).lastOwner(5)).isEqualTo(claimed.get((long) total));
    }

    @Test
    void epochsSurviveAZooKeeperRestartAndNewClients() throws Exception {
        ZkOwnerLog a = log();
        a.recordOwner(7, "node-a");
        a.recordOwner(7, "node-b");
        zk.restart();
        ZkOwnerLog fresh = log();
        assertThat(fresh.epoch(7)).isEqualTo(2);
        assertThat(fresh.lastOwner(7)).isEqualTo("node-b");
        assertThat(a.recordOwner(7, "node-a")).isEqualTo(3);
    }

    @Test
    void aRecordFromBeforeEpochsReadsAsEpochZeroAndTheNextClaimIsOne() {
        ZkOwnerLog a = log();
        HelixZkClient raw = clients.get(0);
        raw.createPersistent(new ClusterPaths(CLUSTER).owner(9), "node-old".getBytes(StandardCharsets.UTF_8));
        assertThat(a.lastOwner(9)).isEqualTo("node-old");
        assertThat(a.epoch(9)).isZero();
        assertThat(a.recordOwner(9, "node-new")).isEqualTo(1);
        assertThat(a.lastOwner(9)).isEqualTo("node-new");
    }
}
