package io.sluice.node.internal.cluster;

import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.Sluice;
import io.sluice.StreamerOptions;
import io.sluice.WriteSyncMode;
import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import io.sluice.cluster.internal.ClusterSettings;
import io.sluice.cluster.internal.ClusterSetup;
import io.sluice.node.NodeConfig;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Backups on real Helix (issue 27): ZooKeeper in this JVM, two nodes (engine, server, cluster node) on loopback, a
 * cluster made with one backup per partition. The second node backs every partition of the first and is in sync;
 * when the first leaves, the second serves every acknowledged entry, with no pull.
 */
@Timeout(180)
class ReplicationHelixTest {

    private static final int PARTITIONS = 8;
    private static final int ENTRIES = 20_000;
    private static TestingServer zookeeper;

    private final List<Runnable> stops = new ArrayList<>();

    @BeforeAll
    static void startZooKeeper() throws Exception {
        System.setProperty("zookeeper.forceSync", "no");
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
        Member m = new Member(engine, server, node);
        stops.add(() -> stop(m));
        node.join(new ClusterSettings(zookeeper.getConnectString(), cluster, id, "127.0.0.1",
                server.address().getPort(), Duration.ofSeconds(4)));
        return m;
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
    void theBackupServesEveryAcknowledgedEntryWhenThePrimaryLeaves() throws Exception {
        ClusterSetup.create(zookeeper.getConnectString(), "backups", PARTITIONS, Duration.ofSeconds(60), 1);
        Member a = start("backups", "a");
        await().atMost(Duration.ofSeconds(60)).until(() -> served(a) == PARTITIONS);
        a.cluster().createCache(CacheConfig.named("orders").withBackups(1).withWriteSync(WriteSyncMode.FULL_SYNC),
                false);
        Member b = start("backups", "b");
        // Rendezvous gives b about half the partitions as primary and backs the others: all in sync on both sides.
        await().atMost(Duration.ofSeconds(60)).until(() -> served(a) + served(b) == PARTITIONS
                && allInSync(a, b) && allInSync(b, a));

        Map<Long, String> written = new HashMap<>();
        try (Sluice client = SluiceClient.connect(ClientConfig.addresses("127.0.0.1:" + a.server().address().getPort()));
             DataStreamer<Long, String> streamer = client.dataStreamer("orders",
                     StreamerOptions.builder().allowOverwrite(true).build())) {
            for (long k = 0; k < ENTRIES; k++) {
                streamer.addData(k, "value " + k);
                written.put(k, "value " + k);
            }
            streamer.flush(); // acknowledged: FULL_SYNC, so on both nodes
        }
        long movesBefore = b.cluster().joinedParts().moves().done();

        stops.remove(0);
        stop(a);

        await().atMost(Duration.ofSeconds(60)).until(() -> served(b) == PARTITIONS);
        assertThat(b.cluster().joinedParts().moves().done()).isEqualTo(movesBefore); // promoted, nothing pulled
        try (Sluice client = SluiceClient.connect(ClientConfig.addresses("127.0.0.1:" + b.server().address().getPort()))) {
            Map<Long, String> read = client.<Long, String>cache("orders").getAll(written.keySet());
            assertThat(read).isEqualTo(written);
        }
    }

    private static boolean allInSync(Member primary, Member backup) {
        String id = backup.cluster().joinedParts().membership().nodeId();
        for (int p = 0; p < PARTITIONS; p++) {
            if (primary.cluster().serves(p) && !primary.cluster().joinedParts().primary().inSync(p).contains(id)) {
                return false;
            }
        }
        return true;
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
}
