package io.sluice.node;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@link ClusterConfig} and {@link NodeConfig.Builder#cluster}: values checked when set, named in the errors. */
class ClusterConfigTest {

    @Test
    void aNodeIsStandaloneUnlessGivenACluster() {
        assertThat(NodeConfig.defaults().cluster()).isEmpty();
        ClusterConfig cluster = ClusterConfig.of("127.0.0.1:2181", "demo", "a");
        NodeConfig config = NodeConfig.builder().cluster(cluster).build();
        assertThat(config.cluster()).contains(cluster);
        assertThat(config.toString()).contains("cluster=ClusterConfig{zookeeper=127.0.0.1:2181, name=demo, nodeId=a,"
                + " sessionTimeout=10000ms}");
    }

    @Test
    void theSettingsAreKept() {
        ClusterConfig c = ClusterConfig.of("zk1:2181,zk2:2181,[::1]:2181", "prod.east", "node-7_b")
                .withAdvertisedHost("node7.example.com").withSessionTimeout(Duration.ofSeconds(30));
        assertThat(c.zookeeper()).isEqualTo("zk1:2181,zk2:2181,[::1]:2181");
        assertThat(c.name()).isEqualTo("prod.east");
        assertThat(c.nodeId()).isEqualTo("node-7_b");
        assertThat(c.advertisedHost()).contains("node7.example.com");
        assertThat(c.sessionTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c).isEqualTo(ClusterConfig.of("zk1:2181, zk2:2181, [::1]:2181", "prod.east", "node-7_b")
                .withAdvertisedHost("node7.example.com").withSessionTimeout(Duration.ofSeconds(30)));
        assertThat(c).isNotEqualTo(ClusterConfig.of("zk1:2181", "prod.east", "node-7_b"));
    }

    @Test
    void aMalformedZooKeeperAddressIsRefusedSayingWhy() {
        assertThatThrownBy(() -> ClusterConfig.of("zk", "demo", "a")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("zookeeper is 'zk': 'zk' has no port; it must be host:port[,host:port...]"
                        + " (ClusterConfig.zookeeper)");
        assertThatThrownBy(() -> ClusterConfig.of("zk:0", "demo", "a"))
                .hasMessageContaining("the port of 'zk:0' is not between 1 and 65535");
        assertThatThrownBy(() -> ClusterConfig.of("zk:2181/chroot", "demo", "a"))
                .hasMessageContaining("'zk:2181/chroot' is not host:port");
        assertThatThrownBy(() -> ClusterConfig.of("", "demo", "a")).hasMessageContaining("it is blank");
        assertThatThrownBy(() -> ClusterConfig.of(null, "demo", "a")).isInstanceOf(NullPointerException.class)
                .hasMessage("zookeeper");
    }

    @Test
    void aNameOrIdWithOtherCharactersIsRefused() {
        assertThatThrownBy(() -> ClusterConfig.of("zk:2181", "", "a"))
                .hasMessage("name is ; it must be 1 to 100 letters, digits, _, - or . (ClusterConfig.name)");
        assertThatThrownBy(() -> ClusterConfig.of("zk:2181", "demo", "a b"))
                .hasMessage("nodeId is a b; it must be 1 to 100 letters, digits, _, - or . (ClusterConfig.nodeId)");
        assertThatThrownBy(() -> ClusterConfig.of("zk:2181", "demo", "x".repeat(101)))
                .hasMessageContaining("ClusterConfig.nodeId");
        assertThatThrownBy(() -> ClusterConfig.of("zk:2181", "demo", null)).isInstanceOf(NullPointerException.class)
                .hasMessage("nodeId");
    }

    @Test
    void theAdvertisedHostAndTimeoutAreChecked() {
        ClusterConfig c = ClusterConfig.of("zk:2181", "demo", "a");
        assertThatThrownBy(() -> c.withAdvertisedHost("::")).hasMessageContaining("which names no machine");
        assertThatThrownBy(() -> c.withAdvertisedHost(" ")).hasMessageContaining("it must be a host name or address");
        assertThatThrownBy(() -> c.withSessionTimeout(Duration.ofMinutes(11)))
                .hasMessage("sessionTimeout is PT11M; it must be between 1 s and 10 minutes"
                        + " (ClusterConfig.sessionTimeout)");
        assertThat(c.withAdvertisedHost("[fe80::1]").advertisedHost()).contains("[fe80::1]");
        assertThatThrownBy(() -> NodeConfig.builder().cluster(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void anEmbeddedNodeRefusesACluster() {
        NodeConfig config = NodeConfig.builder().cluster(ClusterConfig.of("127.0.0.1:2181", "demo", "a"))
                .dataRegionMaxSize(16L << 20).build();
        assertThatThrownBy(() -> SluiceNode.start(config)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("an embedded node does not join a cluster")
                .hasMessageContaining("sluice-node.jar");
    }
}
