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

    /**
     * Whether this node's ZooKeeper session is known to be alive: a read on it was answered, confirming this
     * node's live instance, and that read was sent less than half the session timeout ago (monotonic clock). False
     * at once when the connection is lost or the session expired, and until the next read is answered. A primary
     * acknowledges a write only while this is true (checked at the moment it acknowledges): another node can only
     * have been promoted in its place after its session expired, at least a whole session timeout after the last
     * read it answered.
     */
    boolean leaseValid();

    /**
     * This node's ZooKeeper session now (0 before it connected, or where sessions are not ZooKeeper's): what a
     * partition's leadership is tagged with when the node takes it, so that {@link #leaseHeldBy} can tell a lease
     * of a LATER session (after an expiry) from the one the partition was given under.
     */
    default long sessionId() {
        return 0;
    }

    /**
     * Whether the lease is valid ({@link #leaseValid}) and held by this session: false for a lease of another
     * session. A partition led under a session that expired may not be acknowledged for under the next one before
     * Helix gives it again (a paused primary resumes, gets a new session and a lease at once, while its old
     * leadership is not yet revoked on this node).
     */
    default boolean leaseHeldBy(long session) {
        return leaseValid();
    }

    /**
     * Raises the replica count of the cluster's partitions (1 primary + backups) to at least {@code replicas};
     * never lowers it. Helix then places the extra replicas (SLAVE) on other nodes, by the rendezvous order.
     *
     * @throws IllegalArgumentException if replicas is not in 1..4
     * @throws RuntimeException         if ZooKeeper could not be written to
     */
    void ensureReplicas(int replicas);

    /** Leaves the cluster. Idempotent. */
    @Override
    void close();
}
