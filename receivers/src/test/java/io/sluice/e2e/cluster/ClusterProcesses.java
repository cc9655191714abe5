package io.sluice.e2e.cluster;

import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import io.sluice.Sluice;
import io.sluice.protocol.internal.ClusterMap;
import io.sluice.e2e.NodeClassArchive;
import io.sluice.server.internal.NodeProcess;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.awaitility.core.ConditionTimeoutException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;

/**
 * A cluster on loopback for the tests: ZooKeeper in the test JVM (curator-test's TestingServer, a short tick so
 * that sessions may be short), the cluster created once, and nodes as processes from {@code sluice-node.jar}, each
 * with a persistent region of its own under the test's directory and a port it keeps across restarts. For the
 * failover tests a node can be killed (kill -9), paused and continued (SIGSTOP, SIGCONT), started with a session
 * timeout of its own, and ZooKeeper stopped and started again on its port with its data. Closing it
 * kills every node still running and stops ZooKeeper. Public for the connectors' cluster test (receivers' test jar);
 * the node jar is {@code target/sluice-node.jar}, or the system property {@code sluice.node.jar}; {@code
 * -Dsluice.cluster.it.jvmArgs="..."} adds JVM options to every node (debug logging, for instance).
 */
public final class ClusterProcesses implements AutoCloseable {

    /** The cluster's partition count: the default of a cluster created without one. */
    public static final int PARTITIONS = 1024;

    static {
        // ZooKeeper's server logs every session at INFO in the test's output: keep its warnings.
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.zookeeper", "warn");
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.curator", "warn");
    }

    /**
     * How long a map may take to settle: Helix moves 1,024 partitions through OFFLINE, SLAVE and MASTER, which took
     * 25-80 s on two busy cores.
     */
    public static final Duration SETTLE = Duration.ofSeconds(180);

    private static final Path JAR = Path.of(System.getProperty("sluice.node.jar", "target/sluice-node.jar"));

    private final TestingServer zookeeper;
    private final Path dir;
    private final String name;
    private final int partitions;
    /** The session timeout nodes are started with (null: the node's default), and per-node overrides. */
    private Duration sessionTimeout;
    private final Map<String, Duration> sessionTimeouts = new LinkedHashMap<>();
    /** More keys of the node file's top level, and of its "cluster", for the nodes started from now on. */
    private String fileKeys = "";
    private String clusterKeys = "";
    /** More keys of the nodes' "cluster" object (JSON values), for every node, and per node (overriding). */
    private final Map<String, String> clusterSettings = new LinkedHashMap<>();
    private final Map<String, Map<String, String>> nodeClusterSettings = new LinkedHashMap<>();
    /** Nodes stopped with SIGSTOP and not continued yet. */
    private final Set<String> paused = new TreeSet<>();
    private final Map<String, Integer> ports = new LinkedHashMap<>();
    private final Map<String, NodeProcess> running = new LinkedHashMap<>();
    /** Every process started, running or not: their logs are printed when a test fails. */
    private final List<NodeProcess> started = new ArrayList<>();

    private ClusterProcesses(TestingServer zookeeper, Path dir, String name, int partitions) {
        this.zookeeper = zookeeper;
        this.dir = dir;
        this.name = name;
        this.partitions = partitions;
    }

    /**
     * Starts ZooKeeper and creates the cluster (P = {@link #PARTITIONS}).
     *
     * @param rebalanceDelay how long a node may be away and keep its partitions
     */
    public static ClusterProcesses create(String name, Duration rebalanceDelay) throws Exception {
        return create(name, rebalanceDelay, PARTITIONS);
    }

