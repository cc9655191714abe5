package io.sluice.node.internal.cluster;

import io.sluice.client.internal.ClientSettings;
import io.sluice.client.internal.PeerConnection;
import io.sluice.protocol.internal.ClusterMap;
import io.sluice.protocol.internal.NotOwnerException;
import io.sluice.protocol.internal.Wire;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * This node's connections to the other members for replication (REPLICATE from a primary, REPLICA_FOLLOW and
 * REPLICA_SYNCED from a backup): one per member, opened when first needed at the address the map gives, closed
 * when the member leaves the map (or moves) and when this node leaves. Requests on them are sent once, never
 * retried ({@link PeerConnection}). Thread-safe.
 */
final class ReplicaLinks implements AutoCloseable {

    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

    private final String self;
    private final PeerAccess access;
    private final Supplier<ClusterMap> map;
    private final Map<ClusterMap.Member, PeerConnection> open = new ConcurrentHashMap<>();
    private volatile boolean closed;

    ReplicaLinks(String self, PeerAccess access, Supplier<ClusterMap> map) {
        this.self = self;
        this.access = access;
        this.map = map;
    }

    /**
     * The connection to a member of the current map, opened if need be.
     *
     * @throws NotOwnerException if the map does not name the member
     * @throws io.sluice.NodeUnreachableException if it cannot be reached
     */
    PeerConnection to(String memberId) {
        if (closed) {
            throw new IllegalStateException("node '" + self + "' left the cluster");
        }
        ClusterMap.Member member = map.get().member(memberId);
        if (member == null) {
            throw new NotOwnerException("member '" + memberId + "' is not in the map (version " + map.get().version()
                    + ")");
        }
        return open.computeIfAbsent(member, m -> new PeerConnection(new ClientSettings(List.of(m.address()),
                "sluice-node " + self + " (replication)", access.token(), CONNECT_TIMEOUT, REQUEST_TIMEOUT,
                Wire.DEFAULT_MAX_FRAME, access.tls(), access.trustedCertificates(), 1, Duration.ofMillis(100), 100,
                Duration.ofSeconds(1))));
    }

    /** Closes the connections to members the map no longer names (or names at another address). */
    void retainMembers(ClusterMap map) {
        for (ClusterMap.Member m : open.keySet()) {
            if (!map.nodes().contains(m)) {
                PeerConnection c = open.remove(m);
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
            PeerConnection c = open.remove(m);
            if (c != null) {
                c.close();
            }
        }
    }
}
