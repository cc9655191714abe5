package io.sluice.server.internal;

import io.sluice.node.ClusterConfig;
import io.sluice.node.NodeConfig;
import io.sluice.node.internal.NodeEngine;
import io.sluice.node.internal.cluster.MemberTls;
import io.sluice.server.internal.command.CreateClusterCommand;
import io.sluice.server.internal.command.StatusCommand;
import io.sluice.server.internal.command.ZooKeeperCommand;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * The node as its own process: {@code java -jar receivers/target/sluice-node.jar [--config node.json]
 * [--host H] [--port P] [--metrics-port M]}. Prints {@code sluice-node listening on HOST:PORT} once it
 * accepts connections (a cluster member: once it has also joined its cluster, {@link ClusterJoin}). Its metrics
 * are MBeans, and Prometheus text with a metrics port (docs/metrics.md). On SIGTERM (or Ctrl-C) it leaves its
 * cluster if it is a member, stops taking requests, lets every batch in flight finish or fail with its cause,
 * answers them, and exits 0. Exit 2 with a message for a bad config or a failed join. The jar's other commands
 * ({@code zookeeper}, {@code create-cluster}, {@code status}) are the subcommands, in {@code command}.
 */
@Command(name = "sluice-node", mixinStandardHelpOptions = true, version = "sluice-node 0.1",
        description = "Runs a Sluice node that serves remote clients over TCP.",
        subcommands = {ZooKeeperCommand.class, CreateClusterCommand.class, StatusCommand.class})
public final class NodeMain implements Callable<Integer> {

    private static final Logger LOG = LoggerFactory.getLogger(NodeMain.class);

    @Option(names = "--config", paramLabel = "FILE", description = "The node's JSON config file (see docs/protocol.md).")
    Path config;

    @Option(names = "--host", paramLabel = "HOST", description = "Address to listen on (default: the config's, else 127.0.0.1).")
    String host;

    @Option(names = "--port", paramLabel = "PORT", description = "Port to listen on; 0 = any free port (default: the config's, else 10800).")
    Integer port;

    @Option(names = "--metrics-port", paramLabel = "PORT", description = "Serve Prometheus metrics at"
            + " http://HOST:PORT/metrics on the node's host; 0 = any free port (default: the config's metricsPort,"
            + " else off). JMX MBeans are always registered.")
    Integer metricsPort;

    /** How long a stop waits for the node to leave its cluster. */
    static final Duration LEAVE_BOUND = Duration.ofSeconds(15);

    private final CountDownLatch stopped = new CountDownLatch(1);

    public static void main(String[] args) {
        quietClusterLibraries();
        int code = new CommandLine(new NodeMain()).execute(args);
        if (code != 0) {
            System.exit(code);
        }
    }

    /**
     * Helix logs hundreds of lines per run at INFO and WARN (and the controller ERROR until members join), the
     * ZooKeeper client a few per connection and, while its server does not answer, a warning with a stack trace
     * per second (the node's own message names the address when it gives up): the node's log keeps ZooKeeper's
     * warnings and errors and Helix's errors only, unless a {@code -Dorg.slf4j.simpleLogger.log.*} property says
     * otherwise. Set before their loggers exist.
     */
    static void quietClusterLibraries() {
        setIfAbsent("org.slf4j.simpleLogger.log.org.apache.helix", "error");
        setIfAbsent("org.slf4j.simpleLogger.log.org.apache.zookeeper", "warn");
        setIfAbsent("org.slf4j.simpleLogger.log.org.apache.zookeeper.ClientCnxn", "error");
        // The single server of the zookeeper command warns that it has no connection limit configured.
        setIfAbsent("org.slf4j.simpleLogger.log.org.apache.zookeeper.server.ServerCnxnFactory", "error");
    }

    private static void setIfAbsent(String property, String value) {
        if (System.getProperty(property) == null) {
            System.setProperty(property, value);
        }
    }

