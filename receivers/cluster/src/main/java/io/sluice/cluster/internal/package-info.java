/**
 * The cluster's coordination on Apache Helix and ZooKeeper, and nothing of the node: membership (a Helix
 * controller-participant per node), the partition map (rendezvous hashing as a Helix rebalance strategy, read back
 * from the external view), partition role changes handed to the node ({@link io.sluice.cluster.internal.PartitionRoles}),
 * the cluster-wide catalogue of caches and binary types, and the last owner of each partition. The node's side of
 * the cluster (serving, moving partitions) is {@code io.sluice.node.internal.cluster}; this package sees only the SDK.
 */
package io.sluice.cluster.internal;
