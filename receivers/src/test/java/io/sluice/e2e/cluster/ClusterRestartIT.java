package io.sluice.e2e.cluster;

import io.sluice.CacheConfig;
import io.sluice.Sluice;
import io.sluice.protocol.internal.ClusterMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A node of a three-node cluster stopped with SIGTERM during a load and started again on its persistent region
 * within the rebalance delay (60 s, the default: a restart took 20-25 s on two busy cores): no partition moves (the owners are those of before, and no node took a
 * partition over), the load, held up while the node's partitions had no owner, resumes and completes, and every
 * acknowledged entry is there.
 */
@Timeout(480)
class ClusterRestartIT {

    private static final Duration DELAY = Duration.ofSeconds(60);
    private static final int PARTITIONS = 64;

    @Test
    void aNodeRestartedWithinTheDelayGetsItsPartitionsBackWithoutMovingData() throws Exception {
        long n = OrderLoad.entries();
        // 64 partitions, not the default 1,024: a restart within the delay moves nothing whatever the count, and the
        // first map settles in seconds instead of half a minute.
        try (ClusterProcesses cluster = ClusterProcesses.create("restart", DELAY, PARTITIONS)) {
            try {
                cluster.startAll("node-1", "node-2", "node-3");
                ClusterMap before = cluster.awaitSettled(ClusterProcesses.SETTLE);
                // The first members took partitions over from the first node as the others joined: moves so far.
                long movesOf1 = NodeStatus.movesCompleted(cluster.status("node-1"));
                long movesOf3 = NodeStatus.movesCompleted(cluster.status("node-3"));
                try (Sluice client = cluster.client()) {
                    client.getOrCreateCache(CacheConfig.named(OrderLoad.CACHE));
                    OrderLoad load = OrderLoad.start(client, 0, n, "load", Duration.ofSeconds(20));
                    load.awaitAcknowledged(n / 4, Duration.ofSeconds(120));
                    long stoppedAt = System.nanoTime();
                    assertThat(cluster.stop("node-2")).as("node-2's exit code on SIGTERM").isZero();
                    double stopped = (System.nanoTime() - stoppedAt) / 1e9;
                    long acknowledgedAtStop = load.acknowledged();
                    assertThat(acknowledgedAtStop).as("acknowledged when node-2 stopped").isLessThan(n);
                    // Away: its partitions have no owner (they do not move), on the survivors' map.
                    await().atMost(Duration.ofSeconds(25)).ignoreExceptions().until(() -> {
                        ClusterMap away = cluster.map("node-1");
                        return ClusterProcesses.partitionsPerOwner(away).getOrDefault(null, 0)
                                .equals(ClusterProcesses.partitionsPerOwner(before).get("node-2"));
                    });
                    cluster.start("node-2"); // returns once it has joined
                    double away = (System.nanoTime() - stoppedAt) / 1e9;
                    assertThat(away).as("seconds node-2 was away (must stay within the delay)")
                            .isLessThan(DELAY.toSeconds());
                    ClusterMap after = cluster.awaitSettled(ClusterProcesses.SETTLE);
                    System.out.printf("ClusterRestartIT: node-2 stopped after %,d acknowledged (SIGTERM to exit %.1f s),"
                            + " back after %.1f s, the map settled again after %.1f s%n", acknowledgedAtStop, stopped, away,
                            (System.nanoTime() - stoppedAt) / 1e9);

                    assertThat(ClusterProcesses.movedPartitions(before, after)).as("partitions moved").isEmpty();
                    load.assertCompleted(n, Duration.ofSeconds(200));
                    assertThat(client.cache(OrderLoad.CACHE).size()).as("size").isEqualTo(n);
                    OrderLoad.assertReadable(client, 0, n);
                    assertThat(NodeStatus.movesCompleted(cluster.status("node-1"))).as("moves node-1 made")
                            .isEqualTo(movesOf1);
                    assertThat(NodeStatus.movesCompleted(cluster.status("node-3"))).as("moves node-3 made")
                            .isEqualTo(movesOf3);
                    assertThat(NodeStatus.movesCompleted(cluster.status("node-2")))
                            .as("moves node-2 made since its restart").isZero();
                    // Nothing built on it either (a backup's catch-up included): no byte moved to it.
                    assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(cluster.status("node-2"))
                            .path("moves").path("bytesReceived").asLong(-1)).as("bytes node-2 received for moves")
                            .isZero();
                }
            } catch (AssertionError | RuntimeException e) {
                System.err.println(cluster.logs());
                throw e;
            }
        }
    }
}