    @Override
    public Integer call() throws Exception {
        NodeFileConfig file;
        NodeEngine node;
        ServerConfig serverConfig;
        ClusterConfig clusterConfig;
        String advertised = null;
        MetricsExport metrics = null;
        try {
            file = config == null ? NodeFileConfig.empty() : NodeFileConfig.read(config);
            serverConfig = file.serverConfig(host, port);
            NodeConfig nodeConfig = file.nodeConfig();
            clusterConfig = nodeConfig.cluster().orElse(null);
            if (clusterConfig != null) {
                advertised = ClusterJoin.check(clusterConfig, serverConfig); // before anything starts
            }
            Integer httpPort = file.metricsPort(metricsPort);
            metrics = MetricsExport.start(serverConfig.host(), httpPort);
            node = new NodeEngine(nodeConfig, metrics.registry());
        } catch (IllegalArgumentException | IllegalStateException e) {
            if (metrics != null) {
                metrics.close();
            }
            System.err.println("sluice-node: " + e.getMessage());
            return 2;
        }
        SluiceServer server;
        ClusterJoin cluster = null;
        try {
            if (clusterConfig != null) {
                cluster = ClusterJoin.create(node, clusterConfig, serverConfig);
            }
            // The file's caches are in file.nodeConfig(): the node created them, or put recovered ones in front of
            // their stores, as it started. A member serves nothing until it has joined.
            server = SluiceServer.start(node, serverConfig, cluster == null ? null : cluster.view());
        } catch (RuntimeException e) {
            System.err.println("sluice-node: " + e.getMessage());
            if (cluster != null) {
                cluster.close();
            }
            node.close();
            metrics.close();
            return 2;
        }
        if (cluster != null) {
            try {
                cluster.join(server.address());
            } catch (RuntimeException | LinkageError e) {
                System.err.println("sluice-node: " + (e instanceof LinkageError ? e.toString() : e.getMessage()));
                cluster.close();
                server.close();
                node.close();
                server.closeConnections();
                metrics.close();
                return 2;
            }
        }
        MetricsExport export = metrics;
        ClusterJoin member = cluster;
        // The page asks this node itself: over loopback if it listens on every address, but through TLS at the
        // address it advertises (which its certificate must name for the members already).
        String selfHost = ClusterConfig.isWildcard(server.address().getHostString()) ? "127.0.0.1"
                : server.address().getHostString();
        SSLContext pageTls = null;
        if (serverConfig.tls() != null) {
            if (advertised != null) {
                selfHost = advertised;
            }
            try {
                pageTls = MemberTls.trusting(null);
            } catch (IOException e) {
                LOG.warn("the status page cannot reach members through TLS: {}", e.getMessage());
            }
        }
        export.serveStatusPage(new StatusPage(new io.sluice.client.internal.Address(selfHost,
                server.address().getPort()), serverConfig.token(), pageTls));
        onStopSignal(() -> stop(member, node, server, export));
        LOG.info("node {} started: {}, {}", member == null ? node.id() : member.describe(server.address()),
                node.config(), file.describe());
        if (export.httpAddress() != null) {
            LOG.info("metrics: Prometheus text at http://{}:{}/metrics, MBeans in JMX domain '{}'; status page at"
                    + " http://{}:{}/status", export.httpAddress().getHostString(), export.httpAddress().getPort(),
                    MetricsExport.JMX_DOMAIN, export.httpAddress().getHostString(), export.httpAddress().getPort());
        } else {
            LOG.info("metrics: MBeans in JMX domain '{}' (no --metrics-port: no HTTP endpoint)", MetricsExport.JMX_DOMAIN);
        }
        System.out.println("sluice-node listening on " + server.address().getHostString() + ":"
                + server.address().getPort());
        System.out.flush();
        stopped.await();
        return 0;
    }

    /**
     * Leaves the cluster (its partitions move, or wait out the rebalance delay, at once rather than after the
     * session timeout), then drains and stops: no new requests; batches in flight finish and are answered; then the
     * connections close.
     */
    private void stop(ClusterJoin cluster, NodeEngine node, SluiceServer server, MetricsExport metrics) {
        if (cluster != null) {
            LOG.info("stopping: leaving the cluster");
            leave(cluster);
        }
        LOG.info("stopping: no new requests; finishing the batches in flight");
        server.close();
        try {
            node.close();
        } catch (RuntimeException e) {
            LOG.warn("closing the node: {}", e.toString());
        }
        server.closeConnections();
        metrics.close();
        LOG.info("stopped");
        stopped.countDown();
    }

    /**
     * Leaves the cluster, waiting at most {@link #LEAVE_BOUND}: a stop must end even when ZooKeeper is gone (then the
     * cluster notices the node's absence when its session times out). Helix's threads left behind end with the JVM.
     */
    private static void leave(ClusterJoin cluster) {
        Thread leaving = new Thread(() -> {
            try {
                cluster.close();
            } catch (RuntimeException e) {
                LOG.warn("leaving the cluster: {}", e.toString());
            }
        }, "sluice-node-leave");
        leaving.setDaemon(true);
        leaving.start();
        try {
            leaving.join(LEAVE_BOUND.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (leaving.isAlive()) {
            LOG.warn("leaving the cluster did not end within {} s (is ZooKeeper reachable?); stopping without it:"
                    + " the cluster sees this node go when its session times out", LEAVE_BOUND.toSeconds());
        }
    }

    /**
     * Runs the stop on SIGTERM and SIGINT and then exits 0: a node asked to stop that stopped cleanly
     * succeeded. (A plain shutdown hook would leave the JVM's 143.) {@code sun.misc.Signal} is reached
     * reflectively: it lives in jdk.unsupported; if it is missing, a shutdown hook still drains.
     */
    private void onStopSignal(Runnable stop) {
        Thread hook = new Thread(stop, "sluice-node-stop");
        try {
            Class<?> signal = Class.forName("sun.misc.Signal");
            Class<?> handler = Class.forName("sun.misc.SignalHandler");
            Object h = java.lang.reflect.Proxy.newProxyInstance(handler.getClassLoader(), new Class<?>[]{handler},
                    (proxy, method, args) -> {
                        if (method.getName().equals("handle")) {
                            new Thread(() -> {
                                stop.run();
                                System.exit(0);
                            }, "sluice-node-signal").start();
                        }
                        return null;
                    });
            for (String name : new String[]{"TERM", "INT"}) {
                Object sig = signal.getConstructor(String.class).newInstance(name);
                signal.getMethod("handle", signal, handler).invoke(null, sig, h);
            }
        } catch (ReflectiveOperationException | LinkageError e) {
            Runtime.getRuntime().addShutdownHook(hook);
        }
    }
}
