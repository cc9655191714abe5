package io.sluice.node.internal.cluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.CacheConfig;
import io.sluice.cluster.internal.ClusterSettings;
import io.sluice.node.NodeConfig;
import io.sluice.node.internal.NodeEngine;
import io.sluice.protocol.internal.NotOwnerException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Joining and leaving, without a server: the order of joining against Helix's first transitions, failures. */
@Timeout(30)
class ClusterNodeJoinTest {

    private static final ClusterSettings SETTINGS = new ClusterSettings("127.0.0.1:2181", "test", "a", "127.0.0.1",
            1, ClusterSettings.DEFAULT_SESSION_TIMEOUT);

    private final NodeEngine engine = new NodeEngine(NodeConfig.builder().dataRegionMaxSize(32L << 20).build());

    @AfterEach
    void close() {
        engine.close();
    }

    @Test
    void aTransitionHelixStartsWhileTheNodeJoinsWaitsUntilTheCatalogueIsApplied() throws Exception {
        InMemoryCluster cluster = new InMemoryCluster(8);
        cluster.caches().put("orders", CacheDescription.encode(CacheConfig.named("orders").withPartitions(8)));
        CompletableFuture<Boolean> cachesAtLead = new CompletableFuture<>();
        ClusterNode.MembershipJoin early = (settings, roles) -> {
            var membership = cluster.joiner().join(settings, roles);
            CompletableFuture.runAsync(() -> {
                try {
                    roles.follow(0);
                    roles.lead(0);
                    cachesAtLead.complete(engine.cacheNames().contains("orders"));
                } catch (Exception e) {
                    cachesAtLead.completeExceptionally(e);
                }
            });
            return membership;
        };
        try (ClusterNode node = new ClusterNode(engine, early)) {
            node.join(SETTINGS);

            assertThat(cachesAtLead.get(10, TimeUnit.SECONDS)).isTrue();
            assertThat(node.serves(0)).isTrue();
            assertThat(node.serves(1)).isFalse();
            assertThat(cluster.lastOwner(0)).isEqualTo("a");
        }
    }

    @Test
    void beforeJoiningNothingIsServedAndTheStatusSaysSo() throws Exception {
        try (ClusterNode node = new ClusterNode(engine, new InMemoryCluster(8).joiner())) {
            assertThat(node.map().partitions()).isZero();
            assertThat(node.serves(0)).isFalse();
            assertThatThrownBy(() -> node.enter(0)).isInstanceOf(NotOwnerException.class)
                    .hasMessageContaining("has not joined its cluster yet");
            assertThatThrownBy(() -> node.createCache(CacheConfig.named("c"), true))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("has not joined");
            assertThat(new ObjectMapper().readTree(node.statusJson()).get("joined").asBoolean()).isFalse();
        }
    }

    @Test
    void aJoinThatFailsNamesWhyAndTheNodeCannotJoinTwice() {
        try (ClusterNode node = new ClusterNode(engine, (s, r) -> {
            throw new IllegalStateException("cannot reach ZooKeeper at " + s.zookeeper());
        })) {
            assertThatThrownBy(() -> node.join(SETTINGS)).isInstanceOf(IllegalStateException.class)
                    .hasMessage("cannot reach ZooKeeper at 127.0.0.1:2181");
            assertThatThrownBy(() -> node.join(SETTINGS)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("has joined already");
        }
    }

    @Test
    void losingTheSessionStopsServingUntilHelixGivesThePartitionsBack() throws Exception {
        InMemoryCluster cluster = new InMemoryCluster(8);
        try (ClusterNode node = new ClusterNode(engine, cluster.joiner())) {
            node.join(SETTINGS);
            cluster.assign("a");
            assertThat(node.joinedParts().served().servedCount()).isEqualTo(8);

            var roles = cluster.roles("a"); // what Helix calls
            roles.sessionLost();

            assertThat(node.serves(3)).isFalse();
            roles.lead(3);
            assertThat(node.serves(3)).isTrue();
        }
    }

    @Test
    void leavingStopsServingAndIsIdempotent() throws Exception {
        InMemoryCluster cluster = new InMemoryCluster(8);
        ClusterNode node = new ClusterNode(engine, cluster.joiner());
        node.join(SETTINGS);
        cluster.assign("a");
        assertThat(engine.metrics().registry().find(MoveStats.PARTITIONS_SERVED).gauge()).isNotNull();

        node.close();
        node.close();

        assertThat(node.serves(0)).isFalse();
        assertThat(cluster.map().nodes()).isEmpty();
        assertThat(engine.metrics().registry().find(MoveStats.PARTITIONS_SERVED).gauge()).isNull();
    }
}
