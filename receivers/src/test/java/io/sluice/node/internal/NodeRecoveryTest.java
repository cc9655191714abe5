package io.sluice.node.internal;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.Processors;
import io.sluice.Receivers;
import io.sluice.StreamerOptions;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.node.NodeConfig;
import io.sluice.node.PersistenceConfig;
import io.sluice.node.WalMode;
import io.sluice.pagestore.internal.wal.WalCorruptedException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A persistent node comes back from its log with every cache, key and value it had, removals included. */
@Timeout(60)
class NodeRecoveryTest {

    @TempDir
    Path dir;

    private NodeEngine node;

    @AfterEach
    void close() {
        if (node != null) {
            node.close();
        }
    }

    private NodeEngine start(WalMode mode) {
        return new NodeEngine(NodeEngineTest.smallNode().persistence(PersistenceConfig.at(dir).withWalMode(mode)
                .withCheckOnRecovery(true)).build()); // every restart checks its store (a problem stops the start)
    }

    private static <K, V> Map<K, V> contents(Cache<K, V> cache) {
        return cache.scan().collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, TreeMap::new));
    }

    /** Writes through every path a write can take: the streamer's receivers, single and bulk operations, processors. */
    private static void writeEverything(NodeEngine node) {
        Cache<Long, String> strings = node.createCache(CacheConfig.named("strings").withPartitions(16));
        Cache<Long, BinaryObject> orders = node.createCache(CacheConfig.named("orders").withPartitions(8));
        try (DataStreamer<Long, String> s = node.dataStreamer("strings")) { // isolated
            for (long k = 0; k < 3000; k++) {
                s.addData(k, "v" + k);
            }
        }
        try (DataStreamer<Long, String> s = node.dataStreamer("strings",
                StreamerOptions.builder().receiver(Receivers.batched()).build())) {
            for (long k = 2000; k < 2500; k++) {
                s.addData(k, "batched" + k);
            }
            s.removeData(2999L);
        }
        try (DataStreamer<Long, String> s = node.dataStreamer("strings",
                StreamerOptions.builder().receiver(Receivers.individual()).build())) {
            for (long k = 100; k < 200; k++) {
                s.addData(k, "individual" + k);
            }
            s.removeData(150L);
        }
        strings.put(5L, "put");
        strings.putIfAbsent(5L, "ignored");
        strings.putIfAbsent(-1L, "absent");
        strings.remove(6L);
        strings.putAll(Map.of(7L, "all7", 8L, "all8"));
        strings.removeAll(List.of(9L, 10L));
        strings.putAllAsync(Map.of(11L, "async")).join();

        BinaryObjectBuilder b = node.binary().builder("Order");
        Map<Long, BinaryObject> batch = new HashMap<>();
        for (long id = 0; id < 50; id++) {
            batch.put(id, b.setField("symbol", "S" + id).setField("quantity", (int) id).build());
        }
        orders.putAll(batch);
        orders.invoke(3L, Processors.setField("quantity", 1000)); // same length: rewritten in place
        orders.invoke(4L, Processors.setFields(Map.of("symbol", "LONGER-SYMBOL"))); // a new row
        orders.invokeAll(Set.of(5L, 6L), Processors.add("quantity", 1));
        orders.remove(7L);
    }

    @ParameterizedTest
    @EnumSource(WalMode.class)
    void aRestartedNodeHasWhatItHadBeforeAStop(WalMode mode) {
        node = start(mode);
        writeEverything(node);
        Map<Long, String> strings = contents(node.cache("strings"));
        Map<Long, BinaryObject> orders = contents(node.cache("orders"));
        assertThat(strings.keySet()).doesNotContain(2999L, 150L, 6L, 9L, 10L).contains(-1L, 11L, 5L, 2998L);
        node.close();

        node = start(mode);

        assertThat(node.cacheNames()).containsExactlyInAnyOrder("strings", "orders");
        Map<Long, String> recoveredStrings = contents(node.cache("strings"));
        assertThat(recoveredStrings.size()).isEqualTo(strings.size());
        assertThat(recoveredStrings.equals(strings)).as("same entries after the restart").isTrue();
        Map<Long, BinaryObject> recovered = contents(node.cache("orders"));
        assertThat(recovered.equals(orders)).as("same orders after the restart").isTrue();
        assertThat((int) recovered.get(3L).field("quantity")).isEqualTo(1000);
        assertThat((String) recovered.get(4L).field("symbol")).isEqualTo("LONGER-SYMBOL");
        assertThat((int) recovered.get(6L).field("quantity")).isEqualTo(7);
        assertThat(recovered).doesNotContainKey(7L);
        assertThat(node.<Long, String>cache("strings").get(150L)).isNull();
        assertThat(node.<Long, String>cache("strings").get(2100L)).isEqualTo("batched2100");
    }

    @Test
    void writesAfterARecoveryAreLoggedToo() {
        node = start(WalMode.FSYNC);
        node.<Long, String>createCache(CacheConfig.named("c").withPartitions(4)).put(1L, "one");
        node.close();
        node = start(WalMode.FSYNC);
        node.<Long, String>cache("c").put(2L, "two");
        node.<Long, String>createCache(CacheConfig.named("d").withPartitions(2)).put(3L, "three");
        node.close();

        node = start(WalMode.FSYNC);

        assertThat(contents(node.<Long, String>cache("c"))).containsExactly(Map.entry(1L, "one"), Map.entry(2L, "two"));
        assertThat(node.<Long, String>cache("d").get(3L)).isEqualTo("three");
    }

    @Test
    void aDamagedLogStopsTheStartWithItsFileAndPosition() throws Exception {
        node = start(WalMode.FSYNC);
        Cache<Long, String> c = node.createCache(CacheConfig.named("c").withPartitions(4));
        for (long k = 0; k < 10; k++) {
            c.put(k, "value" + k);
        }
        node.close();
        node = null;
        Path segment;
        try (Stream<Path> files = Files.list(dir)) {
            segment = files.filter(f -> f.getFileName().toString().startsWith("wal-")).findFirst().orElseThrow();
        }
        try (RandomAccessFile f = new RandomAccessFile(segment.toFile(), "rw")) {
            f.seek(f.length() / 2);
            int x = f.read();
            f.seek(f.length() / 2);
            f.write(x ^ 1);
        }

        assertThatThrownBy(() -> start(WalMode.FSYNC))
                .isInstanceOf(WalCorruptedException.class)
                .hasMessageContaining(segment.toString() + " position ");
        // The directory is free again: the failed start released it.
        assertThatThrownBy(() -> start(WalMode.FSYNC)).isInstanceOf(WalCorruptedException.class);
    }

    @Test
    void withoutPersistenceNothingIsWritten() throws Exception {
        node = new NodeEngine(NodeConfig.builder().dataRegionInitialSize(1 << 20).dataRegionMaxSize(64L << 20)
                .applyThreads(1).build());
        node.<Long, String>createCache(CacheConfig.named("c").withPartitions(2)).put(1L, "x");
        try (Stream<Path> files = Files.list(dir)) {
            assertThat(files.count()).isZero();
        }
        assertThat(LongStream.range(0, 1).count()).isOne();
    }
}
