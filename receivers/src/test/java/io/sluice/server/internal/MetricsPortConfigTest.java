package io.sluice.server.internal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code metricsPort} in the node file and {@code --metrics-port} on the command line. */
class MetricsPortConfigTest {

    @TempDir
    Path dir;

    private NodeFileConfig read(String json) throws IOException {
        Path file = dir.resolve("node.json");
        Files.writeString(file, json);
        return NodeFileConfig.read(file);
    }

    @Test
    void offByDefaultTheFileSetsItAndTheCommandLineWins() throws IOException {
        assertThat(read("{}").metricsPort(null)).isNull();
        assertThat(NodeFileConfig.empty().metricsPort(null)).isNull();
        assertThat(read("{\"metricsPort\": 0}").metricsPort(null)).isZero();
        assertThat(read("{\"metricsPort\": 9404}").metricsPort(null)).isEqualTo(9404);
        assertThat(read("{\"metricsPort\": 9404}").metricsPort(9500)).isEqualTo(9500);
    }

    @Test
    void aBadPortNamesTheKey() throws IOException {
        assertThatThrownBy(() -> read("{\"metricsPort\": 70000}").metricsPort(null))
                .hasMessage("key 'metricsPort' (--metrics-port) is 70000; it must be between 0 (any free port) and 65535");
        assertThatThrownBy(() -> read("{\"metricsPort\": \"high\"}")).hasMessageContaining("key 'metricsPort'");
        assertThatThrownBy(() -> read("{\"metricPort\": 1}")).hasMessageContaining("unknown key 'metricPort'")
                .hasMessageContaining("metricsPort");
    }

    @Test
    void aPortInUseStopsTheStartNamingIt() throws IOException {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            assertThatThrownBy(() -> MetricsExport.start("127.0.0.1", taken.getLocalPort()))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("cannot serve metrics on 127.0.0.1:" + taken.getLocalPort() + " (metricsPort)");
        }
    }
}
