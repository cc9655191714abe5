package io.sluice.node.internal.cluster;

import io.sluice.cluster.internal.ClusterCatalogue;
import io.sluice.cluster.internal.ClusterMembership;
import io.sluice.cluster.internal.ClusterSettings;
import io.sluice.cluster.internal.PartitionOwnerLog;
import io.sluice.cluster.internal.PartitionRoles;
import io.sluice.protocol.internal.ClusterMap;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * A cluster in memory, for testing the node's side without Helix: members join through {@link #joiner()}, the test
 * drives role changes as Helix would ({@link #assign}, {@link #move}: the old owner demoted first, the new one
 * promoted, then the map changes), and the owner log and catalogue are plain maps. Thread-safe enough for tests
 * that drive it from one thread.
 */
final class InMemoryCluster {

    private final int partitions;
    private final Map<String, Member> members = new LinkedHashMap<>();
    private final String[] owners;
    /** Per partition its backups (SLAVEs), in order. */
    private final List<List<String>> backups = new ArrayList<>();
    private final Map<Integer, String> ownerLog = new ConcurrentHashMap<>();
    private final Map<Integer, Long> epochs = new ConcurrentHashMap<>();
    private volatile int replicas = 1;
    private final Map<String, byte[]> caches = new ConcurrentHashMap<>();
    /** Partitions whose owner log ignores records for now, with the record held back. */
    private final Map<Integer, String> heldRecords = new ConcurrentHashMap<>();
    private final java.util.Set<Integer> held = ConcurrentHashMap.newKeySet();
    private volatile byte[] types = new byte[0];
    private final List<Consumer<Map<String, byte[]>>> cacheListeners = new CopyOnWriteArrayList<>();
    private final List<Consumer<byte[]>> typeListeners = new CopyOnWriteArrayList<>();
    private volatile ClusterMap map;
    private long version;

    InMemoryCluster(int partitions) {
        this.partitions = partitions;
        this.owners = new String[partitions];
        for (int p = 0; p < partitions; p++) {
            backups.add(new CopyOnWriteArrayList<>());
        }
        this.map = build();
    }

    /** What ClusterNode joins with. */
    ClusterNode.MembershipJoin joiner() {
        return (settings, roles) -> {
            Member m;
            synchronized (this) {
                if (members.containsKey(settings.nodeId())) {
                    throw new IllegalStateException("node id '" + settings.nodeId() + "' is taken");
                }
                m = new Member(settings, roles);
                members.put(settings.nodeId(), m);
                publish();
            }
            return m;
        };
    }

    ClusterMap map() {
        return map;
    }

    Map<String, byte[]> caches() {
        return caches;
    }

    byte[] types() {
        return types;
    }

    String lastOwner(int p) {
        return ownerLog.get(p);
    }

    /** The partition's epoch (0 before any owner recorded itself). */
    long epoch(int p) {
        return epochs.getOrDefault(p, 0L);
    }

    /** Writes the owner log directly (a node that owned the partition once). */
    void recordOwner(int p, String nodeId) {
        ownerLog.put(p, nodeId);
    }

    /** From now on the partition's owner records are held back (the log still names the old owner). */
    void holdOwnerLog(int p) {
        held.add(p);
    }

    /** Writes the record held back, if any, and stops holding. */
    void releaseOwnerLog(int p) {
        held.remove(p);
        String record = heldRecords.remove(p);
        if (record != null) {
            ownerLog.put(p, record);
        }
    }

    /** Gives every partition without an owner to the node, as Helix would: follow, lead, then the map. */
    void assign(String nodeId) throws Exception {
        for (int p = 0; p < partitions; p++) {
            if (owners[p] == null) {
                Member m = member(nodeId);
                m.roles.follow(p);
                m.roles.lead(p);
                synchronized (this) {
                    owners[p] = nodeId;
                }
            }
        }
        publish();
    }

    /**
     * Moves a partition as Helix does: the old owner stops leading (the map shows no owner), the new one follows and
     * leads (it pulls), the map shows the new owner, the old one releases and drops.
     */
    void move(int p, String to) throws Exception {
        String from = owners[p];
        if (from != null) {
            member(from).roles.stopLeading(p);
            synchronized (this) {
                owners[p] = null;
            }
            publish();
        }
        Member target = member(to);
        target.roles.follow(p);
        target.roles.lead(p);
        synchronized (this) {
            owners[p] = to;
        }
        publish();
        if (from != null) {
            member(from).roles.release(p);
            member(from).roles.drop(p);
        }
    }

    /** Makes the node a backup (SLAVE) of the partition, as Helix would: follow, then the map shows it. */
    void addBackup(int p, String nodeId) throws Exception {
        member(nodeId).roles.follow(p);
        synchronized (this) {
            backups.get(p).add(nodeId);
        }
        publish();
    }

    /**
     * A failover as Helix does it once the partition's owner is gone (left or lost its session): its first backup
     * is promoted (lead) and the map shows it as the owner, without that backup.
     */
    String promoteBackup(int p) throws Exception {
        String next;
        synchronized (this) {
            next = backups.get(p).get(0);
            owners[p] = null;
        }
        publish();
        member(next).roles.lead(p);
        synchronized (this) {
            backups.get(p).remove(next);
            owners[p] = next;
        }
        publish();
        return next;
    }

    /** A member lost: it is gone from the map (and owns and backs nothing), with no transition called on it. */
    void lose(String nodeId) {
        synchronized (this) {
            members.remove(nodeId);
            for (int p = 0; p < partitions; p++) {
                if (nodeId.equals(owners[p])) {
                    owners[p] = null;
                }
                backups.get(p).remove(nodeId);
            }
        }
        publish();
    }

    /** The roles a member joined with (what Helix would call). */
    PartitionRoles roles(String id) {
        return member(id).roles;
    }

    private synchronized Member member(String id) {
        Member m = members.get(id);
        if (m == null) {
            throw new IllegalArgumentException("no member '" + id + "'");
        }
        return m;
    }

    private synchronized ClusterMap build() {
        List<ClusterMap.Member> nodes = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        for (Member m : members.values()) {
            nodes.add(new ClusterMap.Member(m.settings.nodeId(), m.settings.host(), m.settings.port()));
            ids.add(m.settings.nodeId());
        }
        int[] index = new int[partitions];
        Arrays.fill(index, ClusterMap.NO_OWNER);
        for (int p = 0; p < partitions; p++) {
            if (owners[p] != null) {
                index[p] = ids.indexOf(owners[p]);
            }
        }
        int[][] backupIndex = new int[partitions][];
        for (int p = 0; p < partitions; p++) {
            backupIndex[p] = backups.get(p).stream().mapToInt(ids::indexOf).filter(i -> i >= 0).toArray();
        }
        return new ClusterMap(version++, nodes, index, backupIndex);
    }

    /** A new map version, handed to every member's listeners. */
    private void publish() {
        ClusterMap next = build();
        map = next;
        List<Member> now;
        synchronized (this) {
            now = new ArrayList<>(members.values());
        }
        for (Member m : now) {
            for (Consumer<ClusterMap> l : m.mapListeners) {
                l.accept(next);
            }
        }
    }

    private final class Member implements ClusterMembership, ClusterCatalogue, PartitionOwnerLog {
        final ClusterSettings settings;
        final PartitionRoles roles;
        final List<Consumer<ClusterMap>> mapListeners = new CopyOnWriteArrayList<>();

        Member(ClusterSettings settings, PartitionRoles roles) {
            this.settings = settings;
            this.roles = roles;
        }

        @Override
        public String nodeId() {
            return settings.nodeId();
        }

        @Override
        public ClusterMap map() {
            return map;
        }

        @Override
        public void onMapChange(Consumer<ClusterMap> listener) {
            mapListeners.add(listener);
        }

        @Override
        public ClusterCatalogue catalogue() {
            return this;
        }

        @Override
        public PartitionOwnerLog owners() {
            return this;
        }

        @Override
        public void close() {
            synchronized (InMemoryCluster.this) {
                members.remove(settings.nodeId());
                for (int p = 0; p < partitions; p++) {
                    if (settings.nodeId().equals(owners[p])) {
                        owners[p] = null;
                    }
                    backups.get(p).remove(settings.nodeId());
                }
            }
            publish();
        }

        @Override
        public byte[] putCacheIfAbsent(String name, byte[] description) {
            byte[] before = caches.putIfAbsent(name, description);
            if (before != null) {
                return before;
            }
            cacheListeners.forEach(l -> l.accept(Map.copyOf(caches)));
            return description;
        }

        @Override
        public boolean removeCache(String name) {
            boolean removed = caches.remove(name) != null;
            if (removed) {
                cacheListeners.forEach(l -> l.accept(Map.copyOf(caches)));
            }
            return removed;
        }

        @Override
        public Map<String, byte[]> caches() {
            return Map.copyOf(caches);
        }

        @Override
        public void onCachesChange(Consumer<Map<String, byte[]>> listener) {
            cacheListeners.add(listener);
        }

        @Override
        public byte[] types() {
            return types;
        }

        @Override
        public void updateTypes(UnaryOperator<byte[]> merge) {
            byte[] next;
            synchronized (InMemoryCluster.this) {
                next = merge.apply(types);
                types = next;
            }
            typeListeners.forEach(l -> l.accept(next));
        }

        @Override
        public void onTypesChange(Consumer<byte[]> listener) {
            typeListeners.add(listener);
        }

        @Override
        public String lastOwner(int partition) {
            return ownerLog.get(partition);
        }

        @Override
        public long recordOwner(int partition, String nodeId) {
            long epoch = epochs.merge(partition, 1L, Long::sum);
            if (held.contains(partition)) {
                heldRecords.put(partition, nodeId);
                return epoch;
            }
            ownerLog.put(partition, nodeId);
            return epoch;
        }

        @Override
        public long epoch(int partition) {
            return epochs.getOrDefault(partition, 0L);
        }

        /** Members of this cluster never lose ZooKeeper. */
        @Override
        public boolean leaseValid() {
            return true;
        }

        @Override
        public void ensureReplicas(int count) {
            synchronized (InMemoryCluster.this) {
                replicas = Math.max(replicas, count);
            }
        }
    }
}