    /**
     * Starts ZooKeeper and creates the cluster with the given partition count (fewer partitions settle faster:
     * the failover tests, which wait for the map many times, use 64).
     */
    public static ClusterProcesses create(String name, Duration rebalanceDelay, int partitions) throws Exception {
        Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "cluster-" + name + "-");
        // tickTime 500 ms: ZooKeeper grants sessions of 1-10 s (2-20 ticks), the node's default (10 s) included.
        // No fsync per write: a test's ZooKeeper need not survive a power cut, and Helix's many small writes
        // settle 1,024 partitions about twice as fast without it.
        System.setProperty("zookeeper.forceSync", "no");
        TestingServer zk = new TestingServer(new InstanceSpec(dir.resolve("zookeeper").toFile(), -1, -1, -1, true,
                -1, 500, -1), true);
        ClusterProcesses cluster = new ClusterProcesses(zk, dir, name, partitions);
        try {
            ClusterCreation.create(zk.getConnectString(), name, partitions, rebalanceDelay);
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    public String zookeeper() {
        return zookeeper.getConnectString();
    }

    public String name() {
        return name;
    }

    public int partitions() {
        return partitions;
    }

    /** The ZooKeeper session timeout of the nodes started from now on ({@code cluster.sessionTimeoutMillis}). */
    public ClusterProcesses sessionTimeout(Duration timeout) {
        this.sessionTimeout = timeout;
        return this;
    }

    /**
     * More keys for the node files of the nodes started from now on: {@code file} at the top level (e.g.
     * {@code "metricsPort": 0}), {@code cluster} in {@code "cluster"} (e.g. {@code "maxConcurrentMoves": 1}); each
     * "" or JSON members without the braces.
     */
    public ClusterProcesses nodeFileKeys(String file, String cluster) {
        this.fileKeys = file;
        this.clusterKeys = cluster;
        return this;
    }

    /** The ZooKeeper session timeout of one node, from its next start on (overrides {@link #sessionTimeout}). */
    public ClusterProcesses sessionTimeout(String nodeId, Duration timeout) {
        sessionTimeouts.put(nodeId, timeout);
        return this;
    }

    /**
     * A key of the "cluster" object of the nodes started from now on, e.g. {@code ("moveMethod", "\"ENTRIES\"")}
     * (the value as JSON).
     */
    public synchronized ClusterProcesses clusterSetting(String key, String json) {
        clusterSettings.put(key, json);
        return this;
    }

    /** A key of one node's "cluster" object, from its next start on (overrides {@link #clusterSetting}). */
    public synchronized ClusterProcesses clusterSetting(String nodeId, String key, String json) {
        nodeClusterSettings.computeIfAbsent(nodeId, id -> new LinkedHashMap<>()).put(key, json);
        return this;
    }

    /** The node's persistence directory (its region's files; kept across its restarts). */
    public Path dataDirectory(String nodeId) {
        return dir.resolve(nodeId);
    }

    /**
     * Stops ZooKeeper (its data is kept): the nodes lose their connection, their sessions live on until it comes
     * back ({@link #restartZooKeeper}) and the session timeout passes without them.
     */
    public void stopZooKeeper() throws IOException {
        zookeeper.stop();
    }

    /** Starts ZooKeeper again on the same port with the same data (after {@link #stopZooKeeper}, or stops it first). */
    public void restartZooKeeper() throws Exception {
        zookeeper.restart();
    }

    /** Starts a node (again, after a stop, on its old port and directory) and waits until it listens. */
    public NodeProcess start(String nodeId) {
        return register(nodeId, launch(nodeId));
    }

    private synchronized NodeProcess register(String nodeId, NodeProcess node) {
        started.add(node);
        running.put(nodeId, node);
        return node;
    }

    private NodeProcess launch(String nodeId) {
        int port;
        StringBuilder extra = new StringBuilder();
        synchronized (this) {
            Map<String, String> settings = new LinkedHashMap<>(clusterSettings);
            settings.putAll(nodeClusterSettings.getOrDefault(nodeId, Map.of()));
            settings.forEach((k, v) -> extra.append(", \"").append(k).append("\": ").append(v));
            if (running.containsKey(nodeId)) {
                throw new IllegalStateException(nodeId + " runs already");
            }
            port = ports.computeIfAbsent(nodeId, id -> freePort());
        }
        Path data = dir.resolve(nodeId);
        Duration session = sessionTimeouts.getOrDefault(nodeId, sessionTimeout);
        String config = """
                {"dataRegionInitialSize": "16m", "dataRegionMaxSize": "%s", "applyThreads": 2,%s
                 "persistence": {"directory": "%s", "walMode": "LOG_ONLY"},
                 "cluster": {"zookeeper": "%s", "name": "%s", "nodeId": "%s"%s%s}}
                """.formatted(System.getProperty("sluice.cluster.it.region", "384m"),
                fileKeys.isEmpty() ? "" : " " + fileKeys + ",", json(data.toString()), zookeeper(), name, nodeId,
                session == null ? "" : ", \"sessionTimeoutMillis\": " + session.toMillis(),
                (clusterKeys.isEmpty() ? "" : ", " + clusterKeys) + extra);
        List<String> jvm = new ArrayList<>(List.of("-Xmx" + System.getProperty("sluice.cluster.it.heap", "256m"),
                "-XX:+UseSerialGC"));
        String jvmArgs = System.getProperty("sluice.cluster.it.jvmArgs", "").strip(); // e.g. debug logging
        if (!jvmArgs.isEmpty()) {
            jvm.addAll(List.of(jvmArgs.split("\\s+")));
        }
        jvm.addAll(NodeClassArchive.jvmArgs(JAR, "cluster", this::classArchiveNodeConfig));
        return NodeProcess.start(JAR, List.of(), config, jvm, dir.resolve("logs"), List.of(), port);
    }

    /**
     * The config of the node that makes the cluster nodes' class archive ({@link NodeClassArchive}): it joins a
     * cluster of its own, of one partition, so that it loads what a member loads and this cluster never sees it.
     */
    private String classArchiveNodeConfig() {
        String cluster = name + "-class-archive";
        ClusterCreation.create(zookeeper(), cluster, 1, Duration.ofSeconds(1));
        return """
                {"dataRegionInitialSize": "16m", "dataRegionMaxSize": "64m",
                 "cluster": {"zookeeper": "%s", "name": "%s", "nodeId": "class-archive"}}
                """.formatted(zookeeper(), cluster);
    }

    /**
     * Starts the nodes at once and waits until each listens: they join together, so the first does not take every
     * partition only to hand two thirds on.
     */
    public void startAll(String... nodeIds) {
        List<java.util.concurrent.CompletableFuture<NodeProcess>> starts = new ArrayList<>();
        for (String id : nodeIds) {
            starts.add(java.util.concurrent.CompletableFuture.supplyAsync(() -> launch(id)));
        }
        RuntimeException failed = null;
        for (int i = 0; i < nodeIds.length; i++) {
            try {
                register(nodeIds[i], starts.get(i).join());
            } catch (RuntimeException e) {
                failed = failed == null ? e : failed;
            }
        }
        if (failed != null) {
            throw failed;
        }
    }

    /** SIGTERM and wait for the exit. @return its exit code */
    public int stop(String nodeId) {
        return running.remove(nodeId).stop();
    }

    /** kill -9. */
    public void kill(String nodeId) throws InterruptedException {
        synchronized (this) {
            paused.remove(nodeId);
        }
        running.remove(nodeId).kill();
    }

    /**
     * SIGSTOP: the node's process is frozen as by a long GC pause or a stopped VM; its sockets stay open, its
     * ZooKeeper session expires after its timeout. It stays among the running nodes.
     */
    public void pause(String nodeId) {
        signal(nodeId, "STOP");
        synchronized (this) {
            paused.add(nodeId);
        }
    }

    /** SIGCONT: a paused node runs on from where it was frozen. */
    public void resume(String nodeId) {
        signal(nodeId, "CONT");
        synchronized (this) {
            paused.remove(nodeId);
        }
    }

    private void signal(String nodeId, String signal) {
        NodeProcess node = running.get(nodeId);
        if (node == null || !node.isAlive()) {
            throw new IllegalStateException(nodeId + " is not running");
        }
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(node.pid())).inheritIO().start();
            if (!kill.waitFor(10, java.util.concurrent.TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + signal + " " + node.pid() + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while signalling " + nodeId, e);
        }
    }

    public NodeProcess node(String nodeId) {
        return running.get(nodeId);
    }

    /** The ids of the nodes running now (paused ones included), in start order. */
    public synchronized List<String> runningIds() {
        return List.copyOf(running.keySet());
    }

    /** The addresses of the nodes running now. */
    public String[] addresses() {
        return running.values().stream().map(NodeProcess::address).toArray(String[]::new);
    }

    /**
     * A client that knows every running node's address; its requests wait up to 90 s for a partition's owner (longer
     * than a node restarted within the rebalance delay is away).
     */
    public Sluice client() {
        return SluiceClient.connect(ClientConfig.builder().addresses(addresses())
                .requestTimeout(Duration.ofSeconds(90)).build());
    }

    /** The map as the given running node serves it. */
    public ClusterMap map(String nodeId) {
        try {
            return ProtocolProbe.map(running.get(nodeId).address());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The node's status JSON (NODE_STATUS). */
    public String status(String nodeId) {
        try {
            return ProtocolProbe.status(running.get(nodeId).address());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Waits until every running node serves one map (the same version) in which every partition has an owner and
     * the owners are exactly the running nodes.
     *
     * @return that map
     */
    public ClusterMap awaitSettled(Duration atMost) {
        long start = System.nanoTime();
        AtomicReference<String> last = new AtomicReference<>("no map yet");
        AtomicReference<ClusterMap> settled = new AtomicReference<>();
        try {
            await().atMost(atMost).pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(() -> {
                Map<String, ClusterMap> maps = new TreeMap<>();
                for (String id : running.keySet()) {
                    maps.put(id, map(id));
                }
                ClusterMap first = maps.values().iterator().next();
                Map<String, Integer> owned = partitionsPerOwner(first);
                last.set(describe(maps));
                if (maps.values().stream().allMatch(first::equals) && !owned.containsKey(null)
                        && owned.keySet().equals(running.keySet())) {
                    settled.set(first);
                    return true;
                }
                return false;
            });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("no settled map of " + running.keySet() + " within " + atMost + ": " + last.get(),
                    e);
        }
        System.out.printf("cluster %s: map version %d settled on %s after %.1f s%n", name, settled.get().version(),
                running.keySet(), (System.nanoTime() - start) / 1e9);
        return settled.get();
    }

    /** Partitions per owner id (null: partitions no node serves now), in id order. */
    public static Map<String, Integer> partitionsPerOwner(ClusterMap map) {
        Map<String, Integer> owned = new TreeMap<>((a, b) -> a == null ? (b == null ? 0 : -1)
                : b == null ? 1 : a.compareTo(b));
        for (int p = 0; p < map.partitions(); p++) {
            owned.merge(map.owner(p), 1, Integer::sum);
        }
        return owned;
    }

    /** The partitions whose owner differs between the two maps (by node id). */
    public static Set<Integer> movedPartitions(ClusterMap before, ClusterMap after) {
        Set<Integer> moved = new TreeSet<>();
        for (int p = 0; p < before.partitions(); p++) {
            if (!java.util.Objects.equals(before.owner(p), after.owner(p))) {
                moved.add(p);
            }
        }
        return moved;
    }

    private static String describe(Map<String, ClusterMap> maps) {
        StringBuilder out = new StringBuilder();
        maps.forEach((id, m) -> out.append(id).append(m == null ? " standalone" : " has map version " + m.version()
                + ", partitions per owner " + partitionsPerOwner(m)).append("; "));
        return out.toString();
    }

    /** The last 150 lines each node wrote, for a failing test's output. */
    public String logs() {
        StringBuilder out = new StringBuilder();
        for (NodeProcess node : started) {
            String[] lines = node.output().split("\n");
            out.append("---- node ").append(node.address()).append(" (pid ").append(node.pid()).append("), ")
                    .append(Math.min(150, lines.length)).append(" of ").append(lines.length).append(" lines\n");
            for (int i = Math.max(0, lines.length - 150); i < lines.length; i++) {
                out.append(lines[i]).append('\n');
            }
        }
        return out.toString();
    }

    @Override
    public void close() throws IOException {
        for (NodeProcess node : started) {
            node.close(); // kill -9 of what still runs: the test is over
        }
        running.clear();
        zookeeper.close();
    }

    private static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String json(String s) {
        return s.replace("\\", "\\\\").replace("\"", "\\\"");
    }
}
