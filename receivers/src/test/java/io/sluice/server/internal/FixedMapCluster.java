package io.sluice.server.internal;

import io.sluice.node.internal.cluster.ClusterView;
import io.sluice.protocol.internal.ClusterMap;
import io.sluice.protocol.internal.NotOwnerException;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * For routing tests: a map the test sets and switches at will, and each node's {@link ClusterView} of it (a node
 * serves exactly the partitions the current map gives it, and refuses the others with NOT_OWNER, counted). The
 * Helix-backed view is tested with the cluster; here what is under test is how server and client route.
 */
final class FixedMapCluster {

    private final AtomicReference<ClusterMap> map = new AtomicReference<>();
    /** Nodes that answer CLUSTER_MAP with an older map than the one they serve by (a node slow to see a change). */
    private final java.util.Map<String, ClusterMap> lagging = new java.util.concurrent.ConcurrentHashMap<>();
    private final AtomicLong version = new AtomicLong();
    /** NOT_OWNER answers given, all nodes. */
    final AtomicInteger refusals = new AtomicInteger();
    /** CLUSTER_MAP answers given (the map asked for), all nodes. */
    final AtomicInteger mapAsks = new AtomicInteger();
    /** SCANs a node answered as one of the partition's backups, all nodes. */
    final AtomicInteger backupScans = new AtomicInteger();
    /** Nodes that refuse scans as a backup (a backup still catching up), though the map lists them. */
    final java.util.Set<String> refusingBackups = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Writes admitted and not yet ended, all nodes (enter without exit would leak). */
    final AtomicInteger writesInside = new AtomicInteger();

    /** Sets a new map (a newer version): per partition the index of its owner in {@code members}, or -1. */
    void setMap(List<ClusterMap.Member> members, int[] owners) {
        map.set(new ClusterMap(version.incrementAndGet(), members, owners));
    }

    /** Sets a new map with backups: per partition the indexes of its backups in {@code members}. */
    void setMap(List<ClusterMap.Member> members, int[] owners, int[][] backups) {
        map.set(new ClusterMap(version.incrementAndGet(), members, owners, backups));
    }

    ClusterMap map() {
        return map.get();
    }

    /** From now on the node answers CLUSTER_MAP with the current map, whatever map is set later. */
    void lagBehind(String nodeId) {
        lagging.put(nodeId, map.get());
    }

    /** Owners spread over the members as the test likes: partition p to member p % n. */
    static int[] roundRobin(int partitions, int members) {
        int[] owners = new int[partitions];
        for (int p = 0; p < partitions; p++) {
            owners[p] = p % members;
        }
        return owners;
    }

    static List<ClusterMap.Member> members(List<String> ids, List<Integer> ports) {
        List<ClusterMap.Member> members = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            members.add(new ClusterMap.Member(ids.get(i), "127.0.0.1", ports.get(i)));
        }
        return members;
    }

    /** The view of the node with this id. */
    ClusterView viewOf(String nodeId) {
        return new ClusterView() {
            @Override
            public ClusterMap map() {
                mapAsks.incrementAndGet();
                ClusterMap old = lagging.get(nodeId);
                return old != null ? old : map.get();
            }

            @Override
            public void checkServes(int partition) {
                if (!serves(partition)) {
                    refusals.incrementAndGet();
                    ClusterMap m = map.get();
                    throw new NotOwnerException("node " + nodeId + " does not serve partition " + partition
                            + " (map version " + (m == null ? "none" : m.version()) + ")");
                }
            }

            @Override
            public void checkServesOrBacks(int partition) {
                ClusterMap m = map.get();
                if (!serves(partition) && m != null && !refusingBackups.contains(nodeId)) {
                    for (int i = 0; i < m.backupCount(partition); i++) {
                        if (m.nodes().get(m.backupIndex(partition, i)).id().equals(nodeId)) {
                            backupScans.incrementAndGet();
                            return;
                        }
                    }
                }
                checkServes(partition);
            }

            @Override
            public void enter(int partition) {
                checkServes(partition);
                writesInside.incrementAndGet();
            }

            @Override
            public void exit(int partition) {
                writesInside.decrementAndGet();
            }

            @Override
            public boolean serves(int partition) {
                ClusterMap m = map.get();
                return m != null && nodeId.equals(m.owner(partition));
            }

            @Override
            public String statusJson() {
                return "{\"node\":\"" + nodeId + "\",\"version\":" + map.get().version() + "}";
            }
        };
    }
}
