package io.sluice.node.internal.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.CacheConfig;
import io.sluice.cluster.internal.ClusterSettings;
import io.sluice.cluster.internal.ClusterSetup;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.node.NodeConfig;
import io.sluice.node.PersistenceConfig;
import io.sluice.node.internal.NodeCache;
import io.sluice.node.internal.NodeEngine;
import io.sluice.server.internal.ServerConfig;
import io.sluice.server.internal.SluiceServer;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The node's side on real Helix: ZooKeeper in this JVM, two nodes (engine, server, cluster node) on loopback. */
@Timeout(180)
class ClusterNodeHelixTest {

    private static final int PARTITIONS = 16;
    private static final int ENTRIES = 20_000;
    private static TestingServer zookeeper;

    private final List<Runnable> stops = new ArrayList<>();

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zookeeper = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1), true);
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        zookeeper.close();
    }

    @AfterEach
    void stopNodes() {
        for (int i = stops.size() - 1; i >= 0; i--) {
            stops.get(i).run();
        }
    }

    private record Member(NodeEngine engine, SluiceServer server, ClusterNode cluster) {
    }

    private Member start(String cluster, String id) {
        return start(cluster, id, null);
    }

    private Member start(String cluster, String id, Path persistence) {
        NodeConfig.Builder config = NodeConfig.builder().dataRegionMaxSize(128L << 20).applyThreads(2);
        NodeEngine engine = new NodeEngine(persistence == null ? config.build()
                : config.persistence(PersistenceConfig.at(persistence)).build());
        ClusterNode node = new ClusterNode(engine);
        SluiceServer server = SluiceServer.start(engine, ServerConfig.defaults().withHost("127.0.0.1").withPort(0),
                node);
        stops.add(() -> stop(new Member(engine, server, node)));
        node.join(new ClusterSettings(zookeeper.getConnectString(), cluster, id, "127.0.0.1",
                server.address().getPort(), Duration.ofSeconds(4)));
        return new Member(engine, server, node);
    }

    @Test
    void aJoiningNodeTakesItsPartitionsOverWithTheirEntriesAndTheFirstDropsThem() throws Exception {
        ClusterSetup.create(zookeeper.getConnectString(), "move", PARTITIONS, Duration.ofSeconds(60));
        Member a = start("move", "a");
        await().atMost(Duration.ofSeconds(60)).until(() -> served(a) == PARTITIONS);
        NodeCache<Object, Object> onA = a.cluster().createCache(CacheConfig.named("orders"), false);
        assertThat(onA.partitions()).isEqualTo(PARTITIONS);
        Map<Object, Object> entries = new LinkedHashMap<>();
        for (long k = 0; k < ENTRIES; k++) {
            entries.put(k, "value " + k);
        }
        onA.putAll(entries);
        long[] before = new long[PARTITIONS];
        for (int p = 0; p < PARTITIONS; p++) {
            before[p] = onA.store(p).size();
        }

        Member b = start("move", "b");

        assertThat(b.engine().cacheNames()).contains("orders");
        NodeCache<Object, Object> onB = b.engine().nodeCache("orders");
        await().atMost(Duration.ofSeconds(60)).until(() -> served(b) > 0 && served(a) + served(b) == PARTITIONS);
        for (int p = 0; p < PARTITIONS; p++) {
            int partition = p;
            if (b.cluster().serves(p)) {
                assertThat(onB.store(p).size()).as("partition %d on b", p).isEqualTo(before[p]);
                await().atMost(Duration.ofSeconds(20)).until(() -> onA.store(partition).size() == 0);
            } else {
                assertThat(onA.store(p).size()).as("partition %d on a", p).isEqualTo(before[p]);
                assertThat(onB.store(p).size()).as("partition %d on b", p).isZero();
            }
        }
        JsonNode status = new ObjectMapper().readTree(b.cluster().statusJson());
        assertThat(status.get("moves").get("done").asInt()).isEqualTo(served(b));
        assertThat(status.get("entriesServed").asLong()
                + new ObjectMapper().readTree(a.cluster().statusJson()).get("entriesServed").asLong())
                .isEqualTo(ENTRIES);
        assertThat(b.cluster().map().owner(firstServed(b))).isEqualTo("b");
    }

    @Test
    void aCacheCreatedOnOneMemberExistsOnTheOther() {
        ClusterSetup.create(zookeeper.getConnectString(), "caches", PARTITIONS, Duration.ofSeconds(60));
        Member a = start("caches", "a");
        Member b = start("caches", "b");

        a.cluster().createCache(CacheConfig.named("trades"), true);

        await().atMost(Duration.ofSeconds(20)).until(() -> b.engine().cacheNames().contains("trades"));
        assertThat(b.cluster().destroyCache("trades")).isTrue();
        await().atMost(Duration.ofSeconds(20)).until(() -> !a.engine().cacheNames().contains("trades"));
    }

    private static void stop(Member m) {
        try {
            m.cluster().close();
        } finally {
            try {
                m.server().close();
            } finally {
                m.engine().close();
            }
        }
    }

    @Test
    void aNodeBackWithinTheRebalanceDelayServesItsOwnDataAgainWithoutMoves(@TempDir Path dir) throws Exception {
        ClusterSetup.create(zookeeper.getConnectString(), "back", PARTITIONS, Duration.ofSeconds(60));
        Member a = start("back", "a", dir);
        Member b = start("back", "b");
        await().atMost(Duration.ofSeconds(60)).until(() -> served(a) > 0 && served(b) > 0
                && served(a) + served(b) == PARTITIONS);
        NodeCache<Object, Object> onA = a.cluster().createCache(CacheConfig.named("orders"), false);
        NodeCache<Object, Object> onB = b.cluster().cache("orders");
        GrowableBuffer key = new GrowableBuffer(16);
        for (long k = 0; k < ENTRIES; k++) {
            key.reset();
            a.engine().binaryContext().encode(k, key);
            int p = onA.partitionOf(key.array(), 0, key.position());
            (a.cluster().serves(p) ? onA : onB).put(k, "value " + k);
        }
        Set<Integer> ofA = new HashSet<>();
        long[] sizes = new long[PARTITIONS];
        for (int p = 0; p < PARTITIONS; p++) {
            if (a.cluster().serves(p)) {
                ofA.add(p);
                sizes[p] = onA.store(p).size();
            }
        }
        long movesOfB = new ObjectMapper().readTree(b.cluster().statusJson()).get("moves").get("done").asLong();

        stops.remove(stops.size() - 2);
        stop(a);
        await().atMost(Duration.ofSeconds(30)).until(() -> ofA.stream().allMatch(p -> b.cluster().map().owner(p) == null));
        Member back = start("back", "a", dir);

        await().atMost(Duration.ofSeconds(60)).until(() -> ofA.stream().allMatch(p -> back.cluster().serves(p)));
        NodeCache<Object, Object> again = back.engine().nodeCache("orders");
        for (int p : ofA) {
            assertThat(again.store(p).size()).as("partition %d", p).isEqualTo(sizes[p]);
            assertThat(b.cluster().serves(p)).isFalse();
        }
        assertThat(new ObjectMapper().readTree(back.cluster().statusJson()).get("moves").get("done").asLong())
                .isZero();
        assertThat(new ObjectMapper().readTree(b.cluster().statusJson()).get("moves").get("done").asLong())
                .isEqualTo(movesOfB);
    }

    private static int served(Member m) {
        int n = 0;
        for (int p = 0; p < PARTITIONS; p++) {
            if (m.cluster().serves(p)) {
                n++;
            }
        }
        return n;
    }

    private static int firstServed(Member m) {
        for (int p = 0; p < PARTITIONS; p++) {
            if (m.cluster().serves(p)) {
                return p;
            }
        }
        return -1;
    }
}
