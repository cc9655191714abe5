package io.sluice.node.internal.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.CacheConfig;
import io.sluice.cluster.internal.ClusterSettings;
import io.sluice.cluster.internal.ClusterSetup;
import io.sluice.node.NodeConfig;
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

import java.time.Duration;
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
        NodeEngine engine = new NodeEngine(NodeConfig.builder().dataRegionMaxSize(128L << 20).applyThreads(2).build());
        ClusterNode node = new ClusterNode(engine);
        SluiceServer server = SluiceServer.start(engine, ServerConfig.defaults().withHost("127.0.0.1").withPort(0),
                node);
        stops.add(() -> {
            try {
                node.close();
            } finally {
                server.close();
                engine.close();
            }
        });
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
