package io.sluice.cluster.internal;

import org.apache.curator.test.TestingServer;
import org.apache.helix.zookeeper.api.client.HelixZkClient;
import org.apache.helix.zookeeper.datamodel.ZNRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A node process that led the cluster while a delayed rebalance was pending ends once it left: Helix's rebalance
 * scheduler thread, a non-daemon one, would otherwise keep the JVM alive.
 */
@Timeout(120)
class NodeProcessExitTest {

    private TestingServer zk;
    private Process child;

    @AfterEach
    void stop() throws Exception {
        if (child != null) {
            child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        if (zk != null) {
            zk.close();
        }
    }

    @Test
    void aLeaderThatLeftWithARebalancePendingExits() throws Exception {
        zk = ZooKeeperForTests.start();
        String address = zk.getConnectString();
        String cluster = "exits";
        ClusterSetup.create(address, cluster, 16, Duration.ofSeconds(60));

        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        child = new ProcessBuilder(java, "-Xmx128m", "-cp", System.getProperty("java.class.path"),
                NodeProcessMain.class.getName(), address, cluster, "node-a")
                .redirectErrorStream(true).start();
        List<String> lines = new CopyOnWriteArrayList<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (Exception e) {
                // the process ended
            }
        }, "child-output");
        reader.setDaemon(true);
        reader.start();
        await().atMost(Duration.ofSeconds(60)).until(() -> lines.contains("JOINED"));
        await().atMost(Duration.ofSeconds(30)).until(() -> "node-a".equals(leader(address, cluster)));

        // A second node comes and goes: the leader (the child) holds its partitions back for the delay, on
        // Helix's scheduler thread.
        RecordingRoles rolesB = new RecordingRoles();
        try (HelixMembership b = HelixMembership.join(new ClusterSettings(address, cluster, "node-b", "127.0.0.1",
                7101, Duration.ofSeconds(4)), rolesB)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> !rolesB.leading().isEmpty());
        }

        OutputStream in = child.getOutputStream();
        in.write("leave\n".getBytes(StandardCharsets.UTF_8));
        in.flush();
        boolean ended = child.waitFor(30, TimeUnit.SECONDS);
        if (!ended) { // which threads keep it alive: a thread dump (SIGQUIT) joins its output
            new ProcessBuilder("kill", "-3", Long.toString(child.pid())).inheritIO().start().waitFor(10, TimeUnit.SECONDS);
            // the dump ends with its count of JNI global references
            await().atMost(Duration.ofSeconds(10)).until(() -> lines.stream().anyMatch(l -> l.startsWith("JNI global refs")));
        }
        assertThat(ended).as("the node process ended; its output: %s", String.join("\n", lines)).isTrue();
        assertThat(child.exitValue()).isZero();
        assertThat(lines).contains("LEFT");
    }

    private static String leader(String address, String cluster) {
        HelixZkClient client = ZkAccess.open(address, null, Duration.ofSeconds(10));
        try {
            ZNRecord leader = client.readData("/" + cluster + "/CONTROLLER/LEADER", true);
            return leader == null ? null : leader.getId();
        } finally {
            client.close();
        }
    }
}
