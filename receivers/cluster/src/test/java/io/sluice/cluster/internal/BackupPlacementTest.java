package io.sluice.cluster.internal;

import io.sluice.affinity.internal.RendezvousAffinity;
import io.sluice.protocol.internal.ClusterMap;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Backups on Helix, three nodes in one JVM: each partition's MASTER and SLAVE are its first two nodes in rendezvous
 * order, a node that leaves has its partitions' SLAVEs promoted at once (never a third node made master), its lost
 * replicas are re-created only after the rebalance delay, and the replica count is raised, never lowered.
 */
@Timeout(240)
class BackupPlacementTest {

    private static final int PARTITIONS = 64;
    private static final Duration SESSION = Duration.ofSeconds(4);
    private static final List<String> THREE = List.of("node-1", "node-2", "node-3");

    private static TestingServer zk;
    private final Map<String, HelixMembership> members = new LinkedHashMap<>();

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zk = ZooKeeperForTests.start();
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        zk.close();
    }

    @AfterEach
    void leave() {
        members.values().forEach(HelixMembership::close);
        members.clear();
    }

    private HelixMembership join(String cluster, String id) {
        HelixMembership m = HelixMembership.join(new ClusterSettings(zk.getConnectString(), cluster, id, "127.0.0.1",
                7000 + Integer.parseInt(id.substring(id.indexOf('-') + 1)), SESSION), new RecordingRoles());
        members.put(id, m);
        return m;
    }

    /** Per partition, owner first then backups, by rendezvous hashing over these nodes, cut to the replicas. */
    private static List<List<String>> expected(List<String> nodes, int replicas) {
        List<List<String>> placed = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            List<String> ranked = RendezvousAffinity.ranked(p, nodes);
            placed.add(ranked.subList(0, Math.min(replicas, ranked.size())));
        }
        return placed;
    }

    /** Per partition the map's owner (null: none) then its backups. */
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

    private static void awaitReplicas(HelixMembership viewer, List<List<String>> expected) {
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(50))
                .untilAsserted(() -> assertThat(replicas(viewer.map())).containsExactlyElementsOf(expected));
    }

    @Test
    void aLeavingNodesSlavesArePromotedAtOnceAndItGetsItsReplicasBackWithinTheDelay() {
        String cluster = "backups";
        ClusterSetup.create(zk.getConnectString(), cluster, PARTITIONS, Duration.ofSeconds(60), 1);
        THREE.forEach(id -> join(cluster, id));
        HelixMembership viewer = members.get("node-1");
        List<List<String>> full = expected(THREE, 2);
        awaitReplicas(viewer, full);
        List<ClusterMap> maps = new CopyOnWriteArrayList<>();
        viewer.onMapChange(maps::add);

        // node-3 leaves: the partitions it led are led by their backup, those it backed keep their owner; none has
        // a backup until the delay (60 s) has passed.
        long left = System.nanoTime();
        members.remove("node-3").close();
        List<List<String>> promoted = new ArrayList<>();
        for (List<String> replicas : full) {
            List<String> kept = new ArrayList<>(replicas);
            kept.remove("node-3");
            promoted.add(kept);
        }
        awaitReplicas(viewer, promoted);
        Duration failover = Duration.ofNanos(System.nanoTime() - left);
        assertThat(failover).isLessThan(SESSION);

        // back within the delay: the same replicas as before, and each partition's master was one of its two
        // replicas (or none, while it moved back) in every map meanwhile
        join(cluster, "node-3");
        awaitReplicas(viewer, full);
        assertThat(maps).isNotEmpty();
        for (ClusterMap map : maps) {
            for (int p = 0; p < PARTITIONS; p++) {
                String owner = map.owner(p);
                if (owner != null) {
                    assertThat(full.get(p)).as("map %d partition %d", map.version(), p).contains(owner);
                }
            }
        }
        System.out.printf("promotion after a clean leave: %d ms%n", failover.toMillis());
    }

    @Test
    void afterTheDelayALostReplicaIsRecreatedAndMastersStayWhereTheyWere() {
        String cluster = "recreate";
        Duration delay = Duration.ofSeconds(3);
        ClusterSetup.create(zk.getConnectString(), cluster, PARTITIONS, delay, 1);
        THREE.forEach(id -> join(cluster, id));
        HelixMembership viewer = members.get("node-1");
        List<List<String>> full = expected(THREE, 2);
        awaitReplicas(viewer, full);
        List<ClusterMap> maps = new CopyOnWriteArrayList<>();
        viewer.onMapChange(maps::add);

        long left = System.nanoTime();
        members.remove("node-3").close();
        List<String> two = List.of("node-1", "node-2");
        awaitReplicas(viewer, expected(two, 2));
        assertThat(Duration.ofNanos(System.nanoTime() - left)).isGreaterThanOrEqualTo(delay.minusMillis(500));
        for (ClusterMap map : maps) {
            for (int p = 0; p < PARTITIONS; p++) {
                String owner = map.owner(p);
                if (owner != null) {
                    assertThat(full.get(p)).as("map %d partition %d", map.version(), p).contains(owner);
                }
            }
        }
    }

    @Test
    void theReplicaCountIsRaisedNeverLowered() {
        String cluster = "raise";
        ClusterSetup.create(zk.getConnectString(), cluster, PARTITIONS, Duration.ofSeconds(60));
        List<String> two = List.of("node-1", "node-2");
        two.forEach(id -> join(cluster, id));
        HelixMembership viewer = members.get("node-1");
        awaitReplicas(viewer, expected(two, 1));

        members.get("node-2").ensureReplicas(2);
        awaitReplicas(viewer, expected(two, 2));
        viewer.ensureReplicas(1);
        assertThat(ClusterSetup.replicas(zk.getConnectString(), cluster)).isEqualTo(2);
        // create-cluster on the existing cluster raises too, and never lowers
        assertThat(ClusterSetup.create(zk.getConnectString(), cluster, PARTITIONS, Duration.ofSeconds(60), 2))
                .isFalse();
        assertThat(ClusterSetup.replicas(zk.getConnectString(), cluster)).isEqualTo(3);
        assertThat(ClusterSetup.create(zk.getConnectString(), cluster, PARTITIONS, Duration.ofSeconds(60), 0))
                .isFalse();
        assertThat(ClusterSetup.replicas(zk.getConnectString(), cluster)).isEqualTo(3);
        // two nodes hold at most two replicas each partition
        awaitReplicas(viewer, expected(two, 2));
    }
}
