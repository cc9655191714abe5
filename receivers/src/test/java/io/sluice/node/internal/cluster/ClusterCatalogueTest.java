package io.sluice.node.internal.cluster;

import io.sluice.CacheConfig;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.internal.BinaryContext;
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

/** The cluster-wide caches and types on a node: applied on joining, followed after, created and destroyed through it. */
@Timeout(60)
class ClusterCatalogueTest {

    private static final int PARTITIONS = 16;

    @Test
    void joiningAppliesTheCatalogueMissingCachesCreatedCachesDestroyedWhileAwayRemoved(@TempDir Path dir) {
        try (NodeEngine before = new NodeEngine(NodeConfig.builder().dataRegionMaxSize(64L << 20)
                .persistence(PersistenceConfig.at(dir)).build())) {
            before.createCache(CacheConfig.named("destroyed-while-away").withPartitions(PARTITIONS)).put(1L, "x");
            before.createCache(CacheConfig.named("still-there").withPartitions(PARTITIONS)).put(2L, "y");
        }
        try (TwoNodes c = new TwoNodes(PARTITIONS)) {
            c.cluster.caches().put("still-there", CacheDescription.encode(CacheConfig.named("still-there")
                    .withPartitions(PARTITIONS)));
            c.cluster.caches().put("created-meanwhile", CacheDescription.encode(CacheConfig.named("created-meanwhile")
                    .withPartitions(PARTITIONS)));

            TwoNodes.Node a = c.start("a", b -> b.persistence(PersistenceConfig.at(dir))
                    .cache(CacheConfig.named("declared")));

            assertThat(a.engine().cacheNames()).containsExactlyInAnyOrder("still-there", "created-meanwhile",
                    "declared");
            assertThat(a.engine().nodeCache("still-there").get(2L)).isEqualTo("y");
            assertThat(a.engine().nodeCache("declared").partitions()).isEqualTo(PARTITIONS);
            assertThat(c.cluster.caches()).containsOnlyKeys("still-there", "created-meanwhile", "declared");
            assertThat(CacheDescription.decode(c.cluster.caches().get("declared")))
                    .isEqualTo(CacheConfig.named("declared").withPartitions(PARTITIONS));
        }
    }

    @Test
    void everyCacheHasTheClustersPartitionCount() {
        try (TwoNodes c = new TwoNodes(PARTITIONS)) {
            TwoNodes.Node a = c.start("a");
            assertThat(a.cluster().createCache(CacheConfig.named("by-default"), false).partitions())
                    .isEqualTo(PARTITIONS);
            assertThat(a.cluster().createCache(CacheConfig.named("same").withPartitions(PARTITIONS), false)
                    .partitions()).isEqualTo(PARTITIONS);
            assertThatThrownBy(() -> a.cluster().createCache(CacheConfig.named("other").withPartitions(32), true))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("cache 'other' asks for 32 partitions")
                    .hasMessageContaining("the cluster's " + PARTITIONS);
            assertThat(c.cluster.caches()).doesNotContainKey("other");
            assertThat(a.engine().cacheNames()).doesNotContain("other");
        }
    }

    @Test
    void aCacheCreatedOrDestroyedThroughOneMemberIsCreatedOrDestroyedOnTheOthers() {
        try (TwoNodes c = new TwoNodes(PARTITIONS)) {
            TwoNodes.Node a = c.start("a");
            TwoNodes.Node b = c.start("b");

            a.cluster().createCache(CacheConfig.named("orders"), false);

            assertThat(c.cluster.caches()).containsKey("orders");
            await().atMost(Duration.ofSeconds(10)).until(() -> b.engine().cacheNames().contains("orders"));
            assertThat(b.engine().nodeCache("orders").partitions()).isEqualTo(PARTITIONS);
            assertThatThrownBy(() -> b.cluster().createCache(CacheConfig.named("orders"), false))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("already exists in the cluster");
            assertThat(b.cluster().createCache(CacheConfig.named("orders"), true).partitions()).isEqualTo(PARTITIONS);

            assertThat(b.cluster().destroyCache("orders")).isTrue();

            assertThat(b.engine().cacheNames()).doesNotContain("orders");
            await().atMost(Duration.ofSeconds(10)).until(() -> !a.engine().cacheNames().contains("orders"));
            assertThat(c.cluster.caches()).doesNotContainKey("orders");
            assertThat(a.cluster().destroyCache("orders")).isFalse();
        }
    }

    @Test
    void aCacheTheCatalogueHasIsFoundOnAMemberBeforeItsNotificationArrives() {
        try (TwoNodes c = new TwoNodes(PARTITIONS)) {
            TwoNodes.Node a = c.start("a");
            // Written to the catalogue without notifying anyone: a notification still on its way.
            c.cluster.caches().put("late", CacheDescription.encode(CacheConfig.named("late").withPartitions(PARTITIONS)));
            assertThat(a.engine().cacheNames()).doesNotContain("late");

            assertThat(a.cluster().cache("late").partitions()).isEqualTo(PARTITIONS);

            assertThat(a.engine().cacheNames()).contains("late");
            assertThatThrownBy(() -> a.cluster().cache("nowhere"))
                    .isInstanceOf(io.sluice.CacheNotFoundException.class);
        }
    }

    @Test
    void aTypeOneMemberLearnsReadsOnTheOthers() {
        try (TwoNodes c = new TwoNodes(PARTITIONS)) {
            TwoNodes.Node a = c.start("a");
            TwoNodes.Node b = c.start("b");
            BinaryObject trade = a.engine().binary().builder("Trade").setLong("id", 7).setField("sym", "ABC").build();

            a.cluster().typesImported();

            await().atMost(Duration.ofSeconds(10)).until(() -> knows(b.engine(), "Trade"));
            byte[] bytes = encode(a.engine(), trade);
            BinaryObject read = (BinaryObject) b.engine().binaryContext().decode(bytes, 0, bytes.length, true);
            assertThat((long) read.field("id")).isEqualTo(7L);
            assertThat((String) read.field("sym")).isEqualTo("ABC");
        }
    }

    @Test
    void aNodeThatJoinsLaterLearnsTheClustersTypes() {
        try (TwoNodes c = new TwoNodes(PARTITIONS)) {
            TwoNodes.Node a = c.start("a");
            a.engine().binary().builder("Quote").setLong("bid", 1).build();
            a.cluster().typesImported();
            await().atMost(Duration.ofSeconds(10)).until(() -> clusterHasTypes(c));

            TwoNodes.Node b = c.start("b");

            assertThat(knows(b.engine(), "Quote")).isTrue();
        }
    }

    private static boolean clusterHasTypes(TwoNodes c) {
        byte[] types = c.cluster.types();
        if (types.length == 0) {
            return false;
        }
        BinaryContext probe = new BinaryContext();
        probe.importTypes(types);
        return knows(probe, "Quote");
    }

    private static boolean knows(NodeEngine node, String type) {
        return knows(node.binaryContext(), type);
    }

    private static boolean knows(BinaryContext binary, String type) {
        try {
            return binary.type(type) != null;
        } catch (RuntimeException unknown) {
            return false;
        }
    }

    private static byte[] encode(NodeEngine node, Object value) {
        io.sluice.binary.internal.GrowableBuffer out = new io.sluice.binary.internal.GrowableBuffer(64);
        node.binaryContext().encode(value, out);
        return java.util.Arrays.copyOf(out.array(), out.position());
    }
}
