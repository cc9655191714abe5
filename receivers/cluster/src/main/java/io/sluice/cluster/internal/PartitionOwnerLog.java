package io.sluice.cluster.internal;

/**
 * Per partition, the node that last served it as its owner (its primary) and the partition's epoch, kept in
 * ZooKeeper: what a node taking a partition over reads to know where its entries are (a join moves a partition from
 * its last owner; a node restarting within the rebalance delay finds it was the last owner and keeps its own data),
 * and the generation that fences a stale primary (every replicated record carries its primary's epoch; a backup
 * refuses records of an epoch lower than the highest it knows).
 */
public interface PartitionOwnerLog {

    /** The id of the partition's last owner, or null if no node has owned it yet. */
    String lastOwner(int partition);

    /**
     * Records this node as the partition's owner and bumps the partition's epoch, atomically (one versioned write):
     * called by the node each time it becomes the partition's primary, before it serves the partition.
     *
     * @return the partition's new epoch: greater than every epoch returned before for this partition, by any node,
     *         also across restarts of the nodes and of ZooKeeper (it lives in ZooKeeper's data)
     * @throws RuntimeException if ZooKeeper could not be written to within the client's operation timeout (nothing
     *                          is recorded then, or the record is already visible: a retry bumps again)
     */
    long recordOwner(int partition, String nodeId);

    /** The partition's current epoch: the one the last {@link #recordOwner} returned, 0 if no node has owned it. */
    long epoch(int partition);
}
