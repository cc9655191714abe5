package io.sluice.cluster.internal;

import io.sluice.protocol.internal.ClusterMap;

import java.util.function.Consumer;

/**
 * This node's place in the cluster: connected to ZooKeeper as a Helix controller-participant, it receives role
 * changes for its partitions ({@link PartitionRoles}) and keeps the current partition map. Closing it leaves the
 * cluster (the session ends at once: its partitions move or wait out the rebalance delay).
 */
public interface ClusterMembership extends AutoCloseable {

    /** This node's id in the cluster. */
    String nodeId();

    /** The current map (Helix's external view with the members' addresses); never null once joined. */
    ClusterMap map();

    /** Called with each new map, on a Helix thread. */
    void onMapChange(Consumer<ClusterMap> listener);

    ClusterCatalogue catalogue();

    PartitionOwnerLog owners();

    /** Leaves the cluster. Idempotent. */
    @Override
    void close();
}
