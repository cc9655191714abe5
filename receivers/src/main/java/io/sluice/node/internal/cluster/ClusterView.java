package io.sluice.node.internal.cluster;

import io.sluice.protocol.internal.ClusterMap;
import io.sluice.protocol.internal.NotOwnerException;

/**
 * What the server asks of the cluster for each request: the map to serve to clients and whether this node serves a
 * partition now. A standalone node has none (the server serves every partition of its caches).
 */
public interface ClusterView {

    /** The current map. */
    ClusterMap map();

    /**
     * Passes if this node serves the partition now (it owns it and holds it whole).
     *
     * @throws NotOwnerException naming the partition and this node's map version otherwise
     */
    void checkServes(int partition);

    /** True if this node serves the partition now (for size: a node counts only what it serves). */
    boolean serves(int partition);
}
