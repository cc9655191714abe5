package io.sluice.cluster.internal;

import io.sluice.affinity.internal.RendezvousAffinity;
import io.sluice.protocol.internal.ClusterMap;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * ZooKeeper itself restarted while three nodes (backups 1) work and one of them keeps writing to ZooKeeper (epoch
 * bumps, as promotions do): the nodes reconnect, the same sessions if ZooKeeper is back in time (the server renews
 * the sessions it had when it starts again), every node leads its partitions again with its lease held, the map is
 * the one of before, and the writes resume with epochs still increasing.
 */
@Timeout(240)
class ZooKeeperRestartTest {

    private static final int PARTITIONS = 32;
    private static final Duration SESSION = Duration.ofSeconds(4);
    private static final List<String> THREE = List.of("node-1", "node-2", "node-3");

    private TestingServer zk;
    private final Map<String, HelixMembership> members = new LinkedHashMap<>();
    private final Map<String, RecordingRoles> roles = new LinkedHashMap<>();
    private final AtomicBoolean writing = new AtomicBoolean(true);
    private Thread writer;

    @BeforeEach
    void start() throws Exception {
        zk = ZooKeeperForTests.start();
        ClusterSetup.create(zk.getConnectString(), "restart", PARTITIONS, Duration.ofSeconds(60), 1);
        for (String id : THREE) {
            RecordingRoles r = new RecordingRoles();
            roles.put(id, r);
            members.put(id, HelixMembership.join(new ClusterSettings(zk.getConnectString(), "restart", id,
                    "127.0.0.1", 7000 + members.size(), SESSION), r));
        }
    }

    @AfterEach
    void stop() throws Exception {
        writing.set(false);
        if (writer != null) {
            writer.join(30_000);
        }
        members.values().forEach(HelixMembership::close);
        zk.close();
    }

    private static List<List<String>> replicas(ClusterMap map) {
        List<List<String>> placed = new ArrayList<>();
        for (int p = 0; p < map.partitions(); p++) {
            List<String> ids = new ArrayList<>();
            ids.add(map.owner(p));
            for (int b : map.backupIndexes(p)) {
                ids.add(map.nodes().get(b).id());
            }
            placed.add(ids);
        }
        return placed;
    }

    private static List<List<String>> full() {
        List<List<String>> placed = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            placed.add(RendezvousAffinity.ranked(p, THREE).subList(0, 2));
        }
        return placed;
    }

    private static Set<Integer> ledBy(String id) {
        Set<Integer> ps = new HashSet<>();
        for (int p = 0; p < PARTITIONS; p++) {
            if (RendezvousAffinity.ranked(p, THREE).get(0).equals(id)) {
                ps.add(p);
            }
        }
        return ps;
    }

    /** Every node leads its partitions with its lease held, and every node's map is the settled one. */
    private void awaitServing() {
        for (String id : THREE) {
            HelixMembership m = members.get(id);
            await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(50))
                    .until(() -> replicas(m.map()).equals(full()));
            await().atMost(Duration.ofSeconds(60)).until(() -> roles.get(id).leading().equals(ledBy(id)));
            await().atMost(Duration.ofSeconds(30)).until(m::leaseValid);
        }
    }

    /** Bumps partition 0's epoch every 20 ms through node-1's owner log, as promotions do; records what it saw. */
    private void startWriting(List<Long> epochs, AtomicInteger failures) {
        PartitionOwnerLog log = members.get("node-1").owners();
        writer = new Thread(() -> {
            while (writing.get()) {
                try {
                    epochs.add(log.recordOwner(0, "node-1"));
                } catch (RuntimeException e) {
                    failures.incrementAndGet();
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "epoch-writer");
        writer.start();
    }

    private Map<String, Long> sessions() {
        Map<String, Long> ids = new LinkedHashMap<>();
        members.forEach((id, m) -> ids.put(id, m.zooKeeper().getSessionId()));
        return ids;
    }

    @Test
    void aQuickRestartKeepsTheSessionsAndNothingMoves() throws Exception {
        awaitServing();
        List<Long> epochs = new CopyOnWriteArrayList<>();
        AtomicInteger failures = new AtomicInteger();
        startWriting(epochs, failures);
        await().atMost(Duration.ofSeconds(10)).until(() -> epochs.size() >= 5);
        Map<String, Long> before = sessions();
        roles.values().forEach(RecordingRoles::forget);

        zk.restart();
        int written = epochs.size();
        awaitServing();
        await().atMost(Duration.ofSeconds(30)).until(() -> epochs.size() >= written + 5);
        assertThat(sessions()).isEqualTo(before);
        // the same sessions: Helix sent no transition, nothing moved
        for (String id : THREE) {
            assertThat(roles.get(id).calls()).extracting(RecordingRoles.Call::what).doesNotContain("stopLeading",
                    "release", "drop");
        }
        assertThat(failures.get()).as("writes retried across the restart").isZero();
        assertThat(epochs).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void aLongOutageStopsEveryNodeAndTheyServeAgainWhenZooKeeperIsBack() throws Exception {
        awaitServing();
        List<Long> epochs = new CopyOnWriteArrayList<>();
        AtomicInteger failures = new AtomicInteger();
        startWriting(epochs, failures);
        await().atMost(Duration.ofSeconds(10)).until(() -> epochs.size() >= 5);
        Map<String, Long> before = sessions();

        zk.stop();
        for (String id : THREE) {
            await().atMost(Duration.ofSeconds(2)).until(() -> !members.get(id).leaseValid());
            // a third of the session timeout after the disconnect, a node serves nothing
            await().atMost(SESSION.plusSeconds(5)).until(() -> roles.get(id).leading().isEmpty());
        }
        // longer than a session timeout away
        await().pollDelay(SESSION.plusSeconds(1)).atMost(SESSION.plusSeconds(2)).until(() -> true);
        long stopped = epochs.size();
        zk.restart();
        awaitServing();
        await().atMost(Duration.ofSeconds(30)).until(() -> epochs.size() >= stopped + 5);
        assertThat(epochs).isSorted().doesNotHaveDuplicates();
        System.out.printf("after %d s without ZooKeeper: sessions %s (before %s), %d writes failed meanwhile%n",
                SESSION.plusSeconds(1).toSeconds(), sessions(), before, failures.get());
    }
}
