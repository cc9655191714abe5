package io.sluice.cluster.internal;

/**
 * What the node does when Helix changes its role for a partition (state model MasterSlave: OFFLINE, SLAVE, MASTER,
 * DROPPED). Called on Helix's message threads, one transition of a partition at a time; a transition completes when
 * the method returns, and one that throws puts the partition in Helix's ERROR state on this node.
 *
 * <p>In a cluster without backups a partition has one replica: it goes OFFLINE -> SLAVE -> MASTER on its new owner
 * while its old owner goes MASTER -> SLAVE -> OFFLINE -> DROPPED; Helix demotes the old master before it promotes the
 * new one, so two nodes never both own a partition as far as Helix knows.
 */
public interface PartitionRoles {

    /** OFFLINE -> SLAVE: the node may hold the partition's data but serves nothing of it. */
    void follow(int partition) throws Exception;

    /**
     * SLAVE -> MASTER: returns once the node holds the partition whole and serves it (taking its entries from the
     * partition's last owner first if that was another node: {@link PartitionOwnerLog}).
     *
     * <p>Also called with no transition, on the membership's session thread, for each partition this node is still
     * MASTER of when its connection came back in the same session after {@link #sessionLost()} (Helix sends nothing
     * then: as far as it knows nothing changed), so the node serves those partitions again.
     */
    void lead(int partition) throws Exception;

    /** MASTER -> SLAVE: the node stops serving the partition (writes in flight finish first), keeps its data. */
    void stopLeading(int partition) throws Exception;

    /** SLAVE -> OFFLINE: nothing served; data kept until {@link #drop}. */
    void release(int partition) throws Exception;

    /** OFFLINE -> DROPPED: the partition is no longer this node's; its data goes once another node owns it. */
    void drop(int partition) throws Exception;

    /**
     * The node's ZooKeeper session expired, or it has been disconnected for a third of the session timeout (the
     * client notices silence after two thirds of it, so ZooKeeper may expire the session by then): another node may
     * own its partitions now, so it serves none of them until they come back, through transitions after an expiry
     * or through {@link #lead} when the same session is back (called on the membership's session thread).
     */
    void sessionLost();
}
