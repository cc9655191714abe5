package io.sluice.node.internal.cluster;

import io.sluice.protocol.internal.ClusterMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashSet;
import java.util.Set;

/**
 * Logs the members that joined or left the cluster, map by map as this node sees them. Maps may come on several
 * threads and out of order: one older than the last seen is ignored. Thread-safe.
 */
final class MemberChanges {

    private static final Logger LOG = LoggerFactory.getLogger(MemberChanges.class);

    private final Set<String> members = new HashSet<>();
    private long version;

    MemberChanges(ClusterMap first) {
        for (ClusterMap.Member m : first.nodes()) {
            members.add(m.id());
        }
        version = first.version();
    }

    synchronized void seen(ClusterMap map) {
        if (map.version() < version) {
            return;
        }
        version = map.version();
        Set<String> now = new HashSet<>();
        for (ClusterMap.Member m : map.nodes()) {
            now.add(m.id());
            if (!members.contains(m.id())) {
                LOG.info("member '{}' joined the cluster at {} (map version {})", m.id(), m.address(), map.version());
            }
        }
        for (String id : members) {
            if (!now.contains(id)) {
                LOG.info("member '{}' left the cluster (map version {})", id, map.version());
            }
        }
        members.clear();
        members.addAll(now);
    }
}
