package io.sluice.node.internal.cluster;

import io.sluice.client.internal.ClientSettings;
import io.sluice.client.internal.PartitionScanConnection;
import io.sluice.protocol.internal.ClusterMap;
import io.sluice.protocol.internal.Wire;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * This node's connections to the other members, for the partitions it takes over: one per member address, opened
 * when first needed and shared by the partitions moving from that member at once (requests are pipelined), closed
 * when the member leaves the map or this node leaves the cluster. Thread-safe.
 */
final class PeerConnections implements PartitionSource.Opener, AutoCloseable {

    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);

    private final String nodeId;
    private final PeerAccess access;
    private final Map<ClusterMap.Member, PartitionScanConnection> open = new ConcurrentHashMap<>();
    private volatile boolean closed;

    PeerConnections(String nodeId, PeerAccess access) {
        this.nodeId = nodeId;
        this.access = access;
    }

    @Override
    public PartitionSource open(ClusterMap.Member member) {
        if (closed) {
            throw new IllegalStateException("node '" + nodeId + "' left the cluster");
        }
        PartitionScanConnection c = open.computeIfAbsent(member, m -> new PartitionScanConnection(settings(m)));
        return c::request;
    }

    private ClientSettings settings(ClusterMap.Member member) {
        return new ClientSettings(List.of(member.address()), "sluice-node " + nodeId, access.token(), CONNECT_TIMEOUT,
                REQUEST_TIMEOUT, Wire.DEFAULT_MAX_FRAME, access.tls(), access.trustedCertificates(), 3,
                Duration.ofMillis(100), 100, Duration.ofSeconds(1));
    }

    /** Closes the connections to members the map no longer names (or names at another address). */
    void retainMembers(ClusterMap map) {
        for (ClusterMap.Member m : open.keySet()) {
            if (!map.nodes().contains(m)) {
                PartitionScanConnection c = open.remove(m);
                if (c != null) {
                    c.close();
                }
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        for (ClusterMap.Member m : open.keySet()) {
            PartitionScanConnection c = open.remove(m);
            if (c != null) {
                c.close();
            }
        }
    }
}
