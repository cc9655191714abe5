package io.sluice.server.internal;

import io.sluice.cluster.internal.ClusterSettings;
import io.sluice.node.ClusterConfig;
import io.sluice.node.NodeOptions;
import io.sluice.node.internal.NodeEngine;
import io.sluice.node.internal.cluster.ClusterNode;
import io.sluice.node.internal.cluster.ClusterView;
import io.sluice.node.internal.cluster.PeerAccess;

import java.net.InetSocketAddress;

/**
 * The node process's membership of its cluster (the file's {@code "cluster"}): the one class of the server's
 * package that touches the cluster module ({@code sluice-cluster}, an optional dependency of the node, in
 * {@code sluice-node.jar}). {@link NodeMain} reaches it only when the config has a cluster, so a standalone node
 * runs without Helix and ZooKeeper on its class path.
 *
 * <p>Order: {@link #check} before the node starts (a bad config costs nothing), the {@link ClusterNode} made
 * before the server starts (the server asks it what it serves: nothing until it has joined), {@link #join} once
 * the server's port is known, {@link #close} (leave the cluster) before the server drains.
 */
final class ClusterJoin implements AutoCloseable {

    private static final String SETTINGS_CLASS = "io.sluice.cluster.internal.ClusterSettings";

    private final ClusterConfig config;
    private final String host;
    private final ClusterNode member;

    private ClusterJoin(ClusterConfig config, String host, ClusterNode member) {
        this.config = config;
        this.host = host;
        this.member = member;
    }

    /**
     * Checks, before the node starts, that it can be a member: the cluster module is on the class path, and
     * the node has an address the others can dial.
     *
     * @param server the server's config: the host it listens on
     * @return the host the node is advertised at: the config's, else the one it listens on
     * @throws IllegalArgumentException naming what is missing
     */
    static String check(ClusterConfig config, ServerConfig server) {
        String listenHost = server.host();
        try {
            Class.forName(SETTINGS_CLASS, false, ClusterJoin.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalArgumentException("key 'cluster' needs the cluster module, which is not on the node's"
                    + " class path (add io.sluice:sluice-cluster; sluice-node.jar has it): " + e);
        }
        if (config.advertisedHost().isPresent()) {
            return config.advertisedHost().get();
        }
        if (ClusterConfig.isWildcard(listenHost)) {
            throw new IllegalArgumentException("key 'cluster." + NodeOptions.ADVERTISED_HOST.fileKey() + "' is missing:"
                    + " the node listens on " + listenHost + " (every address), so the other nodes and the clients"
                    + " need to be told which address to dial");
        }
        return listenHost;
    }

    /**
     * The node's membership, not joined yet: the server's view of what the node serves. It reaches the other
     * members as their clients do: the members share the server's token and TLS (trusting the certificates the
     * JVM's trust store trusts).
     *
     * @throws IllegalArgumentException as {@link #check}
     */
    static ClusterJoin create(NodeEngine node, ClusterConfig config, ServerConfig server) {
        String host = check(config, server);
        ClusterNode member = new ClusterNode(node)
                .peerAccess(new PeerAccess(server.token(), server.tls() != null, null))
                .maxConcurrentMoves(config.maxConcurrentMoves());
        return new ClusterJoin(config, host, member);
    }

    /** What the server asks for each request. */
    ClusterView view() {
        return member;
    }

    /**
     * Joins the cluster, advertising the server's bound port.
     *
     * @throws IllegalStateException naming the ZooKeeper address or the cluster when the node cannot join
     */
    void join(InetSocketAddress server) {
        member.join(settings(config, host, server.getPort()));
    }

    /** The cluster module's settings for this node. */
    static ClusterSettings settings(ClusterConfig config, String host, int port) {
        return new ClusterSettings(config.zookeeper(), config.name(), config.nodeId(), host, port,
                config.sessionTimeout());
    }

    /** The member for the start log: its id, cluster and advertised address. */
    String describe(InetSocketAddress server) {
        return "'" + config.nodeId() + "' of cluster '" + config.name() + "' (advertised at " + host + ":"
                + server.getPort() + ")";
    }

    /** Leaves the cluster. Idempotent. */
    @Override
    public void close() {
        member.close();
    }
}
