package io.sluice.cluster.internal;

import io.sluice.affinity.internal.RendezvousAffinity;
import io.sluice.protocol.internal.ClusterMap;
import org.apache.curator.test.TestingServer;
import org.apache.helix.zookeeper.api.client.HelixZkClient;
import org.apache.helix.zookeeper.datamodel.ZNRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Helix's side of a failover with backups 1 and the session timeout (6 s): the leading node, a process, is
 * killed with kill -9; until its session expires its partitions keep it as their owner, then each is led by its
 * backup (never a third node) within the session timeout + 1 s; restarted within the rebalance delay, it gets its
 * replicas back. The node's own part (promotion work, clients re-sending) comes on top: failtests measures it end
 * to end.
 */
@Timeout(180)
class FailoverProcessTest {

    private static final Duration SESSION = Duration.ofSeconds(6);
    private static final int PARTITIONS = Integer.getInteger("sluice.failover.partitions", 64);
    private static final List<String> THREE = List.of("node-1", "node-2", "node-3");

    private TestingServer zk;
    private Process child;
    private final List<HelixMembership> members = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        if (child != null) {
            child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        members.forEach(HelixMembership::close);
        if (zk != null) {
            zk.close();
        }
    }

    private Process startChild(String address, String cluster, String id) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        try {
            Process p = new ProcessBuilder(java, "-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                    "-cp", System.getProperty("java.class.path"), NodeProcessMain.class.getName(), address, cluster,
                    id, Long.toString(SESSION.toMillis()), "7103").redirectErrorStream(true).start();
            List<String> lines = new CopyOnWriteArrayList<>();
            Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String line; (line = r.readLine()) != null; ) {
                        lines.add(line);
                    }
                } catch (Exception e) {
                    // the process ended
                }
            }, "child-output");
            reader.setDaemon(true);
            reader.start();
            await().atMost(Duration.ofSeconds(60)).until(() -> lines.contains("JOINED"));
            return p;
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
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

    @Test
    void aKilledLeadersPartitionsAreLedByTheirBackupsWithinTheSessionTimeoutPlusOneSecond() throws Exception {
        zk = ZooKeeperForTests.start();
        String address = zk.getConnectString();
        String cluster = "failover";
        ClusterSetup.create(address, cluster, PARTITIONS, Duration.ofSeconds(60), 1);
        // node-3 first: it leads the cluster (the worst case: its death also costs an election)
        boolean killLeader = !Boolean.getBoolean("sluice.failover.follower");
        if (killLeader) {
            child = startChild(address, cluster, "node-3");
            await().atMost(Duration.ofSeconds(30)).until(() -> "node-3".equals(leader(address, cluster)));
        }
        for (String id : List.of("node-1", "node-2")) {
            members.add(HelixMembership.join(new ClusterSettings(address, cluster, id, "127.0.0.1",
                    7100 + members.size(), SESSION), new RecordingRoles()));
        }
        if (!killLeader) {
            child = startChild(address, cluster, "node-3");
        }
        HelixMembership viewer = members.get(0);
        List<List<String>> full = new ArrayList<>();
        List<List<String>> promoted = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            List<String> ranked = RendezvousAffinity.ranked(p, THREE).subList(0, 2);
            full.add(ranked);
            List<String> kept = new ArrayList<>(ranked);
            kept.remove("node-3");
            promoted.add(kept);
        }
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(50))
                .until(() -> replicas(viewer.map()).equals(full));

        long[] killedAt = {System.nanoTime()};
        java.util.concurrent.atomic.AtomicLong gone = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicLong first = new java.util.concurrent.atomic.AtomicLong();
        viewer.onMapChange(m -> {
            if (m.member("node-3") == null) {
                gone.compareAndSet(0, System.nanoTime());
            }
            if (Boolean.getBoolean("sluice.failover.trace")) {
                int owned = 0;
                for (int p = 0; p < m.partitions(); p++) {
                    owned += m.owner(p) != null ? 1 : 0;
                }
                System.out.printf("  +%d ms map %d: %d owned%n", (System.nanoTime() - killedAt[0]) / 1_000_000,
                        m.version(), owned);
            }
            if (first.get() == 0 && !replicas(m).equals(full)) {
                first.set(System.nanoTime());
            }
        });
        long killed = System.nanoTime();
        killedAt[0] = killed;
        child.destroyForcibly();
        assertThat(child.waitFor(10, TimeUnit.SECONDS)).isTrue();
        // nothing changes before its session expires: that is why a paused primary needs the lease
        await().during(SESSION.dividedBy(2)).atMost(SESSION).until(() -> replicas(viewer.map()).equals(full));
        await().atMost(SESSION.plusSeconds(30)).pollInterval(Duration.ofMillis(20))
                .until(() -> replicas(viewer.map()).equals(promoted));
        Duration failover = Duration.ofNanos(System.nanoTime() - killed);
        System.out.printf("kill -9 of the leading node -> its partitions led by their backups: %d ms"
                + " (session timeout %d ms; left the map after %d ms, first change %d ms)%n", failover.toMillis(),
                SESSION.toMillis(), (gone.get() - killed) / 1_000_000, (first.get() - killed) / 1_000_000);

        // back within the delay: the same replicas as before
        long restarted = System.nanoTime();
        child = startChild(address, cluster, "node-3");
        long joined = System.nanoTime();
        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(50))
                .until(() -> replicas(viewer.map()).equals(full));
        System.out.printf("restarted node back to its replicas %d ms after its start (%d ms after it joined)%n",
                (System.nanoTime() - restarted) / 1_000_000, (System.nanoTime() - joined) / 1_000_000);
        // the target is SESSION + 1 s end to end (6.8-7.2 s measured here at 64 partitions on a busy
        // 2-core machine: expiry 6.2-6.5 s, Helix 0.5-0.8 s with the election); bounded looser for CI
        assertThat(failover).isLessThanOrEqualTo(SESSION.plusSeconds(3));
    }

    private static String leader(String address, String cluster) {
        HelixZkClient client = ZkAccess.open(address, null, Duration.ofSeconds(10));
        try {
            ZNRecord leader = client.readData("/" + cluster + "/CONTROLLER/LEADER", true);
            return leader == null ? null : leader.getId();
        } finally {
            client.close();
        }
    }
}
