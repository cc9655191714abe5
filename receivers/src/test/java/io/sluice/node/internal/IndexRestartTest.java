package io.sluice.node.internal;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.IndexNotFoundException;
import io.sluice.IndexQuery;
import io.sluice.node.PersistenceConfig;
import io.sluice.node.WalMode;
import io.sluice.node.internal.IndexQueryNodeTest.Order;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static io.sluice.node.internal.IndexQueryNodeTest.keys;
import static io.sluice.node.internal.IndexQueryNodeTest.model;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Indexes across restarts: they are derived data, created on the partitions before the checkpoint's load and filled
 * by it and by the log's replay; which indexes a cache has (declared, added, destroyed) comes back with its options.
 */
@Timeout(120)
class IndexRestartTest {

    @TempDir
    Path dir;
    @TempDir
    Path crashed;

    private NodeEngine node;

    @AfterEach
    void close() {
        if (node != null) {
            node.close();
        }
    }

    private static NodeEngine start(Path directory) {
        return new NodeEngine(NodeEngineTest.smallNode().persistence(PersistenceConfig.at(directory)
                .withWalMode(WalMode.LOG_ONLY).withWalSegmentSize(1 << 20)
                .withCheckpointInterval(Duration.ofHours(1)).withCheckOnRecovery(true)).build());
    }

    /** The live node's files as a kill -9 now would leave them (the lock file excepted). */
    private void copyDirectoryTo(Path target) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.toList()) {
                if (!f.getFileName().toString().equals("lock")) {
                    Files.copy(f, target.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    private static void assertQueries(Cache<Long, Order> cache, Map<Long, Order> orders) {
        for (String code : IndexQueryNodeTest.CODES) {
            assertThat(keys(cache.query(IndexQuery.on("secCode").eq(code))))
                    .isEqualTo(model(orders, o -> o.secCode().equals(code), Comparator.comparing(Order::secCode)));
        }
        assertThat(keys(cache.query(IndexQuery.on("account", "price").eq("A4").lt(50.0))))
                .isEqualTo(model(orders, o -> o.account().equals("A4") && o.price() < 50,
                        Comparator.comparing(Order::account).thenComparingDouble(Order::price)));
    }

    @Test
    void indexesComeBackFromTheCheckpointAndTheLog() throws IOException {
        node = start(dir);
        Cache<Long, Order> cache = node.createCache(CacheConfig.named("orders").withPartitions(8).index("secCode")
                .index("qty"));
        Map<Long, Order> orders = new LinkedHashMap<>(IndexQueryNodeTest.orders(4_000, 3));
        try (DataStreamer<Long, Order> s = node.dataStreamer("orders")) {
            orders.forEach(s::addData);
        }
        node.checkpoint();
        // After the checkpoint's mark, in the log only: overwrites that move index entries, removals, a new index
        // (built in the background, its OPTIONS record logged), a destroyed one.
        Map<Long, Order> later = IndexQueryNodeTest.orders(500, 99);
        for (Map.Entry<Long, Order> e : later.entrySet()) {
            cache.put(e.getKey() * 7, e.getValue());
            orders.put(e.getKey() * 7, e.getValue());
        }
        for (long k = 1; k < 4_000; k += 13) {
            cache.remove(k);
            orders.remove(k);
        }
        assertThat(cache.createIndex("account", "price")).isTrue();
        assertThat(cache.destroyIndex("qty")).isTrue();
        Awaitility.await().atMost(Duration.ofSeconds(60)).ignoreException(IllegalStateException.class)
                .untilAsserted(() -> assertQueries(cache, orders));
        copyDirectoryTo(crashed);
        node.close();

        for (Path restartFrom : List.of(crashed, dir)) { // the log replayed after the checkpoint; a clean stop's
            node = start(restartFrom);
            Cache<Long, Order> back = node.cache("orders");
            assertThat(((NodeCache<?, ?>) back).config().indexes())
                    .containsExactly(List.of("secCode"), List.of("account", "price"));
            assertQueries(back, orders);
            assertThatThrownBy(() -> back.query(IndexQuery.on("qty"))).isInstanceOf(IndexNotFoundException.class);
            node.close();
        }
        node = null;
    }
}
