package io.sluice.node.internal.cluster;

import io.sluice.cluster.internal.ClusterMembership;

/** The parts of a node that has joined its cluster, made once its membership gave the first map. */
record ClusterParts(ClusterMembership membership, ServedPartitions served, LocalPartitions local, MoveStats moves,
                    PeerConnections peers, CatalogueSync caches, TypesSync types, PartitionTakeover takeover,
                    RetiredPartitions retired, ReplicaLinks links, PrimaryReplication primary,
                    BackupReplication backup, PartitionBuild build, PartitionFileSupplier files) {
}
