package io.sluice.server.internal;

import io.sluice.Cache;
import io.sluice.DataStreamer;
import io.sluice.Sluice;
import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The node depends on the cluster module (sluice-cluster, with Helix and ZooKeeper) as optional, so an application
 * embedding a node does not have it. The node process itself ({@link NodeMain}, with its subcommands), run on this
 * test's class path without those jars, starts standalone, serves a client and stops on SIGTERM; a file with
 * {@code "cluster"} is refused with a message saying what is missing, not a NoClassDefFoundError.
 */
@Timeout(120)
class NodeWithoutClusterTest {

    /** Class path entries of the cluster module and what only it needs. */
    private static final List<String> CLUSTER_JARS = List.of("/cluster/", "helix", "zookeeper", "curator",
            "metadata-store", "metrics-common");
    private static final Pattern LISTENING = Pattern.compile("sluice-node listening on (\\S+):(\\d+)");

    @TempDir
    Path dir;

    private final List<Process> processes = new ArrayList<>();

    @AfterEach
    void killChildren() {
        processes.forEach(Process::destroyForcibly);
    }

    @Test
    void theNodeProcessWithoutTheClusterModuleRunsStandaloneAndRefusesACluster() throws Exception {
        String[] entries = System.getProperty("java.class.path").split(File.pathSeparator);
        String without = Arrays.stream(entries).filter(e -> CLUSTER_JARS.stream().noneMatch(e::contains))
                .collect(Collectors.joining(File.pathSeparator));
        assertThat(entries.length - without.split(File.pathSeparator).length)
                .as("this test's class path has the cluster module's jars to leave out").isGreaterThanOrEqualTo(3);
        Path plain = dir.resolve("plain.json");
        Files.writeString(plain, "{\"caches\": [{\"name\": \"orders\", \"partitions\": 8}],"
                + " \"dataRegionMaxSize\": \"64m\", \"dataRegionInitialSize\": \"8m\"}");
        Path clustered = dir.resolve("cluster.json");
        Files.writeString(clustered, "{\"dataRegionMaxSize\": \"64m\", \"cluster\": {\"zookeeper\":"
                + " \"127.0.0.1:2181\", \"name\": \"demo\", \"nodeId\": \"a\"}}");

        String absent = run(without, "io.sluice.server.internal.NodeWithoutClusterTest$Absent");
        assertThat(absent).isEqualTo("absent");

        Process node = start(without, "--config", plain.toString(), "--port", "0");
        BufferedReader out = new BufferedReader(new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8));
        int port = CompletableFuture.supplyAsync(() -> port(out)).get(60, TimeUnit.SECONDS);
        try (Sluice client = SluiceClient.connect(ClientConfig.addresses("127.0.0.1:" + port))) {
            try (DataStreamer<Long, String> streamer = client.dataStreamer("orders")) {
                for (long k = 0; k < 1000; k++) {
                    streamer.addData(k, "v" + k);
                }
            }
            Cache<Long, String> cache = client.cache("orders");
            assertThat(cache.size()).isEqualTo(1000);
            assertThat(cache.get(999L)).isEqualTo("v999");
        }
        node.destroy(); // SIGTERM: drains and exits 0
        assertThat(node.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(node.exitValue()).isZero();

        Process refused = start(without, "--config", clustered.toString(), "--port", "0");
        String output = new String(refused.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(refused.waitFor(30, TimeUnit.SECONDS)).as(output).isTrue();
        assertThat(refused.exitValue()).as(output).isEqualTo(2);
        assertThat(output).contains("sluice-node: key 'cluster' needs the cluster module, which is not on the node's"
                + " class path (add io.sluice:sluice-cluster; sluice-node.jar has it)")
                .doesNotContain("NoClassDefFoundError:", "Exception in thread");
    }

    private Process start(String classPath, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(java(), "-Xmx256m", "-cp", classPath,
                NodeMain.class.getName()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        processes.add(p);
        return p;
    }

    private String run(String classPath, String mainClass) throws Exception {
        Process p = new ProcessBuilder(java(), "-cp", classPath, mainClass).redirectErrorStream(true).start();
        processes.add(p);
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).as(output).isTrue();
        return output;
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static int port(BufferedReader out) {
        StringBuilder seen = new StringBuilder();
        try {
            String line;
            while ((line = out.readLine()) != null) {
                seen.append(line).append('\n');
                Matcher m = LISTENING.matcher(line);
                if (m.find()) {
                    Thread drain = new Thread(() -> drain(out), "node-output");
                    drain.setDaemon(true);
                    drain.start();
                    return Integer.parseInt(m.group(2));
                }
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        throw new IllegalStateException("the node exited before it listened:\n" + seen);
    }

    private static void drain(BufferedReader out) {
        try {
            while (out.readLine() != null) {
                // the node's log lines: not needed once it listens
            }
        } catch (java.io.IOException e) {
            // the process ended
        }
    }

    /** Prints "absent" if none of the cluster module's classes is on its class path. */
    static final class Absent {
        public static void main(String[] args) {
            for (String name : List.of("io.sluice.cluster.internal.ClusterSettings", "org.apache.helix.HelixManager",
                    "org.apache.zookeeper.ZooKeeper")) {
                try {
                    Class.forName(name);
                    System.out.println(name + " is on the class path: the test proves nothing");
                    return;
                } catch (ClassNotFoundException expected) {
                    // absent, as for an application that embeds a node
                }
            }
            System.out.println("absent");
        }
    }
}
