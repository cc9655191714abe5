package io.sluice.cluster.internal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(60)
class ZooKeeperServerRunnerTest {

    @Test
    void servesClustersAndKeepsThemAcrossARestart(@TempDir Path dir) {
        int port;
        try (ZooKeeperServerRunner.Running zk = ZooKeeperServerRunner.start(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), dir)) {
            port = zk.port();
            assertThat(port).isPositive();
            assertThat(ClusterSetup.create("127.0.0.1:" + port, "kept", 8, Duration.ofSeconds(5))).isTrue();
        }
        try (ZooKeeperServerRunner.Running zk = ZooKeeperServerRunner.start(
                new InetSocketAddress(InetAddress.getLoopbackAddress(), port), dir)) {
            assertThat(ClusterSetup.partitions("127.0.0.1:" + zk.port(), "kept")).isEqualTo(8);
        }
    }
}
