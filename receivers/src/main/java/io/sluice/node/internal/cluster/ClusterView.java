package io.sluice.node.internal.cluster;

import io.sluice.protocol.internal.ClusterMap;
import io.sluice.protocol.internal.NotOwnerException;
import io.sluice.protocol.internal.ReplicaCodec;

import java.util.List;
import java.util.function.Consumer;

/**
 * What the server asks of the cluster for each request: the map to serve to clients and whether this node serves a
 * partition now. A standalone node has none (the server serves every partition of its caches).
 *
 * <p>Writes enter and exit a partition so that a node giving a partition up ({@code stopLeading}) waits for the
 * writes it already accepted before the next owner reads the partition: nothing accepted is left behind.
 */
public interface ClusterView {

    /** The current map; before the node has joined, a map in which it serves nothing. */
    ClusterMap map();

    /**
     * Passes if this node serves the partition now (it owns it and holds it whole). For reads.
     *
     * @throws NotOwnerException naming the partition, this node and its map version otherwise
     */
    void checkServes(int partition);

    /**
     * Passes if this node serves the partition now or backs it (one of its backups that caught up): for scans of a
     * cache with backups, which a {@code readFromBackup} client may send to a backup. A backup may lag its primary
     * by the writes not acknowledged yet under PRIMARY_SYNC or FULL_ASYNC.
     *
     * @throws NotOwnerException naming the partition, this node and its map version otherwise
     */
    default void checkServesOrBacks(int partition) {
        checkServes(partition);
    }

    /**
     * Admits a write to the partition: passes as {@link #checkServes} does, and then the caller must call
     * {@link #exit} once the write was applied or failed.
     *
     * @throws NotOwnerException as {@link #checkServes}
     */
    void enter(int partition);

    /** Ends a write admitted by {@link #enter}. */
    void exit(int partition);

    /** True if this node serves the partition now (size counts only what a node serves). */
    boolean serves(int partition);

    /**
     * Whether a write to the partition that was applied may be acknowledged now: this node's ZooKeeper lease is
     * valid and no backup refused its records of the partition as stale (issue 27). Checked at the moment of the
     * acknowledgement; false means answer NOT_OWNER.
     */
    default boolean mayAcknowledge(int partition) {
        return true;
    }

    /**
     * Runs {@code done} once every backup in sync for the partition acknowledged the records made so far (the
     * FULL_SYNC barrier; at once without one). Never blocks.
     */
    default void whenReplicated(int partition, Runnable done) {
        done.run();
    }

    /**
     * REPLICATE: applies a primary's records in order and calls {@code done} with the partitions refused.
     *
     * @throws IllegalStateException if this node does not replicate (not a cluster member)
     */
    default void replicate(ReplicaCodec.Frame frame, Consumer<List<ReplicaCodec.Refusal>> done) {
        throw new IllegalStateException("this node takes no replicated records");
    }

    /**
     * REPLICA_FOLLOW: a member follows a partition this node leads. @return the epoch and the follow's ticket
     *
     * @throws NotOwnerException if this node does not lead it
     */
    default long[] followedBy(String member, int partition) {
        throw new NotOwnerException("this node leads no partition");
    }

    /** REPLICA_SYNCED: a member following a partition caught up. @throws NotOwnerException if not led here */
    default void syncedBy(String member, int partition, long epoch, long ticket) {
        throw new NotOwnerException("this node leads no partition");
    }

    /** The node's cluster status as a JSON object (members, map version, partitions and entries served, moves). */
    String statusJson();
}
