package io.sluice.server.internal;

import io.sluice.node.ClusterConfig;
import io.sluice.node.NodeConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The node file's {@code cluster} object: read into {@link ClusterConfig}, checked with messages naming the key. */
class ClusterFileConfigTest {

    @TempDir
    Path dir;

    private NodeConfig read(String json) throws IOException {
        Path file = dir.resolve("node.json");
        Files.writeString(file, json);
        return NodeFileConfig.read(file).nodeConfig();
    }

    private NodeConfig readCluster(String cluster) throws IOException {
        return read("{\"cluster\": " + cluster + "}");
    }

    @Test
    void withoutClusterTheNodeIsStandalone() throws IOException {
        assertThat(read("{}").cluster()).isEmpty();
        assertThat(NodeFileConfig.empty().nodeConfig().cluster()).isEmpty();
    }

    @Test
    void everySettingIsRead() throws IOException {
        ClusterConfig c = readCluster("{\"zookeeper\": \"127.0.0.1:2181, zk2:2182\", \"name\": \"demo\","
                + " \"nodeId\": \"a\", \"advertisedHost\": \"10.0.0.5\", \"sessionTimeoutMillis\": 4000}")
                .cluster().orElseThrow();
        assertThat(c.zookeeper()).isEqualTo("127.0.0.1:2181,zk2:2182");
        assertThat(c.name()).isEqualTo("demo");
        assertThat(c.nodeId()).isEqualTo("a");
        assertThat(c.advertisedHost()).contains("10.0.0.5");
        assertThat(c.sessionTimeout()).isEqualTo(Duration.ofSeconds(4));
        ClusterConfig defaults = readCluster("{\"zookeeper\": \"127.0.0.1:2181\", \"name\": \"demo\","
                + " \"nodeId\": \"a\"}").cluster().orElseThrow();
        assertThat(defaults).isEqualTo(ClusterConfig.of("127.0.0.1:2181", "demo", "a"));
        assertThat(defaults.advertisedHost()).isEmpty();
        assertThat(defaults.sessionTimeout()).isEqualTo(ClusterConfig.DEFAULT_SESSION_TIMEOUT);
    }

    @Test
    void aMissingRequiredSettingIsNamed() {
        assertThatThrownBy(() -> readCluster("{\"name\": \"demo\", \"nodeId\": \"a\"}"))
                .hasMessageContaining("key 'cluster.zookeeper' is missing; a cluster node needs ZooKeeper's address,"
                        + " host:port[,host:port...]");
        assertThatThrownBy(() -> readCluster("{\"zookeeper\": \"127.0.0.1:2181\", \"nodeId\": \"a\"}"))
                .hasMessageContaining("key 'cluster.name' is missing; a cluster node needs the cluster's name"
                        + " (made with create-cluster)");
        assertThatThrownBy(() -> readCluster("{\"zookeeper\": \"127.0.0.1:2181\", \"name\": \"demo\"}"))
                .hasMessageContaining("key 'cluster.nodeId' is missing; a cluster node needs this node's id");
        assertThatThrownBy(() -> readCluster("{\"zookeeper\": \" \", \"name\": \"demo\", \"nodeId\": \"a\"}"))
                .hasMessageContaining("key 'cluster.zookeeper' is blank");
        assertThatThrownBy(() -> readCluster("{}")).hasMessageContaining("key 'cluster.zookeeper' is missing");
    }

    @Test
    void aMalformedValueIsNamedWithItsKey() {
        assertThatThrownBy(() -> readCluster("{\"zookeeper\": \"127.0.0.1\", \"name\": \"demo\", \"nodeId\": \"a\"}"))
                .hasMessageContaining("key 'cluster.zookeeper': zookeeper is '127.0.0.1': '127.0.0.1' has no port;"
                        + " it must be host:port[,host:port...] (ClusterConfig.zookeeper)");
        assertThatThrownBy(() -> readCluster("{\"zookeeper\": \"zk:99999\", \"name\": \"demo\", \"nodeId\": \"a\"}"))
                .hasMessageContaining("key 'cluster.zookeeper': zookeeper is 'zk:99999': the port of 'zk:99999' is"
                        + " not between 1 and 65535");
        assertThatThrownBy(() -> readCluster("{\"zookeeper\": \"zk:2181,\", \"name\": \"demo\", \"nodeId\": \"a\"}"))
                .hasMessageContaining("key 'cluster.zookeeper': zookeeper is 'zk:2181,': it has an empty entry");
        assertThatThrownBy(() -> readCluster("{\"zookeeper\": \"zk:2181\", \"name\": \"my cluster\", \"nodeId\": \"a\"}"))
                .hasMessageContaining("key 'cluster.name': name is my cluster; it must be 1 to 100 letters, digits,"
                        + " _, - or . (ClusterConfig.name)");
        assertThatThrownBy(() -> readCluster("{\"zookeeper\": \"zk:2181\", \"name\": \"demo\", \"nodeId\": \"a/b\"}"))
                .hasMessageContaining("key 'cluster.nodeId': nodeId is a/b; it must be 1 to 100 letters");
        assertThatThrownBy(() -> readCluster("{\"zookeeper\": \"zk:2181\", \"name\": \"demo\", \"nodeId\": \"a\","
                + " \"advertisedHost\": \"0.0.0.0\"}"))
                .hasMessageContaining("key 'cluster.advertisedHost': advertisedHost is '0.0.0.0', which names no"
                        + " machine");
        assertThatThrownBy(() -> readCluster("{\"zookeeper\": \"zk:2181\", \"name\": \"demo\", \"nodeId\": \"a\","
                + " \"advertisedHost\": \"h:10800\"}"))
                .hasMessageContaining("key 'cluster.advertisedHost': advertisedHost is 'h:10800'; it must be a host"
                        + " name or address, without a port");
        assertThatThrownBy(() -> readCluster("{\"zookeeper\": \"zk:2181\", \"name\": \"demo\", \"nodeId\": \"a\","
                + " \"sessionTimeoutMillis\": 100}"))
                .hasMessageContaining("key 'cluster.sessionTimeoutMillis': sessionTimeout is PT0.1S; it must be"
                        + " between 1 s and 10 minutes (ClusterConfig.sessionTimeout)");
    }

    @Test
    void anUnknownKeyListsTheClusterKeys() {
        assertThatThrownBy(() -> readCluster("{\"zookeeper\": \"zk:2181\", \"name\": \"demo\", \"nodeId\": \"a\","
                + " \"sessionTimeout\": 5000}"))
                .hasMessageContaining("unknown key 'sessionTimeout' in 'cluster'; the keys are [zookeeper, name,"
                        + " nodeId, advertisedHost, sessionTimeoutMillis, maxConcurrentMoves, moveBytesPerSecond, moveMethod]");
    }

    @Test
    void theStartLogShowsTheCluster() throws IOException {
        Path file = dir.resolve("node.json");
        Files.writeString(file, "{\"cluster\": {\"zookeeper\": \"zk:2181\", \"name\": \"demo\", \"nodeId\": \"a\"}}");
        assertThat(NodeFileConfig.read(file).describe().get("cluster").toString())
                .isEqualTo("ClusterConfig{zookeeper=zk:2181, name=demo, nodeId=a, sessionTimeout=10000ms}");
        assertThat(NodeFileConfig.empty().describe().get("cluster")).isEqualTo("none (standalone)");
    }
}
