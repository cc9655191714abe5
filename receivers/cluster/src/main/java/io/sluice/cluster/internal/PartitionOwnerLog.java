package io.sluice.cluster.internal;

/**
 * Per partition, the node that last served it as its owner, kept in ZooKeeper: what a node taking a partition
 * over reads to know where its entries are (a join moves a partition from its last owner; a node restarting within
 * the rebalance delay finds it was the last owner and keeps its own data).
 */
public interface PartitionOwnerLog {

    /** The id of the partition's last owner, or null if no node has owned it yet. */
    String lastOwner(int partition);

    /** Records this node as the partition's owner (called by the node once it serves the partition). */
    void recordOwner(int partition, String nodeId);
}
