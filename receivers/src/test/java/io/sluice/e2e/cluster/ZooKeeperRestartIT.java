package io.sluice.e2e.cluster;

import io.sluice.CacheConfig;
import io.sluice.Sluice;
import io.sluice.WriteSyncMode;
import io.sluice.protocol.internal.ClusterMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 27: ZooKeeper itself stopped and started again during a load (three nodes, session timeout 6 s, a cache with
 * one backup, FULL_SYNC). Cut off from ZooKeeper, the primaries stop acknowledging once their lease (half the session
 * timeout) runs out: they cannot know whether the cluster gave their partitions away. ZooKeeper comes back on the
 * same port with its data; the nodes reconnect (the same processes, all members again, every partition with an owner
 * and a backup), the load resumes, and every acknowledged entry is there with its value.
 */
@Timeout(360)
class ZooKeeperRestartIT {

    private static final int RATE = 1000;
    private static final List<String> NODES = List.of("node-1", "node-2", "node-3");

    @Test
    void nodesReconnectAfterZooKeeperRestartsAndNothingAcknowledgedIsLost() throws Exception {
        try (ClusterProcesses cluster = ClusterProcesses.create("zkrestart", Duration.ofSeconds(60),
                BackupKillLoopIT.PARTITIONS)) {
            try {
                cluster.sessionTimeout(BackupKillLoopIT.SESSION).startAll(NODES.toArray(String[]::new));
                try (Sluice writer = cluster.client(); Sluice reader = cluster.client()) {
                    writer.getOrCreateCache(CacheConfig.named("zk").withBackups(1)
                            .withWriteSync(WriteSyncMode.FULL_SYNC));
                    AckedWrites writes = AckedWrites.start(writer, "zk", RATE, RATE * 600);
                    ClusterMap before = ReplicaMaps.awaitReplicated(cluster, 1, Duration.ofSeconds(120));
                    List<Long> pids = NODES.stream().map(id -> cluster.node(id).pid()).toList();
                    writes.awaitProgress(RATE, Duration.ofSeconds(60));

                    long stoppedAt = System.nanoTime();
                    cluster.stopZooKeeper();
                    awaitStalled(writes, Duration.ofSeconds(2), Duration.ofSeconds(20));
                    double stalled = (System.nanoTime() - stoppedAt) / 1e9;
                    long ackedWhileDown = writes.acknowledged();
                    cluster.restartZooKeeper();
                    double restarted = (System.nanoTime() - stoppedAt) / 1e9;
                    writes.awaitProgress(RATE, Duration.ofSeconds(90));
                    double resumed = (System.nanoTime() - stoppedAt) / 1e9;
                    // FULL_SYNC again: every backup in sync, counted by its primary.
                    ClusterMap after = ReplicaMaps.awaitReplicated(cluster, 1, Duration.ofSeconds(120));
                    System.out.printf("ZooKeeperRestartIT: ZooKeeper stopped; acknowledgements stopped after %.1f s"
                            + " (%,d acknowledged), ZooKeeper back after %.1f s, the load resumed after %.1f s; map"
                            + " version %d -> %d, %d partitions changed owner%n", stalled, ackedWhileDown,
                            restarted, resumed, before.version(), after.version(),
                            ClusterProcesses.movedPartitions(before, after).size());

                    assertThat(NODES.stream().map(id -> cluster.node(id).pid()).toList())
                            .as("the node processes (none restarted)").isEqualTo(pids);
                    assertThat(NODES).as("every node alive").allMatch(id -> cluster.node(id).isAlive());
                    writes.stop();
                    assertThat(writes.ended()).as("how the load's streamer ended").isNull();
                    assertThat(writes.failed()).as("entries the cluster failed (%s)", writes.failures()).isZero();
                    AckedWrites.Check check = writes.verify(reader, Set.of());
                    assertThat(check.clean()).as("the acknowledged keys: %s", check).isTrue();
                    System.out.println("ZooKeeperRestartIT: " + writes + "; " + check);
                }
            } catch (AssertionError | RuntimeException e) {
                System.err.println(cluster.logs());
                throw e;
            }
        }
    }

    /**
     * Waits until no entry was acknowledged for {@code quiet}: the nodes, without ZooKeeper, stopped acknowledging
     * (their lease ran out).
     */
    private static void awaitStalled(AckedWrites writes, Duration quiet, Duration atMost) {
        AtomicLong seen = new AtomicLong(-1);
        AtomicLong since = new AtomicLong(System.nanoTime());
        try {
            await().atMost(atMost).pollInterval(Duration.ofMillis(100)).until(() -> {
                long now = writes.acknowledged();
                if (now != seen.getAndSet(now)) {
                    since.set(System.nanoTime());
                    return false;
                }
                return System.nanoTime() - since.get() >= quiet.toNanos();
            });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("the nodes kept acknowledging writes for " + atMost + " without ZooKeeper ("
                    + writes + ")", e);
        }
    }
}
