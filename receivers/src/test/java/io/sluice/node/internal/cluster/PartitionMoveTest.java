package io.sluice.node.internal.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.CacheConfig;
import io.sluice.node.NodeConfig;
import io.sluice.node.PersistenceConfig;
import io.sluice.node.internal.NodeCache;
import io.sluice.node.internal.NodeEngine;
import io.sluice.pagestore.internal.PartitionStore;
import io.sluice.pagestore.internal.StoreCursor;
import io.sluice.protocol.internal.NotOwnerException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.ArrayList;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** Taking a partition over between two real nodes (engine + server on loopback), the cluster in memory. */
@Timeout(60)
class PartitionMoveTest {

    private static final int PARTITIONS = 16;
    /** About one and a half PARTITION_SCAN pages per partition: a move reads several pages. */
    private static final int ENTRIES = 3 * PartitionTakeover.PAGE * PARTITIONS / 2;

    @Test
    void theNewOwnerPullsThePartitionWholeAndTheOldOneDropsItsCopy() throws Exception {
        try (TwoNodes c = new TwoNodes(PARTITIONS)) {
            TwoNodes.Node a = c.start("a");
            c.cluster.assign("a");
            NodeCache<Object, Object> onA = load(a);
            TwoNodes.Node b = c.start("b");
            NodeCache<Object, Object> onB = b.engine().nodeCache("orders");
            assertThat(onB.partitions()).isEqualTo(PARTITIONS);
            List<String> moved = entries(onA.store(3));
            long untouched = onA.store(4).size();
            assertThat(moved).hasSizeGreaterThan(PartitionTakeover.PAGE);

            c.cluster.move(3, "b");

            assertThat(entries(onB.store(3))).isEqualTo(moved);
            assertThat(b.cluster().serves(3)).isTrue();
            assertThat(b.cluster().serves(4)).isFalse();
            assertThat(a.cluster().serves(3)).isFalse();
            assertThat(c.cluster.lastOwner(3)).isEqualTo("b");
            assertThatThrownBy(() -> a.cluster().enter(3)).isInstanceOf(NotOwnerException.class)
                    .hasMessageContaining("'b' at 127.0.0.1:" + b.server().address().getPort());
            await().atMost(Duration.ofSeconds(10)).until(() -> onA.store(3).size() == 0);
            assertThat(onA.store(4).size()).isEqualTo(untouched);
            assertThat(onB.store(4).size()).isZero();

            JsonNode status = new ObjectMapper().readTree(b.cluster().statusJson());
            assertThat(status.get("nodeId").asText()).isEqualTo("b");
            assertThat(status.get("partitionsServed").asInt()).isEqualTo(1);
            assertThat(status.get("entriesServed").asLong()).isEqualTo(moved.size());
            assertThat(status.get("moves").get("done").asLong()).isEqualTo(1);
            assertThat(status.get("moves").get("entries").asLong()).isEqualTo(moved.size());
            // Moved by file (the default): the bytes are the partition file's, its entries compressed.
            assertThat(status.get("moves").get("bytes").asLong()).isGreaterThan(moved.size());
            assertThat(status.get("members")).hasSize(2);
            assertThat(b.engine().metrics().registry().get(MoveStats.MOVED_ENTRIES).counter().count())
                    .isEqualTo(moved.size());
            assertThat(b.engine().metrics().registry().get(MoveStats.PARTITIONS_SERVED).gauge().value()).isEqualTo(1);
            JsonNode statusA = new ObjectMapper().readTree(a.cluster().statusJson());
            assertThat(statusA.get("partitionsServed").asInt()).isEqualTo(PARTITIONS - 1);
            assertThat(statusA.get("moves").get("droppedEntries").asLong()).isEqualTo(moved.size());
        }
    }

    @Test
    void theOldOwnerKeepsItsCopyUntilTheOwnerLogNamesTheNewOwner() throws Exception {
        try (TwoNodes c = new TwoNodes(PARTITIONS)) {
            TwoNodes.Node a = c.start("a");
            c.cluster.assign("a");
            NodeCache<Object, Object> onA = load(a);
            TwoNodes.Node b = c.start("b");
            long size = onA.store(5).size();
            c.cluster.holdOwnerLog(5);

            c.cluster.move(5, "b");

            assertThat(c.cluster.map().owner(5)).isEqualTo("b");
            assertThat(c.cluster.lastOwner(5)).isEqualTo("a");
            assertThat(a.cluster().joinedParts().retired().sweep()).isZero();
            assertThat(onA.store(5).size()).isEqualTo(size);
            c.cluster.releaseOwnerLog(5);
            a.cluster().joinedParts().retired().sweepSoon();
            await().atMost(Duration.ofSeconds(10)).until(() -> onA.store(5).size() == 0);
            assertThat(b.engine().nodeCache("orders").store(5).size()).isEqualTo(size);
        }
    }

