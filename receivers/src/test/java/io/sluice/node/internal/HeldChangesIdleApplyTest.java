package io.sluice.node.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.IndexQuery;
import io.sluice.node.internal.IndexQueryNodeTest.Order;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The apply threads apply the index changes their partitions hold once they have no batch queued
 * ({@link HeldChangesIdleApply}): after a streamed load too small to reach the threshold, nothing stays held, though
 * nothing queried the indexes.
 */
@Timeout(60)
class HeldChangesIdleApplyTest {

    private NodeEngine node;

    @BeforeEach
    void start() {
        node = new NodeEngine(NodeEngineTest.smallNode().build());
    }

    @AfterEach
    void stop() {
        node.close();
    }

    @Test
    void idleApplyThreadsApplyWhatTheirPartitionsHoldWithoutAQuery() {
        Cache<Long, Order> cache = node.createCache(CacheConfig.named("orders").withPartitions(16)
                .index("secCode").index("account"));
        Map<Long, Order> orders = IndexQueryNodeTest.orders(3_000, 11); // ~190 a partition: below the threshold
        try (DataStreamer<Long, Order> streamer = node.dataStreamer(cache.name())) {
            orders.forEach(streamer::addData);
        }
        NodeCache<Object, Object> stored = node.nodeCache("orders");

        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5))
                .until(() -> IntStream.range(0, 16).allMatch(p -> stored.store(p).index().heldChanges() == 0));

        assertThat(IndexQueryNodeTest.keys(cache.query(IndexQuery.on("secCode").eq("SBER"))))
                .isEqualTo(IndexQueryNodeTest.model(orders, o -> o.secCode().equals("SBER"),
                        Comparator.comparing(Order::secCode)));
        assertThat(node.checkConsistency().problems()).isEmpty();
    }
}
