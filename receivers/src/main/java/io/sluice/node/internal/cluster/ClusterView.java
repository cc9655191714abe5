package io.sluice.node.internal.cluster;

import io.sluice.protocol.internal.ClusterMap;
import io.sluice.protocol.internal.NotOwnerException;

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

    /** The node's cluster status as a JSON object (members, map version, partitions and entries served, moves). */
    String statusJson();
}
