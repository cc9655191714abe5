package io.sluice.cluster.internal;

import java.time.Duration;
import java.util.Objects;

/**
 * How a node joins its cluster.
 *
 * @param zookeeper      ZooKeeper's connect string ({@code host:port[,host:port...]})
 * @param clusterName    the Helix cluster, created beforehand (create-cluster)
 * @param nodeId         this node's id in the cluster: unique among its members
 * @param host           where clients and other nodes reach this node's Sluice port
 * @param port           this node's Sluice port
 * @param sessionTimeout ZooKeeper session timeout: how long a silent node keeps its partitions
 */
public record ClusterSettings(String zookeeper, String clusterName, String nodeId, String host, int port,
                              Duration sessionTimeout) {

    /** Helix's default is 30 s; a lower one fails over faster and ZooKeeper's server clamps it to its tick range. */
    public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(10);

    public ClusterSettings {
        Objects.requireNonNull(zookeeper, "zookeeper");
        Objects.requireNonNull(clusterName, "clusterName");
        Objects.requireNonNull(nodeId, "nodeId");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(sessionTimeout, "sessionTimeout");
    }
}
