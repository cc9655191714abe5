package io.sluice.e2e.cluster;

import io.sluice.protocol.internal.ClusterMap;
import org.awaitility.core.ConditionTimeoutException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;

import static org.awaitility.Awaitility.await;

/**
 * What the failover tests wait for in the map (issue 27): every partition with an owner and its backups (the
 * cluster back in sync), or a lost node's partitions promoted to their backups.
 */
final class ReplicaMaps {

    private ReplicaMaps() {
    }

    /**
     * Waits until every running node serves one map (the same version) in which every partition has an owner and
     * at least {@code backups} backups in SLAVE state, each copy on a distinct running node, and every running node
     * owns partitions; and until the backups are in sync (each node's status: every partition it backs in sync, the
     * primaries counting {@code backups} in-sync backups per partition).
     *
     * @return that map
     */
    static ClusterMap awaitReplicated(ClusterProcesses cluster, int backups, Duration atMost) {
        long start = System.nanoTime();
        AtomicReference<String> last = new AtomicReference<>("no map yet");
        AtomicReference<ClusterMap> settled = new AtomicReference<>();
        List<String> running = cluster.runningIds();
        try {
            await().atMost(atMost).pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(() -> {
                Map<String, ClusterMap> maps = new TreeMap<>();
                for (String id : running) {
                    maps.put(id, cluster.map(id));
                }
                ClusterMap first = maps.values().iterator().next();
                String problem = maps.values().stream().allMatch(first::equals)
                        ? problem(first, backups, new HashSet<>(running))
                        : "the nodes serve different maps: " + versions(maps);
                if (problem == null) {
                    problem = notInSync(cluster, running, first.partitions() * (long) backups);
                }
                last.set(problem);
                if (problem == null) {
                    settled.set(first);
                }
                return problem == null;
            });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("no map with " + backups + " backup(s) per partition on " + running
                    + " within " + atMost + ": " + last.get(), e);
        }
        System.out.printf("cluster %s: map version %d with %d backup(s) in sync on %s after %.1f s%n", cluster.name(),
                settled.get().version(), backups, running, (System.nanoTime() - start) / 1e9);
        return settled.get();
    }

    /**
     * Why the backups are not all in sync although the map shows them (a SLAVE catches up in the background after
     * its transition), or null if every node's status says each partition it backs is in sync and the primaries
     * count at least {@code followers} backups in sync in all (those FULL_SYNC waits for).
     */
    private static String notInSync(ClusterProcesses cluster, List<String> running, long followers) throws Exception {
        long counted = 0;
        for (String id : running) {
            NodeStatus.Replication r = NodeStatus.replication(cluster.status(id));
            if (r.inSync() != r.backed() || r.catchingUp() > 0) {
                return id + " backs " + r.backed() + " partitions, " + r.inSync() + " in sync, " + r.catchingUp()
                        + " catching up";
            }
            counted += r.followersInSync();
        }
        return counted >= followers ? null : "the primaries count " + counted + " backups in sync, not " + followers;
    }

    /** Why the map is not replicated as wanted, or null if it is. */
    private static String problem(ClusterMap map, int backups, Set<String> running) {
        Set<String> owners = new TreeSet<>();
        for (int p = 0; p < map.partitions(); p++) {
            String owner = map.owner(p);
            if (owner == null || !running.contains(owner)) {
                return "partition " + p + " is owned by " + owner;
            }
            owners.add(owner);
            List<String> copies = backups(map, p);
            if (copies.size() < backups) {
                return "partition " + p + " (owner " + owner + ") has backups " + copies;
            }
            Set<String> distinct = new HashSet<>(copies);
            distinct.add(owner);
            if (distinct.size() != copies.size() + 1 || !running.containsAll(distinct)) {
                return "partition " + p + " has owner " + owner + " and backups " + copies;
            }
        }
        return owners.equals(running) ? null : "owners are " + owners + ", not " + running;
    }

    /**
     * Waits until the map {@code asked} serves no longer names {@code gone} as a member and every partition has an
     * owner: the lost node's partitions were promoted to their backups.
     *
     * @return that map
     */
    static ClusterMap awaitFailedOver(ClusterProcesses cluster, String asked, String gone, Duration atMost) {
        AtomicReference<String> last = new AtomicReference<>("no map yet");
        AtomicReference<ClusterMap> done = new AtomicReference<>();
        try {
            await().atMost(atMost).pollInterval(Duration.ofMillis(100)).ignoreExceptions().until(() -> {
                ClusterMap map = cluster.map(asked);
                Map<String, Integer> owned = ClusterProcesses.partitionsPerOwner(map);
                last.set("map version " + map.version() + ", members " + map.nodes() + ", partitions per owner "
                        + owned);
                if (map.member(gone) == null && !owned.containsKey(null)) {
                    done.set(map);
                    return true;
                }
                return false;
            });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("the partitions of " + gone + " had no new owners on " + asked + "'s map within "
                    + atMost + ": " + last.get(), e);
        }
        return done.get();
    }

    /** The partitions the node is the primary (owner) of. */
    static Set<Integer> primaryOf(ClusterMap map, String nodeId) {
        Set<Integer> owned = new TreeSet<>();
        for (int p = 0; p < map.partitions(); p++) {
            if (nodeId.equals(map.owner(p))) {
                owned.add(p);
            }
        }
        return owned;
    }

    /** The ids of the partition's backups, in the map's (rendezvous) order. */
    static List<String> backups(ClusterMap map, int partition) {
        List<String> ids = new ArrayList<>();
        for (int i : map.backupIndexes(partition)) {
            ids.add(map.nodes().get(i).id());
        }
        return ids;
    }

    private static String versions(Map<String, ClusterMap> maps) {
        StringBuilder out = new StringBuilder();
        maps.forEach((id, m) -> out.append(id).append(": ").append(m == null ? "standalone" : m.version()).append(' '));
        return out.toString().trim();
    }
}
