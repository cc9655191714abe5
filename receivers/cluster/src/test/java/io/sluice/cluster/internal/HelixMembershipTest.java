package io.sluice.cluster.internal;

import io.sluice.affinity.internal.RendezvousAffinity;
import io.sluice.protocol.internal.ClusterMap;
import org.apache.curator.test.TestingServer;
import org.apache.helix.manager.zk.ZKHelixAdmin;
import org.apache.helix.model.ExternalView;
import org.apache.helix.zookeeper.api.client.HelixZkClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Three, then four nodes in one JVM on an in-process ZooKeeper: placement, the map, joins, leaves, the delay. */
@Timeout(180)
class HelixMembershipTest {

    /**
     * 256, not the default 1024: three nodes joining one after the other in one JVM settled 1024 partitions in
     * ~35 s on a quiet 2-core machine and not within 90 s at load 20 (each transition is several ZooKeeper writes).
     */
    private static final int PARTITIONS = 256;
    private static final Duration DELAY = Duration.ofSeconds(6);
    private static final Duration SESSION = Duration.ofSeconds(4);

    private static TestingServer zk;
    private final Map<String, HelixMembership> members = new LinkedHashMap<>();
    private final Map<String, RecordingRoles> roles = new LinkedHashMap<>();

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
    }

    private HelixMembership join(String cluster, String id) {
        RecordingRoles r = new RecordingRoles();
        roles.put(id, r);
        HelixMembership m = HelixMembership.join(
                new ClusterSettings(zk.getConnectString(), cluster, id, "127.0.0.1", 7000 + members.size(), SESSION),
                r);
        members.put(id, m);
        return m;
    }

    private void leave(String id) {
        members.remove(id).close();
    }

    /** The owners rendezvous hashing gives over these nodes. */
    private static String[] expectedOwners(List<String> nodes) {
        String[] owners = new String[PARTITIONS];
        for (int p = 0; p < PARTITIONS; p++) {
            owners[p] = RendezvousAffinity.owner(p, nodes);
        }
        return owners;
    }

    private static String[] owners(ClusterMap map) {
        String[] owners = new String[map.partitions()];
        for (int p = 0; p < owners.length; p++) {
            owners[p] = map.owner(p);
        }
        return owners;
    }

    private void awaitOwners(HelixMembership viewer, String[] expected) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                .untilAsserted(() -> assertThat(owners(viewer.map())).containsExactly(expected));
    }

    /** Waits until no transition is left to do: every partition has exactly its MASTER in the external view. */
    private static void awaitQuiet(String cluster) {
        HelixZkClient client = ZkAccess.open(zk.getConnectString(), null, Duration.ofSeconds(10));
        try {
            ZKHelixAdmin admin = new ZKHelixAdmin(client);
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> {
                ExternalView view = admin.getResourceExternalView(cluster, ClusterPaths.RESOURCE);
                return view != null && view.getPartitionSet().size() == PARTITIONS
                        && view.getPartitionSet().stream().map(view::getStateMap)
                        .allMatch(m -> m.size() == 1 && m.containsValue("MASTER"));
            });
        } finally {
            client.close();
        }
    }

    private Set<Integer> leadBy(String id) {
        return roles.get(id).leading();
    }

    @Test
    void everyPartitionGetsOneMasterAJoinMovesOnlyWhatItTakesAndALeaveWaitsOutTheDelay() {
        String cluster = "placement";
        ClusterSetup.create(zk.getConnectString(), cluster, PARTITIONS, DELAY);
        List<String> three = List.of("node-1", "node-2", "node-3");
        for (String id : three) {
            join(cluster, id);
        }
        HelixMembership viewer = members.get("node-1");
        List<Long> versions = new CopyOnWriteArrayList<>();
        viewer.onMapChange(map -> versions.add(map.version()));

        // Three nodes: the map is rendezvous hashing over them (balanced: RendezvousPlacementTest), each node leads
        // what the map gives it.
        String[] withThree = expectedOwners(three);
        awaitOwners(viewer, withThree);
        for (String id : three) {
            Set<Integer> expected = partitionsOf(withThree, id);
            await().atMost(Duration.ofSeconds(30)).until(() -> leadBy(id).equals(expected));
        }
        for (HelixMembership m : members.values()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> m.map().equals(viewer.map()));
        }
        ClusterMap settled = viewer.map();
        assertThat(settled.nodes()).extracting(ClusterMap.Member::id).containsExactlyElementsOf(three);
        assertThat(settled.member("node-2").address()).isEqualTo("127.0.0.1:7001");
        assertThat(versions).isSorted();

        // A fourth node takes exactly the partitions it now ranks first for, all of them from their old owners.
        awaitQuiet(cluster);
        roles.values().forEach(RecordingRoles::forget);
        List<String> four = List.of("node-1", "node-2", "node-3", "node-4");
        join(cluster, "node-4");
        String[] withFour = expectedOwners(four);
        awaitOwners(viewer, withFour);
        Set<Integer> moved = partitionsOf(withFour, "node-4");
        assertThat(moved.size()).isBetween(PARTITIONS / 4 * 3 / 4, PARTITIONS / 4 * 5 / 4);
        await().atMost(Duration.ofSeconds(30)).until(() -> leadBy("node-4").equals(moved));
        for (String id : three) {
            Set<Integer> given = new HashSet<>();
            for (RecordingRoles.Call c : roles.get(id).calls()) {
                assertThat(c.what()).as("%s: %s", id, c).isIn("stopLeading", "release", "drop");
                assertThat(moved).as("%s gave up %s", id, c).contains(c.partition());
                if (c.what().equals("stopLeading")) {
                    given.add(c.partition());
                }
            }
            assertThat(given).isEqualTo(intersect(partitionsOf(withThree, id), moved));
        }
        assertThat(versions.get(versions.size() - 1)).isGreaterThan(settled.version());
        assertThat(versions).isSorted();

        // The fourth leaves: its partitions have no owner until the delay has passed, then go back where they were.
        awaitQuiet(cluster);
        roles.values().forEach(RecordingRoles::forget);
        long left = System.nanoTime();
        leave("node-4");
        String[] waiting = withFour.clone();
        for (int p : moved) {
            waiting[p] = null;
        }
        awaitOwners(viewer, waiting);
        awaitOwners(viewer, withThree);
        assertThat(Duration.ofNanos(System.nanoTime() - left)).isGreaterThanOrEqualTo(DELAY.minusMillis(500));
        for (String id : three) {
            Set<Integer> back = intersect(partitionsOf(withThree, id), moved);
            await().atMost(Duration.ofSeconds(30)).until(() -> leadBy(id).equals(partitionsOf(withThree, id)));
            for (RecordingRoles.Call c : roles.get(id).calls()) {
                assertThat(back).as("%s: %s", id, c).contains(c.partition());
            }
        }
        assertThat(versions).isSorted();
    }

    @Test
    void aNodeBackWithinTheDelayGetsItsOwnPartitionsAndNothingElseMoves() {
        String cluster = "comeback";
        Duration delay = Duration.ofSeconds(20);
        ClusterSetup.create(zk.getConnectString(), cluster, PARTITIONS, delay);
        List<String> three = List.of("node-1", "node-2", "node-3");
        for (String id : three) {
            join(cluster, id);
        }
        HelixMembership viewer = members.get("node-1");
        String[] withThree = expectedOwners(three);
        awaitOwners(viewer, withThree);
        Set<Integer> ofThree = partitionsOf(withThree, "node-3");
        await().atMost(Duration.ofSeconds(30)).until(() -> leadBy("node-3").equals(ofThree));
        awaitQuiet(cluster);
        roles.values().forEach(RecordingRoles::forget);

        long left = System.nanoTime();
        leave("node-3");
        String[] waiting = withThree.clone();
        for (int p : ofThree) {
            waiting[p] = null;
        }
        awaitOwners(viewer, waiting);
        join(cluster, "node-3");
        awaitOwners(viewer, withThree);
        assertThat(Duration.ofNanos(System.nanoTime() - left)).isLessThan(delay);
        await().atMost(Duration.ofSeconds(30)).until(() -> leadBy("node-3").equals(ofThree));
        assertThat(roles.get("node-1").calls()).isEmpty();
        assertThat(roles.get("node-2").calls()).isEmpty();
    }

    static Set<Integer> partitionsOf(String[] owners, String id) {
        Set<Integer> ps = new HashSet<>();
        for (int p = 0; p < owners.length; p++) {
            if (id.equals(owners[p])) {
                ps.add(p);
            }
        }
        return ps;
    }

    private static Set<Integer> intersect(Set<Integer> a, Set<Integer> b) {
        Set<Integer> both = new HashSet<>(a);
        both.retainAll(b);
        return both;
    }

}
