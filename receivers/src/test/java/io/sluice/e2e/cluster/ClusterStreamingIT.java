package io.sluice.e2e.cluster;

import io.sluice.CacheConfig;
import io.sluice.Sluice;
import io.sluice.protocol.internal.ClusterMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Three node processes in one cluster, two clients that each know the three addresses streaming StockOrders
 * into one cache: the map spreads the 1,024 partitions evenly, and every entry reads back through either
 * client, the cache's size exact. CI size 200,000 entries ({@code -Dsluice.cluster.it.entries} for more).
 */
@Timeout(480)
class ClusterStreamingIT {

    @Test
    void twoClientsStreamIntoThreeNodesAndReadEverythingBack() throws Exception {
        long n = OrderLoad.entries();
        try (ClusterProcesses cluster = ClusterProcesses.create("streaming", Duration.ofSeconds(60))) {
            try {
                cluster.startAll("node-1", "node-2", "node-3");
                ClusterMap map = cluster.awaitSettled(ClusterProcesses.SETTLE);
                Map<String, Integer> owned = ClusterProcesses.partitionsPerOwner(map);
                double fair = ClusterProcesses.PARTITIONS / 3.0;
                assertThat(owned.values()).as("partitions per node %s", owned)
                        .allMatch(c -> c >= fair * 0.9 && c <= fair * 1.1);

                try (Sluice a = cluster.client(); Sluice b = cluster.client()) {
                    a.getOrCreateCache(CacheConfig.named(OrderLoad.CACHE));
                    b.getOrCreateCache(CacheConfig.named(OrderLoad.CACHE));
                    long start = System.nanoTime();
                    OrderLoad first = OrderLoad.start(a, 0, n / 2, "load-a");
                    OrderLoad second = OrderLoad.start(b, n / 2, n, "load-b");
                    first.assertCompleted(n / 2, Duration.ofSeconds(200));
                    second.assertCompleted(n - n / 2, Duration.ofSeconds(200));
                    System.out.printf("ClusterStreamingIT: %,d entries into 3 nodes in %.1f s%n", n,
                            (System.nanoTime() - start) / 1e9);

                    for (Sluice client : Set.of(a, b)) {
                        OrderLoad.assertReadable(client, 0, n);
                        assertThat(client.cache(OrderLoad.CACHE).size()).as("size").isEqualTo(n);
                    }
                    OrderLoad.assertScanMeetsEachOnce(b, n);
                }
            } catch (AssertionError | RuntimeException e) {
                System.err.println(cluster.logs());
                throw e;
            }
        }
    }
}
