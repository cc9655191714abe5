/**
 * The node's side of a cluster: which partitions it serves now, taking a partition over from its last owner (entry
 * by entry), the cluster-wide caches and types applied to the local node, the map served to clients. Built on
 * {@code io.sluice.cluster.internal} (Helix and ZooKeeper, reached only when the node is configured for a cluster)
 * and the node; the server sees it through {@link io.sluice.node.internal.cluster.ClusterView}.
 *
 * <p>The classes, in the order a partition meets them:
 * <ul>
 *   <li>{@link io.sluice.node.internal.cluster.ClusterNode}: joins, wires the parts, the server's view and its way
 *       to create and destroy caches cluster-wide;</li>
 *   <li>{@link io.sluice.node.internal.cluster.NodeRoles}: Helix's role changes handed to the parts below;</li>
 *   <li>{@link io.sluice.node.internal.cluster.PartitionTakeover}: SLAVE -> MASTER, pulling the partition from its
 *       last owner through {@link io.sluice.node.internal.cluster.PeerConnections} (PARTITION_SCAN; only the caches
 *       without backups when this node was a backup in sync), then recording itself as owner (a new epoch);</li>
 *   <li>{@link io.sluice.node.internal.cluster.ServedPartitions}: the gate, served flags and writes in flight;</li>
 *   <li>{@link io.sluice.node.internal.cluster.PrimaryReplication}: a primary's writes of replicated caches (the
 *       node's journal tap) into one {@link io.sluice.node.internal.cluster.BackupStream} per backup (REPLICATE),
 *       the followers in sync and the FULL_SYNC barrier, fencing on a stale epoch;</li>
 *   <li>{@link io.sluice.node.internal.cluster.BackupReplication}: a backup catching up (REPLICA_FOLLOW, a pull by
 *       {@link io.sluice.node.internal.cluster.PartitionPull}, the buffer, REPLICA_SYNCED) and applying records in
 *       order; {@link io.sluice.node.internal.cluster.ReplicaLinks}: the members' connections for it;</li>
 *   <li>{@link io.sluice.node.internal.cluster.LocalPartitions}: a partition of every local cache, applied to and
 *       cleared through the log;</li>
 *   <li>{@link io.sluice.node.internal.cluster.RetiredPartitions}: dropping the copy of a partition another member
 *       owns now, on the background thread;</li>
 *   <li>{@link io.sluice.node.internal.cluster.CatalogueSync} and {@link io.sluice.node.internal.cluster.TypesSync}:
 *       the catalogue's caches ({@link io.sluice.node.internal.cluster.CacheDescription}) and types on this node;</li>
 *   <li>{@link io.sluice.node.internal.cluster.MoveStats} and {@link io.sluice.node.internal.cluster.ClusterStatus}:
 *       meters and the status document; {@link io.sluice.node.internal.cluster.MemberChanges}: the log of members
 *       joining and leaving.</li>
 * </ul>
 */
package io.sluice.node.internal.cluster;
