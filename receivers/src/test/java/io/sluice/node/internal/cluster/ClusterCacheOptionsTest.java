package io.sluice.node.internal.cluster;

import io.sluice.CacheConfig;
import io.sluice.WriteSyncMode;
import io.sluice.node.NodeConfig;
import io.sluice.node.PersistenceConfig;
import io.sluice.node.internal.NodeEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A cache's options in a cluster: they travel with it through the catalogue to every member, an existing cache asked
 * for with others is refused, and a member whose copy has other options takes the catalogue's.
 */
@Timeout(60)
class ClusterCacheOptionsTest {

    private static final int PARTITIONS = 8;
    private static final CacheConfig ORDERS = CacheConfig.named("orders").withPartitions(PARTITIONS).withBackups(1)
            .withWriteSync(WriteSyncMode.FULL_SYNC).withReadFromBackup(true).index("secCode");

    @Test
    void theOptionsReachEveryMemberAndAnotherAskIsRefused() {
        try (TwoNodes c = new TwoNodes(PARTITIONS)) {
            TwoNodes.Node a = c.start("a");
            TwoNodes.Node b = c.start("b");

            a.cluster().createCache(ORDERS, false);

            assertThat(CacheDescription.decode(c.cluster.caches().get("orders"))).isEqualTo(ORDERS);
            await().atMost(Duration.ofSeconds(10)).until(() -> b.engine().cacheNames().contains("orders"));
            assertThat(b.engine().nodeCache("orders").config()).isEqualTo(ORDERS);
            assertThat(b.cluster().createCache(ORDERS, true).config()).isEqualTo(ORDERS);
            assertThatThrownBy(() -> b.cluster().createCache(ORDERS.withBackups(2), true))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("the cluster")
                    .hasMessageContaining("backups 1").hasMessageContaining("backups 2");
            assertThat(CacheDescription.decode(c.cluster.caches().get("orders"))).isEqualTo(ORDERS);
        }
    }

    @Test
    void aMembersCopyWithOtherOptionsTakesTheCataloguesAndKeepsThemAcrossARestart(@TempDir Path dir) {
        CacheConfig local = CacheConfig.named("orders").withPartitions(PARTITIONS);
        try (NodeEngine before = new NodeEngine(NodeConfig.builder().dataRegionMaxSize(64L << 20)
                .persistence(PersistenceConfig.at(dir)).build())) {
            before.createCache(local).put(1L, "kept");
        }
        try (TwoNodes c = new TwoNodes(PARTITIONS)) {
            c.cluster.caches().put("orders", CacheDescription.encode(ORDERS));

            TwoNodes.Node a = c.start("a", b -> b.persistence(PersistenceConfig.at(dir)));

            assertThat(a.engine().nodeCache("orders").config()).isEqualTo(ORDERS);
            assertThat(a.engine().nodeCache("orders").get(1L)).as("its entries stay").isEqualTo("kept");
        }
        try (NodeEngine after = new NodeEngine(NodeConfig.builder().dataRegionMaxSize(64L << 20)
                .persistence(PersistenceConfig.at(dir)).build())) {
            assertThat(after.nodeCache("orders").config()).as("logged").isEqualTo(ORDERS);
        }
    }
}
