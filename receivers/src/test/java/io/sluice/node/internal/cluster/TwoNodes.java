package io.sluice.node.internal.cluster;

import io.sluice.cluster.internal.ClusterSettings;
import io.sluice.node.NodeConfig;
import io.sluice.node.internal.NodeEngine;
import io.sluice.server.internal.ServerConfig;
import io.sluice.server.internal.SluiceServer;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/** Real nodes in this JVM (engine, server on 127.0.0.1 port 0, cluster node) joined to an {@link InMemoryCluster}. */
final class TwoNodes implements AutoCloseable {

    /** One member: its engine, server and cluster node. */
    record Node(String id, NodeEngine engine, SluiceServer server, ClusterNode cluster) {
    }

    final InMemoryCluster cluster;
    private final List<Node> nodes = new ArrayList<>();

    TwoNodes(int partitions) {
        this.cluster = new InMemoryCluster(partitions);
    }

    Node start(String id) {
        return start(id, b -> b);
    }

    Node start(String id, UnaryOperator<NodeConfig.Builder> config) {
        return start(id, config, n -> { });
    }

    /** A node whose cluster node {@code beforeJoin} sets up before it joins. */
    Node start(String id, UnaryOperator<NodeConfig.Builder> config,
               java.util.function.Consumer<ClusterNode> beforeJoin) {
        return start(id, config, s -> s, beforeJoin);
    }

    /** A node whose server config {@code server} adjusts (TLS, a token). */
    Node start(String id, UnaryOperator<NodeConfig.Builder> config, UnaryOperator<ServerConfig> serverConfig,
               java.util.function.Consumer<ClusterNode> beforeJoin) {
        NodeEngine engine = new NodeEngine(config.apply(NodeConfig.builder().dataRegionMaxSize(128L << 20)
                .applyThreads(2)).build());
        ClusterNode clusterNode = new ClusterNode(engine, cluster.joiner());
        SluiceServer server;
        try {
            server = SluiceServer.start(engine, serverConfig.apply(ServerConfig.defaults().withHost("127.0.0.1")
                    .withPort(0)), clusterNode);
        } catch (RuntimeException e) {
            engine.close();
            throw e;
        }
        Node node = new Node(id, engine, server, clusterNode);
        nodes.add(node);
        beforeJoin.accept(clusterNode);
        clusterNode.join(new ClusterSettings("in-memory", "test", id, "127.0.0.1", server.address().getPort(),
                ClusterSettings.DEFAULT_SESSION_TIMEOUT));
        return node;
    }

    /** Stops a node as a process stop would: leaves the cluster, closes the server and the engine. */
    void stop(Node node) {
        nodes.remove(node);
        close(node);
    }

    private static void close(Node node) {
        try {
            node.cluster().close();
        } finally {
            try {
                node.server().close();
            } finally {
                node.engine().close();
            }
        }
    }

    @Override
    public void close() {
        RuntimeException first = null;
        for (Node n : nodes) {
            try {
                close(n);
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        nodes.clear();
        if (first != null) {
            throw first;
        }
    }
}
