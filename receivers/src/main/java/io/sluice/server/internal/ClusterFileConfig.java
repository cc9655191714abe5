package io.sluice.server.internal;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.sluice.node.ClusterConfig;
import io.sluice.node.NodeOptions;

import java.time.Duration;

/**
 * The node file's {@code cluster} object ({@link NodeFileConfig}): the cluster the node joins. {@code zookeeper},
 * {@code name} and {@code nodeId} are required; the keys are {@code NodeOptions.CLUSTER}'s. Plain values: reading
 * them touches no class of the cluster module.
 */
public record ClusterFileConfig(String zookeeper, String name, String nodeId, String advertisedHost,
                                Long sessionTimeoutMillis, Integer maxConcurrentMoves, Long moveBytesPerSecond,
                                String moveMethod) {
    @JsonCreator
    public ClusterFileConfig(@JsonProperty("zookeeper") String zookeeper, @JsonProperty("name") String name,
                             @JsonProperty("nodeId") String nodeId,
                             @JsonProperty("advertisedHost") String advertisedHost,
                             @JsonProperty("sessionTimeoutMillis") Long sessionTimeoutMillis,
                             @JsonProperty("maxConcurrentMoves") Integer maxConcurrentMoves,
                             @JsonProperty("moveBytesPerSecond") Long moveBytesPerSecond,
                             @JsonProperty("moveMethod") String moveMethod) {
        this.zookeeper = zookeeper;
        this.name = name;
        this.nodeId = nodeId;
        this.advertisedHost = advertisedHost;
        this.sessionTimeoutMillis = sessionTimeoutMillis;
        this.maxConcurrentMoves = maxConcurrentMoves;
        this.moveBytesPerSecond = moveBytesPerSecond;
        this.moveMethod = moveMethod;
    }

    /** The config it describes. @throws IllegalArgumentException naming the key of a missing or bad value */
    ClusterConfig config() {
        require(NodeOptions.ZOOKEEPER, zookeeper, "ZooKeeper's address, host:port[,host:port...]");
        require(NodeOptions.CLUSTER_NAME, name, "the cluster's name (made with create-cluster)");
        require(NodeOptions.NODE_ID, nodeId, "this node's id, unique in the cluster");
        ClusterConfig config;
        try {
            config = ClusterConfig.of(zookeeper, name, nodeId);
        } catch (IllegalArgumentException e) {
            // Its message starts with the setting it refuses ("nodeId is 'a/b'; ...").
            String key = java.util.stream.Stream.of(NodeOptions.ZOOKEEPER, NodeOptions.CLUSTER_NAME,
                    NodeOptions.NODE_ID).map(NodeOptions.Option::fileKey)
                    .filter(k -> String.valueOf(e.getMessage()).startsWith(k + " ")).findFirst().orElse("");
            throw new IllegalArgumentException("key 'cluster" + (key.isEmpty() ? "" : "." + key) + "': "
                    + e.getMessage(), e);
        }
        if (advertisedHost != null) {
            config = set(NodeOptions.ADVERTISED_HOST, config, c -> c.withAdvertisedHost(advertisedHost));
        }
        if (sessionTimeoutMillis != null) {
            config = set(NodeOptions.SESSION_TIMEOUT, config,
                    c -> c.withSessionTimeout(Duration.ofMillis(sessionTimeoutMillis)));
        }
        if (maxConcurrentMoves != null) {
            config = set(NodeOptions.MAX_CONCURRENT_MOVES, config, c -> c.withMaxConcurrentMoves(maxConcurrentMoves));
        }
        if (moveBytesPerSecond != null) {
            config = set(NodeOptions.MOVE_BYTES_PER_SECOND, config,
                    c -> c.withMoveBytesPerSecond(moveBytesPerSecond));
        }
        if (moveMethod != null) {
            config = set(NodeOptions.MOVE_METHOD, config, c -> c.withMoveMethod(moveMethodOf(moveMethod)));
        }
        return config;
    }

    private static ClusterConfig.MoveMethod moveMethodOf(String value) {
        try {
            return ClusterConfig.MoveMethod.valueOf(value.trim().toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(NodeOptions.MOVE_METHOD.name() + " is '" + value + "'; it must "
                    + NodeOptions.MOVE_METHOD.bounds());
        }
    }

    private static void require(NodeOptions.Option<String> option, String value, String what) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("key 'cluster." + option.fileKey() + "' is "
                    + (value == null ? "missing" : "blank") + "; a cluster node needs " + what);
        }
    }

    private static ClusterConfig set(NodeOptions.Option<?> option, ClusterConfig config,
                                     java.util.function.UnaryOperator<ClusterConfig> setter) {
        try {
            return setter.apply(config);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("key 'cluster." + option.fileKey() + "': " + e.getMessage(), e);
        }
    }
}