    @Test
    void aLastOwnerTheMapDoesNotNameLeavesTheLocalDataAsItIs() throws Exception {
        try (TwoNodes c = new TwoNodes(PARTITIONS)) {
            TwoNodes.Node a = c.start("a");
            c.cluster.assign("a");
            load(a);
            TwoNodes.Node b = c.start("b");
            c.cluster.recordOwner(6, "gone");

            c.cluster.move(6, "b");

            assertThat(b.cluster().serves(6)).isTrue();
            assertThat(b.engine().nodeCache("orders").store(6).size()).isZero();
            assertThat(c.cluster.lastOwner(6)).isEqualTo("b");
            assertThat(new ObjectMapper().readTree(b.cluster().statusJson()).get("moves").get("done").asLong())
                    .isZero();
        }
    }

    @Test
    void droppedEntriesStayDroppedAfterARestart(@TempDir Path dir) throws Exception {
        long kept;
        try (TwoNodes c = new TwoNodes(PARTITIONS)) {
            TwoNodes.Node a = c.start("a", b -> b.persistence(PersistenceConfig.at(dir)));
            c.cluster.assign("a");
            NodeCache<Object, Object> onA = load(a);
            c.start("b");
            kept = onA.store(4).size();
            c.cluster.move(3, "b");
            await().atMost(Duration.ofSeconds(10)).until(() -> onA.store(3).size() == 0);
            c.stop(a);
        }
        try (NodeEngine restarted = new NodeEngine(NodeConfig.builder().dataRegionMaxSize(128L << 20)
                .persistence(PersistenceConfig.at(dir)).build())) {
            assertThat(restarted.nodeCache("orders").store(3).size()).isZero();
            assertThat(restarted.nodeCache("orders").store(4).size()).isEqualTo(kept);
        }
    }

    @Test
    void aWriteInFlightOnTheOldOwnerIsOnTheNewOneAfterTheMove() throws Exception {
        try (TwoNodes c = new TwoNodes(PARTITIONS)) {
            TwoNodes.Node a = c.start("a");
            c.cluster.assign("a");
            NodeCache<Object, Object> onA = load(a);
            TwoNodes.Node b = c.start("b");
            long key = keysOf(onA, 7, 1).get(0);
            a.cluster().enter(7); // a request admitted on the old owner, not applied yet

            CompletableFuture<Void> move = CompletableFuture.runAsync(() -> {
                try {
                    c.cluster.move(7, "b");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });

            await().atMost(Duration.ofSeconds(10)).until(() -> !a.cluster().serves(7));
            assertThatThrownBy(() -> a.cluster().enter(7)).isInstanceOf(NotOwnerException.class);
            await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
                    .until(() -> !move.isDone() && !b.cluster().serves(7));
            onA.put(key, "written " + key);
            a.cluster().exit(7);
            move.get(30, TimeUnit.SECONDS);
            assertThat(b.cluster().serves(7)).isTrue();
            assertThat(b.engine().nodeCache("orders").get(key)).isEqualTo("written " + key);
        }
    }

    /** Keys above the loaded ones whose partition is p. */
    private static List<Long> keysOf(NodeCache<Object, Object> cache, int p, int count) {
        List<Long> keys = new ArrayList<>();
        io.sluice.binary.internal.GrowableBuffer buf = new io.sluice.binary.internal.GrowableBuffer(16);
        io.sluice.binary.internal.BinaryContext binary = new io.sluice.binary.internal.BinaryContext();
        for (long k = ENTRIES; keys.size() < count; k++) {
            buf.reset();
            binary.encode(k, buf);
            if (cache.partitionOf(buf.array(), 0, buf.position()) == p) {
                keys.add(k);
            }
        }
        return keys;
    }

    /** Creates "orders" through the cluster and puts ENTRIES entries on the node. */
    private static NodeCache<Object, Object> load(TwoNodes.Node node) {
        NodeCache<Object, Object> cache = node.cluster().createCache(CacheConfig.named("orders"), true);
        assertThat(cache.partitions()).isEqualTo(PARTITIONS);
        Map<Object, Object> entries = new LinkedHashMap<>();
        for (long k = 0; k < ENTRIES; k++) {
            entries.put(k, "value " + k);
        }
        cache.putAll(entries);
        return cache;
    }

    /** A partition's entries, key and value bytes in hex, in key order. */
    private static List<String> entries(PartitionStore store) {
        List<String> out = new ArrayList<>();
        StoreCursor cursor = store.cursor();
        while (cursor.next()) {
            out.add(HexFormat.of().formatHex(cursor.key()) + "=" + HexFormat.of().formatHex(cursor.value()));
        }
        return out;
    }
}
