/**
 * The cluster's coordination on Apache Helix and ZooKeeper, and nothing of the node: membership (a Helix
 * controller-participant per node), the partition map (rendezvous hashing as a Helix rebalance strategy, read back
 * from the external view), partition role changes handed to the node ({@link io.sluice.cluster.internal.PartitionRoles}),
 * the cluster-wide catalogue of caches and binary types, and the last owner and epoch of each partition. The node's side of
 * the cluster (serving, moving partitions) is {@code io.sluice.node.internal.cluster}; this package sees only the SDK.
 *
 * <p>The classes, in the order a node meets them:
 * <ul>
 * <li>{@link io.sluice.cluster.internal.ZooKeeperServerRunner}: a standalone ZooKeeper for trying a cluster on one
 *     machine.</li>
 * <li>{@link io.sluice.cluster.internal.ClusterSetup}: creates the cluster (resource {@code sluice}, P partitions,
 *     MasterSlave, FULL_AUTO, delayed rebalance); {@link io.sluice.cluster.internal.ZkAccess} opens every
 *     ZooKeeper client with bounded waits; {@link io.sluice.cluster.internal.ClusterPaths} names the znodes.</li>
 * <li>{@link io.sluice.cluster.internal.HelixMembership#join}: checks the cluster and the id, publishes the
 *     node's address (InstanceConfig), connects a {@link io.sluice.cluster.internal.MembershipManager}
 *     (controller-participant; {@link io.sluice.cluster.internal.HelixThreads} lets the process exit after it).</li>
 * <li>{@link io.sluice.cluster.internal.RendezvousPlacement}: where the leading controller puts each partition.</li>
 * <li>{@link io.sluice.cluster.internal.PartitionStateModel}: a partition's transitions on this node, to
 *     {@link io.sluice.cluster.internal.PartitionRoles}.</li>
 * <li>{@link io.sluice.cluster.internal.MapView}: the external view as a
 *     {@link io.sluice.protocol.internal.ClusterMap}.</li>
 * <li>{@link io.sluice.cluster.internal.SessionWatch}: a lost or expired session, and the same session back;
 *     {@link io.sluice.cluster.internal.SessionLease}: the lease a primary acknowledges under.</li>
 * <li>{@link io.sluice.cluster.internal.ZkCatalogue} and {@link io.sluice.cluster.internal.ZkOwnerLog} (last owners
 *     and epochs, by compare-and-set): Sluice's own data in ZooKeeper.</li>
 * </ul>
 */
package io.sluice.cluster.internal;
