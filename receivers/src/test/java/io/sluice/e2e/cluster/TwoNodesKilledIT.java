package io.sluice.e2e.cluster;

import io.sluice.CacheConfig;
import io.sluice.Sluice;
import io.sluice.WriteSyncMode;
import io.sluice.protocol.internal.ClusterMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 27, two nodes killed at once: three nodes (session timeout 6 s), a cache with two backups, FULL_SYNC (every
 * partition on every node), a client writing. node-1 and node-2 are killed with kill -9 together: node-3, the last
 * copy of every partition, becomes the primary of all of them and every acknowledged key is there with its value;
 * the load goes on. Both come back, catch up (every partition with an owner and two backups again), and still
 * nothing acknowledged is lost.
 */
@Timeout(360)
class TwoNodesKilledIT {

    private static final int RATE = 1000;

    @Test
    void withTwoBackupsFullSyncLosesNothingWhenTwoNodesDieAtOnce() throws Exception {
        try (ClusterProcesses cluster = ClusterProcesses.create("twokilled", Duration.ofSeconds(60),
                BackupKillLoopIT.PARTITIONS)) {
            try {
                cluster.sessionTimeout(BackupKillLoopIT.SESSION).startAll("node-1", "node-2", "node-3");
                try (Sluice writer = cluster.client()) {
                    writer.getOrCreateCache(CacheConfig.named("two").withBackups(2)
                            .withWriteSync(WriteSyncMode.FULL_SYNC));
                    AckedWrites writes = AckedWrites.start(writer, "two", RATE, RATE * 600);
                    ReplicaMaps.awaitReplicated(cluster, 2, Duration.ofSeconds(120));
                    writes.awaitProgress(RATE, Duration.ofSeconds(60));

                    long killedAt = System.nanoTime();
                    cluster.kill("node-1");
                    cluster.kill("node-2");
                    ReplicaMaps.awaitFailedOver(cluster, "node-3", "node-1", Duration.ofSeconds(60));
                    ClusterMap alone = ReplicaMaps.awaitFailedOver(cluster, "node-3", "node-2", Duration.ofSeconds(60));
                    double failover = (System.nanoTime() - killedAt) / 1e9;
                    assertThat(ReplicaMaps.primaryOf(alone, "node-3")).as("node-3's partitions")
                            .hasSize(BackupKillLoopIT.PARTITIONS);
                    AckedWrites.Check afterKill = verify(cluster, writes);
                    System.out.printf("TwoNodesKilledIT: node-1 and node-2 killed, node-3 primary of every partition"
                            + " after %.1f s; %s; %s%n", failover, writes, afterKill);
                    assertThat(afterKill.clean()).as("acknowledged keys after two kills: %s", afterKill).isTrue();
                    writes.awaitProgress(RATE, Duration.ofSeconds(60)); // node-3 alone takes writes

                    cluster.startAll("node-1", "node-2");
                    ReplicaMaps.awaitReplicated(cluster, 2, Duration.ofSeconds(120));
                    writes.stop();
                    assertThat(writes.ended()).as("how the load's streamer ended").isNull();
                    assertThat(writes.failed()).as("entries the cluster failed (%s)", writes.failures()).isZero();
                    AckedWrites.Check last = verify(cluster, writes);
                    assertThat(last.clean()).as("acknowledged keys with every node back: %s", last).isTrue();
                    System.out.println("TwoNodesKilledIT: " + writes + "; " + last);
                }
            } catch (AssertionError | RuntimeException e) {
                System.err.println(cluster.logs());
                throw e;
            }
        }
    }

    private static AckedWrites.Check verify(ClusterProcesses cluster, AckedWrites writes) {
        try (Sluice reader = cluster.client()) {
            return writes.verify(reader, Set.of());
        }
    }
}
