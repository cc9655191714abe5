package io.sluice.server.internal.command;

import io.sluice.cluster.internal.ClusterSetup;
import io.sluice.server.internal.NodeMain;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code sluice-node.jar create-cluster} and {@code zookeeper}: bad options end with exit 2 and a message naming the
 * option; create-cluster against a real ZooKeeper creates, then leaves an existing cluster as it is, and refuses
 * another partition count.
 */
@Timeout(120)
class ClusterCommandsTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @TempDir
    Path dir;

    private int run(String... args) {
        out.getBuffer().setLength(0);
        err.getBuffer().setLength(0);
        return new CommandLine(new NodeMain()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
                .execute(args);
    }

    @Test
    void createClusterNamesABadOption() {
        assertThat(run("create-cluster", "--name", "demo")).isEqualTo(2);
        assertThat(err.toString()).contains("Missing required option: '--zookeeper=HOST:PORT[,...]'");
        assertThat(run("create-cluster", "--zookeeper", "127.0.0.1", "--name", "demo")).isEqualTo(2);
        assertThat(err.toString()).contains("create-cluster: zookeeper is '127.0.0.1': '127.0.0.1' has no port; it"
                + " must be host:port[,host:port...] (--zookeeper)");
        assertThat(run("create-cluster", "--zookeeper", "127.0.0.1:2181", "--name", "my demo")).isEqualTo(2);
        assertThat(err.toString()).contains("create-cluster: name is my demo; it must be 1 to 100 letters, digits,"
                + " _, - or . (--name)");
        assertThat(run("create-cluster", "--zookeeper", "127.0.0.1:2181", "--name", "demo", "--partitions", "0"))
                .isEqualTo(2);
        assertThat(err.toString()).contains("create-cluster: --partitions is 0; it must be between 1 and 32767");
        assertThat(run("create-cluster", "--zookeeper", "127.0.0.1:2181", "--name", "demo", "--rebalance-delay",
                "60")).isEqualTo(2);
        assertThat(err.toString()).contains("'60' is not a duration: a number and a unit, ms, s, m or h");
        assertThat(run("create-cluster", "--zookeeper", "127.0.0.1:2181", "--name", "demo", "--backups", "4"))
                .isEqualTo(2);
        assertThat(err.toString()).contains("create-cluster: --backups is 4; it must be between 0 and 3");
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void createClusterCreatesOnceAndKeepsThePartitionCount() throws Exception {
        try (TestingServer zk = new TestingServer(true)) {
            String address = zk.getConnectString();
            assertThat(run("create-cluster", "--zookeeper", address, "--name", "demo", "--partitions", "16",
                    "--rebalance-delay", "5s")).as(err.toString()).isZero();
            assertThat(out.toString()).contains("created cluster 'demo' at " + address
                    + ": 16 partitions, rebalance delay 5 s, 0 backups");
            assertThat(run("create-cluster", "--zookeeper", address, "--name", "demo", "--partitions", "16"))
                    .as(err.toString()).isZero();
            assertThat(out.toString()).contains("cluster 'demo' exists at " + address + " with 16 partitions:"
                    + " unchanged");
            assertThat(ClusterSetup.replicas(address, "demo")).isEqualTo(1);
            // --backups on an existing cluster raises its replicas, never lowers them
            assertThat(run("create-cluster", "--zookeeper", address, "--name", "demo", "--partitions", "16",
                    "--backups", "2")).as(err.toString()).isZero();
            assertThat(out.toString()).contains("(replicas raised to 3 if they were fewer)");
            assertThat(ClusterSetup.replicas(address, "demo")).isEqualTo(3);
            assertThat(run("create-cluster", "--zookeeper", address, "--name", "demo", "--partitions", "16",
                    "--backups", "1")).as(err.toString()).isZero();
            assertThat(ClusterSetup.replicas(address, "demo")).isEqualTo(3);
            assertThat(run("create-cluster", "--zookeeper", address, "--name", "backed", "--partitions", "8",
                    "--backups", "1")).as(err.toString()).isZero();
            assertThat(out.toString()).contains("created cluster 'backed' at " + address
                    + ": 8 partitions, rebalance delay 60 s, 1 backup");
            assertThat(ClusterSetup.replicas(address, "backed")).isEqualTo(2);
            assertThat(run("create-cluster", "--zookeeper", address, "--name", "demo")).isEqualTo(2);
            assertThat(err.toString()).contains("create-cluster: cluster 'demo' at " + address
                    + " exists with 16 partitions, not 1024");
        }
    }

    @Test
    void createClusterNamesAZooKeeperThatDoesNotAnswer() throws Exception {
        int closed = closedPort();
        assertThat(run("create-cluster", "--zookeeper", "127.0.0.1:" + closed, "--name", "demo")).isEqualTo(2);
        assertThat(err.toString()).startsWith("create-cluster: ").contains("127.0.0.1:" + closed);
    }

    @Test
    void zookeeperNamesABadOption() throws Exception {
        assertThat(run("zookeeper", "--port", "2181")).isEqualTo(2);
        assertThat(err.toString()).contains("Missing required option: '--dir=DIR'");
        assertThat(run("zookeeper", "--port", "70000", "--dir", dir.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("zookeeper: --port is 70000; it must be between 0 (any free port) and"
                + " 65535");
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            assertThat(run("zookeeper", "--port", String.valueOf(taken.getLocalPort()), "--dir", dir.toString()))
                    .isEqualTo(2);
            assertThat(err.toString()).startsWith("zookeeper: ").contains(String.valueOf(taken.getLocalPort()));
        }
        assertThat(out.toString()).isEmpty();
    }

    private static int closedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
