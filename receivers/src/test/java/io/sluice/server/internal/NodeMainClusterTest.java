package io.sluice.server.internal;

import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The node process with {@code "cluster"} in its file does not start when it cannot be a member: it exits 2 with
 * the reason (a cluster not created, a wildcard host with no advertised one) and prints no "listening" line.
 */
@Timeout(120)
class NodeMainClusterTest {

    @TempDir
    Path dir;

    private final List<Process> processes = new ArrayList<>();

    @AfterEach
    void killChildren() {
        processes.forEach(Process::destroyForcibly);
    }

    @Test
    void aClusterThatWasNotCreatedStopsTheStartNamingIt() throws Exception {
        try (TestingServer zk = new TestingServer(true)) {
            String output = node("{\"dataRegionMaxSize\": \"64m\", \"cluster\": {\"zookeeper\": \""
                    + zk.getConnectString() + "\", \"name\": \"nowhere\", \"nodeId\": \"a\"}}", "--port", "0");
            assertThat(output).contains("sluice-node: cluster 'nowhere' does not exist in ZooKeeper at "
                    + zk.getConnectString() + "; create it first: java -jar sluice-node.jar create-cluster")
                    .doesNotContain("listening on");
        }
    }

    @Test
    void aWildcardHostNeedsAnAdvertisedOne() throws Exception {
        String output = node("{\"host\": \"0.0.0.0\", \"cluster\": {\"zookeeper\": \"127.0.0.1:2181\", \"name\":"
                + " \"demo\", \"nodeId\": \"a\"}}", "--port", "0");
        assertThat(output).contains("sluice-node: key 'cluster.advertisedHost' is missing: the node listens on"
                + " 0.0.0.0 (every address)").doesNotContain("listening on");
    }

    /** Runs the node process on this test's class path; returns its output once it exited 2. */
    private String node(String config, String... args) throws Exception {
        Path file = Files.writeString(dir.resolve("node.json"), config);
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx256m", "-cp", System.getProperty("java.class.path"), NodeMain.class.getName(),
                "--config", file.toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        processes.add(p);
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as(output).isTrue();
        assertThat(p.exitValue()).as(output).isEqualTo(2);
        return output;
    }
}
