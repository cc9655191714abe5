package io.sluice.node.internal.cluster;

import io.sluice.client.internal.PartitionScanConnection;
import io.sluice.protocol.internal.ClusterMap;

/**
 * Where a node taking a partition over reads its entries: another member, page by page (PARTITION_SCAN over the
 * network in a running cluster; {@link PeerConnections}).
 */
interface PartitionSource {

    /**
     * Asks for the page of the cache's partition after the key {@code after} (exclusive; null for the first page);
     * the next may be asked for before this one is read.
     */
    PartitionScanConnection.PendingPage request(String cache, int partition, byte[] after, int max);

    /** Opens (or reuses) the source of a member of the map. */
    @FunctionalInterface
    interface Opener {
        PartitionSource open(ClusterMap.Member member);
    }
}
