package io.sluice.e2e.cluster;

import io.sluice.client.internal.ClientSettings;
import io.sluice.client.internal.PartitionScanConnection;
import io.sluice.protocol.internal.ClusterMap;
import io.sluice.protocol.internal.Wire;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * What one node holds of one cache's partition, read over PARTITION_SCAN (served by any node that holds a copy,
 * owner or backup): the entry count and an order-independent digest of the (key, value) bytes as the node stores
 * them. Two copies with the same entries have the same digest, whatever order their pages come in.
 */
final class PartitionDigests {

    /** A copy's entry count and digest (sum and xor of a 64-bit mix per entry). */
    record Digest(long entries, long sum, long xor) {
    }

    /** One copy differing from the partition's primary copy. */
    record Difference(int partition, String primary, Digest primaryDigest, String other, Digest otherDigest) {
        @Override
        public String toString() {
            return "partition " + partition + ": " + primary + " " + primaryDigest + " vs " + other + " "
                    + otherDigest;
        }
    }

    private static final int PAGE = 4096;

    private PartitionDigests() {
    }

    /** The node's copy of the cache's partition. */
    static Digest digest(PartitionScanConnection node, String cache, int partition) {
        long entries = 0;
        long sum = 0;
        long xor = 0;
        CRC32C crc = new CRC32C();
        byte[] after = null;
        while (true) {
            PartitionScanConnection.Page page = node.page(cache, partition, after, PAGE);
            List<byte[]> kv = page.keysAndValues();
            for (int i = 0; i < kv.size(); i += 2) {
                crc.reset();
                crc.update(kv.get(i));
                long k = crc.getValue();
                crc.reset();
                crc.update(kv.get(i + 1));
                long h = mix(k << 32 | crc.getValue());
                sum += h;
                xor ^= h;
                entries++;
            }
            if (!page.more() || page.entries() == 0) {
                return new Digest(entries, sum, xor);
            }
            after = kv.get(kv.size() - 2);
        }
    }

    /**
     * Compares every partition's copies: the owner's and each backup's, as the map places them.
     *
     * @return the copies that differ from their owner's (empty: all equal), and in {@code ownerEntries}[0] the
     *         entries of the owners' copies together
     */
    static List<Difference> compare(ClusterProcesses cluster, ClusterMap map, String cache, long[] ownerEntries) {
        List<Difference> differences = new ArrayList<>();
        java.util.Map<String, PartitionScanConnection> connections = new java.util.TreeMap<>();
        try {
            for (ClusterMap.Member m : map.nodes()) {
                connections.put(m.id(), open(m.address()));
            }
            for (int p = 0; p < map.partitions(); p++) {
                String owner = map.owner(p);
                Digest primary = digest(connections.get(owner), cache, p);
                ownerEntries[0] += primary.entries();
                for (String backup : ReplicaMaps.backups(map, p)) {
                    Digest copy = digest(connections.get(backup), cache, p);
                    if (!copy.equals(primary)) {
                        differences.add(new Difference(p, owner, primary, backup, copy));
                    }
                }
            }
        } finally {
            connections.values().forEach(PartitionScanConnection::close);
        }
        return differences;
    }

    static PartitionScanConnection open(String address) {
        return new PartitionScanConnection(new ClientSettings(List.of(address), "partition-digest", null,
                Duration.ofSeconds(10), Duration.ofSeconds(60), Wire.DEFAULT_MAX_FRAME, false, (Path) null, 3,
                Duration.ofMillis(100), 100, Duration.ofSeconds(1)));
    }

    /** A 64-bit finaliser (SplitMix64's), so that sums of near values do not collide. */
    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /**
     * Waits (at most {@code atMost}) until every partition's backups equal its owner in the map the nodes serve then
     * with every backup in sync ({@link ReplicaMaps#awaitReplicated}, read afresh each attempt): a map in
     * transition may still name a backup that has just handed its copy on. A difference that lasts fails.
     *
     * @return the owners' entries together
     * @throws AssertionError if copies still differed at the end (the last differences)
     */
    static long awaitEqual(ClusterProcesses cluster, String cache, Duration atMost) {
        java.util.concurrent.atomic.AtomicReference<List<Difference>> last =
                new java.util.concurrent.atomic.AtomicReference<>(List.of());
        long[] ownerEntries = {0};
        try {
            org.awaitility.Awaitility.await().atMost(atMost).pollInterval(Duration.ofSeconds(2)).until(() -> {
                ClusterMap map = ReplicaMaps.awaitReplicated(cluster, 1, atMost);
                ownerEntries[0] = 0;
                List<Difference> differences = compare(cluster, map, cache, ownerEntries);
                if (!differences.isEmpty()) {
                    System.out.printf("PartitionDigests: map version %d: %s%n", map.version(), differences);
                }
                last.set(differences);
                return differences.isEmpty();
            });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("backups differing from their owner after " + atMost + ": " + last.get(), e);
        }
        return ownerEntries[0];
    }
}
