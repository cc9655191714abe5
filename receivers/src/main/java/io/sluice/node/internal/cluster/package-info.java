/**
 * The node's side of a cluster: which partitions it serves now, taking a partition over from its last owner (entry
 * by entry), the cluster-wide caches and types applied to the local node, the map served to clients. Built on
 * {@code io.sluice.cluster.internal} (Helix and ZooKeeper, reached only when the node is configured for a cluster)
 * and the node; the server sees it through {@link io.sluice.node.internal.cluster.ClusterView}.
 */
package io.sluice.node.internal.cluster;
