package io.sluice.e2e.cluster;

import io.sluice.CacheConfig;
import io.sluice.Sluice;
import io.sluice.protocol.internal.ClusterMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client that last looked at the map when the cluster was node-1..3, streaming after node-3 left (SIGTERM; the
 * rebalance delay is 1 s here, so its partitions go to the others) and node-4 joined: its map names a node that is
 * gone and misses one that serves a quarter of the partitions, and still it delivers every entry, which a new
 * client reads back.
 */
@Timeout(480)
class StaleMapIT {

    private static final int PARTITIONS = 64;

    @Test
    void aClientWithAStaleMapDeliversEverything() throws Exception {
        long n = OrderLoad.entries();
        // 64 partitions, not the default 1,024: routing around a stale map is the same for any count, and the two
        // maps settle in seconds instead of 40 s.
        try (ClusterProcesses cluster = ClusterProcesses.create("stale", Duration.ofSeconds(1), PARTITIONS)) {
            try {
                cluster.startAll("node-1", "node-2", "node-3");
                ClusterMap before = cluster.awaitSettled(ClusterProcesses.SETTLE);
                try (Sluice stale = cluster.client()) {
                    // The client learns the map: it creates the cache and stores an entry through its owner.
                    stale.getOrCreateCache(CacheConfig.named(OrderLoad.CACHE));
                    stale.cache(OrderLoad.CACHE).put(-1L, "before");
                    stale.cache(OrderLoad.CACHE).remove(-1L);

                    assertThat(cluster.stop("node-3")).as("node-3's exit code on SIGTERM").isZero();
                    cluster.start("node-4");
                    ClusterMap after = cluster.awaitSettled(ClusterProcesses.SETTLE);
                    assertThat(after.version()).as("map version").isGreaterThan(before.version());
                    assertThat(after.member("node-3")).as("node-3 in the new map").isNull();

                    OrderLoad load = OrderLoad.start(stale, 0, n, "stale-load");
                    load.assertCompleted(n, Duration.ofSeconds(150));
                    OrderLoad.assertReadable(stale, 0, n);
                }
                try (Sluice fresh = cluster.client()) {
                    assertThat(fresh.cache(OrderLoad.CACHE).size()).as("size").isEqualTo(n);
                    OrderLoad.assertReadable(fresh, 0, n);
                }
            } catch (AssertionError | RuntimeException e) {
                System.err.println(cluster.logs());
                throw e;
            }
        }
    }
}
