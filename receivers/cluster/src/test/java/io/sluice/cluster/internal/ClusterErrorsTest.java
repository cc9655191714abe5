package io.sluice.cluster.internal;

import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Bad input and faults fail a start within a bound, with messages that name what is wrong. */
@Timeout(120)
class ClusterErrorsTest {

    private static final Duration SESSION = Duration.ofSeconds(2);
    private static TestingServer zk;

    @BeforeAll
    static void startZooKeeper() throws Exception {
        zk = ZooKeeperForTests.start();
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        zk.close();
    }

    private static ClusterSettings settings(String zookeeper, String cluster, String id) {
        return new ClusterSettings(zookeeper, cluster, id, "127.0.0.1", 7000, SESSION);
    }

    /** A loopback port nothing listens on. */
    private static String closedAddress() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return "127.0.0.1:" + s.getLocalPort();
        }
    }

    @Test
    void aMissingClusterIsNamedWithTheCommandThatCreatesIt() {
        String address = zk.getConnectString();
        long start = System.nanoTime();
        assertThatThrownBy(() -> HelixMembership.join(settings(address, "nowhere", "node-1"), new RecordingRoles()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'nowhere'")
                .hasMessageContaining(address)
                .hasMessageContaining("java -jar sluice-node.jar create-cluster --zookeeper " + address
                        + " --name nowhere");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        assertThat(ClusterSetup.exists(address, "nowhere")).isFalse();
        assertThatThrownBy(() -> ClusterSetup.partitions(address, "nowhere"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("create-cluster");
    }

    @Test
    void anUnreachableZooKeeperIsNamedWithinTheSessionTimeout() throws IOException {
        String address = closedAddress();
        long start = System.nanoTime();
        assertThatThrownBy(() -> HelixMembership.join(settings(address, "c", "node-1"), new RecordingRoles()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot reach ZooKeeper at " + address);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(SESSION.plusSeconds(3));

        start = System.nanoTime();
        assertThatThrownBy(() -> ClusterSetup.create(address, "c", 8, Duration.ZERO, 0, SESSION))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot reach ZooKeeper at " + address);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(SESSION.plusSeconds(3));
    }

    @Test
    void aSecondNodeWithALiveIdIsRefusedNamingTheId() {
        String address = zk.getConnectString();
        ClusterSetup.create(address, "twins", 8, Duration.ofSeconds(1));
        try (HelixMembership first = HelixMembership.join(settings(address, "twins", "node-7"), new RecordingRoles())) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> HelixMembership.join(settings(address, "twins", "node-7"),
                    new RecordingRoles()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("'node-7' is already live in cluster 'twins'");
            // Waited out a killed node's session (timeout + 2 s), no longer.
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(SESSION, SESSION.plusSeconds(6));
            assertThat(first.nodeId()).isEqualTo("node-7");
        }
    }

    @Test
    void creatingIsIdempotentButRefusesAnotherPartitionCount() {
        String address = zk.getConnectString();
        assertThat(ClusterSetup.create(address, "fixed", 32, Duration.ofSeconds(60))).isTrue();
        assertThat(ClusterSetup.create(address, "fixed", 32, Duration.ofSeconds(60))).isFalse();
        assertThat(ClusterSetup.exists(address, "fixed")).isTrue();
        assertThat(ClusterSetup.partitions(address, "fixed")).isEqualTo(32);
        assertThatThrownBy(() -> ClusterSetup.create(address, "fixed", 64, Duration.ofSeconds(60)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'fixed'").hasMessageContaining("32 partitions, not 64");
        assertThatThrownBy(() -> ClusterSetup.create(address, "bad", 0, Duration.ofSeconds(60)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("partitions is 0");
    }
}
