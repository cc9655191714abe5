package io.sluice.e2e.cluster;

import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.Sluice;
import io.sluice.StreamerOptions;
import io.sluice.WriteSyncMode;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** What the partition-move tests of issue 28 share: the cache, its preload, the method, the scan check. */
final class MoveTests {

    static final String CACHE = "orders";

    private MoveTests() {
    }

    /**
     * How the tests' nodes build partitions: {@code -Dsluice.move.method=ENTRIES} or {@code FILES} (the node's
     * default).
     */
    static String method() {
        return System.getProperty("sluice.move.method", "FILES");
    }

    /** Sets the method (as JSON) on every node the cluster starts from now on. */
    static ClusterProcesses withMethod(ClusterProcesses cluster, String method) {
        return cluster.clusterSetting("moveMethod", "\"" + method + "\"");
    }

    /** Creates the cache: backups 1, FULL_SYNC (an acknowledged entry is on both copies). */
    static void createCache(Sluice client) {
        client.getOrCreateCache(CacheConfig.named(CACHE).withBackups(1).withWriteSync(WriteSyncMode.FULL_SYNC));
    }

    /** Streams StockOrders 0 .. n-1 and returns once every one is acknowledged (the streamer's close). */
    static void preload(Sluice client, long n) {
        BinaryObjectBuilder builder = client.binary().builder("StockOrder");
        try (DataStreamer<Long, BinaryObject> streamer = client.dataStreamer(CACHE, StreamerOptions.builder()
                .timeout(Duration.ofSeconds(120)).build())) {
            for (long k = 0; k < n; k++) {
                streamer.addData(k, OrderLoad.order(builder, k));
            }
        }
    }

    /** Asserts that a scan through the client meets {@code expected} entries, no key twice, none outside [0, limit). */
    static void assertScanMeetsEachOnce(Sluice client, long expected, long limit) {
        long[] seen = new long[(int) ((limit + 63) / 64)];
        long[] met = {0, 0, 0}; // entries, duplicates, out of range
        client.<Long, BinaryObject>cache(CACHE).withKeepBinary().scan().forEach(e -> {
            long k = e.getKey();
            met[0]++;
            if (k < 0 || k >= limit) {
                met[2]++;
            } else if ((seen[(int) (k >>> 6)] & 1L << (k & 63)) != 0) {
                met[1]++;
            } else {
                seen[(int) (k >>> 6)] |= 1L << (k & 63);
            }
        });
        assertThat(met[1]).as("keys a scan met twice").isZero();
        assertThat(met[2]).as("keys a scan met outside [0, %d)", limit).isZero();
        assertThat(met[0]).as("entries a scan meets").isEqualTo(expected);
    }

    /**
     * The node's temporary move files: partition files being received ({@code in-*.tmp}) or sent ({@code out-*})
     * in its moves directory ({@code <persistence dir>/moves}); adopted files ({@code adopt-*}) wait there for a
     * checkpoint and are not counted.
     */
    static List<Path> temporaryMoveFiles(ClusterProcesses cluster, String nodeId) {
        return movesDirectory(cluster, nodeId, "in-").stream().filter(f -> f.getFileName().toString()
                .endsWith(".tmp")).collect(java.util.stream.Collectors.toCollection(java.util.ArrayList::new));
    }

    /** The files in the node's moves directory whose names start with the prefix (none if it has no such dir). */
    static List<Path> movesDirectory(ClusterProcesses cluster, String nodeId, String prefix) {
        Path moves = cluster.dataDirectory(nodeId).resolve("moves");
        if (!Files.isDirectory(moves)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(moves)) {
            return files.filter(f -> f.getFileName().toString().startsWith(prefix)).toList();
        } catch (java.nio.file.NoSuchFileException gone) {
            return List.of();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Asserts that no running node keeps a temporary move file, waiting up to {@code atMost} for them to go: a node
     * whose role changed with the last map change (a former primary demoted to backup) may still be catching up by a
     * file when the checks before this end (seen in CI: the file created 0.1 s before the check), and a transfer's
     * files go as it ends. What must not happen is a file that stays.
     */
    static void assertNoLeftovers(ClusterProcesses cluster, Duration atMost) {
        await().atMost(atMost).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            for (String id : cluster.runningIds()) {
                assertThat(leftovers(cluster, id)).as("temporary move files left on %s", id).isEmpty();
            }
        });
    }

    /** The node's temporary move files, both kinds ({@link #temporaryMoveFiles} and outgoing {@code out-*}). */
    static List<Path> leftovers(ClusterProcesses cluster, String nodeId) {
        List<Path> all = new java.util.ArrayList<>(temporaryMoveFiles(cluster, nodeId));
        all.addAll(movesDirectory(cluster, nodeId, "out-"));
        return all;
    }

    /** Lines of the node's output (stdout and log) that contain {@code text}. */
    static long lines(ClusterProcesses cluster, String nodeId, String text) {
        return cluster.node(nodeId).output().lines().filter(l -> l.contains(text)).count();
    }

    /** Partitions the node adopted as files ({@code PartitionAdoption}'s log line). */
    static long adopted(ClusterProcesses cluster, String nodeId) {
        return lines(cluster, nodeId, "entries from adopt-");
    }

    /** File moves the node gave up on for another copy or for entries ({@code PartitionBuild}'s warning). */
    static long fileFallbacks(ClusterProcesses cluster, String nodeId) {
        return lines(cluster, nodeId, "as a file from");
    }

    /**
     * Asserts that every key in [from, to) reads back with its StockOrder; if some do not, the message counts them
     * per partition (a partition lost whole shows as one line).
     */
    static void assertReadable(Sluice client, long from, long to, int partitions) {
        io.sluice.Cache<Long, BinaryObject> cache = client.<Long, BinaryObject>cache(CACHE).withKeepBinary();
        java.util.Map<Integer, Integer> missing = new java.util.TreeMap<>();
        java.util.Map<Integer, Integer> wrong = new java.util.TreeMap<>();
        java.util.Set<Long> keys = new java.util.HashSet<>();
        for (long start = from; start < to; start += 1000) {
            keys.clear();
            for (long k = start; k < Math.min(to, start + 1000); k++) {
                keys.add(k);
            }
            java.util.Map<Long, BinaryObject> got = cache.getAll(keys);
            for (long k : keys) {
                BinaryObject o = got.get(k);
                if (o == null || !OrderLoad.matches(o, k)) {
                    (o == null ? missing : wrong).merge(AckedWrites.partition(k, partitions), 1, Integer::sum);
                }
            }
        }
        assertThat(missing).as("keys of [%d, %d) missing, per partition", from, to).isEmpty();
        assertThat(wrong).as("keys of [%d, %d) with another value, per partition", from, to).isEmpty();
    }
}
