package io.sluice.node.internal.cluster;

import io.sluice.cluster.internal.ClusterSettings;
import io.sluice.node.internal.NodeEngine;
import io.sluice.protocol.internal.ClusterMap;

/**
 * STUB (issue 26 skeleton; the nodeside helper replaces the body, keeping these signatures): a node's membership
 * of its cluster. Made before the node's server starts (it serves nothing until it has joined), joined once the
 * server's port is known.
 */
public final class ClusterNode implements ClusterView, AutoCloseable {

    public ClusterNode(NodeEngine node) {
    }

    /**
     * Joins the cluster: connects to ZooKeeper, applies the cluster's catalogue to the node, then takes the
     * partitions Helix gives it.
     *
     * @throws IllegalStateException naming the ZooKeeper address or cluster when it cannot join
     */
    public void join(ClusterSettings settings) {
        throw new UnsupportedOperationException("stub");
    }

    @Override
    public ClusterMap map() {
        throw new UnsupportedOperationException("stub");
    }

    @Override
    public void checkServes(int partition) {
        throw new UnsupportedOperationException("stub");
    }

    @Override
    public void enter(int partition) {
        throw new UnsupportedOperationException("stub");
    }

    @Override
    public void exit(int partition) {
        throw new UnsupportedOperationException("stub");
    }

    @Override
    public boolean serves(int partition) {
        throw new UnsupportedOperationException("stub");
    }

    @Override
    public String statusJson() {
        throw new UnsupportedOperationException("stub");
    }

    /** Leaves the cluster. Idempotent. */
    @Override
    public void close() {
    }
}
