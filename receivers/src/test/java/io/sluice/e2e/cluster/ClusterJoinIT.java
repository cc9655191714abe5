package io.sluice.e2e.cluster;

import io.sluice.CacheConfig;
import io.sluice.Sluice;
import io.sluice.protocol.internal.ClusterMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A fourth node joins a three-node cluster while a client streams: the load completes with every entry
 * acknowledged and stored once (size exact, each key with its value), and the only partitions whose owner
 * changed are those the new node owns now, their entries streamed to it; the new node reports its moves.
 */
@Timeout(480)
class ClusterJoinIT {

    @Test
    void aNodeJoiningDuringALoadTakesOnlyItsPartitionsAndLosesNothing() throws Exception {
        long n = OrderLoad.entries();
        try (ClusterProcesses cluster = ClusterProcesses.create("join", Duration.ofSeconds(60))) {
            try {
                cluster.startAll("node-1", "node-2", "node-3");
                ClusterMap before = cluster.awaitSettled(ClusterProcesses.SETTLE);
                try (Sluice client = cluster.client()) {
                    client.getOrCreateCache(CacheConfig.named(OrderLoad.CACHE));
                    OrderLoad load = OrderLoad.start(client, 0, n, "load", Duration.ofSeconds(10));
                    load.awaitAcknowledged(n / 4, Duration.ofSeconds(120));
                    assertThat(load.acknowledged()).as("acknowledged before the join").isLessThan(n);
                    long joinAt = System.nanoTime();
                    cluster.start("node-4");
                    load.assertCompleted(n, Duration.ofSeconds(200));
                    ClusterMap after = cluster.awaitSettled(ClusterProcesses.SETTLE);
                    System.out.printf("ClusterJoinIT: node-4 joined after %,d acknowledged; settled %.1f s later%n",
                            n / 4, (System.nanoTime() - joinAt) / 1e9);

                    Set<Integer> moved = ClusterProcesses.movedPartitions(before, after);
                    assertThat(moved).as("partitions moved").isNotEmpty()
                            .allMatch(p -> "node-4".equals(after.owner(p)));
                    // Rendezvous hashing: a fourth node takes about a quarter.
                    assertThat(moved.size()).as("partitions moved to node-4")
                            .isBetween((int) (ClusterProcesses.PARTITIONS / 4 * 0.8),
                                    (int) (ClusterProcesses.PARTITIONS / 4 * 1.2));

                    assertThat(client.cache(OrderLoad.CACHE).size()).as("size").isEqualTo(n);
                    OrderLoad.assertReadable(client, 0, n);
                    OrderLoad.assertScanMeetsEachOnce(client, n);
                    String status = cluster.status("node-4");
                    assertThat(NodeStatus.movesCompleted(status)).as("moves node-4 reports in %s", status)
                            .isEqualTo(moved.size());
                }
            } catch (AssertionError | RuntimeException e) {
                System.err.println(cluster.logs());
                throw e;
            }
        }
    }
}
