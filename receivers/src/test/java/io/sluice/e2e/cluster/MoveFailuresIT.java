package io.sluice.e2e.cluster;

import io.sluice.Sluice;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 28's failure cases, with processes: a fourth node joins a three-node cluster (persistent nodes, a cache with
 * one backup, FULL_SYNC, 16 partitions) holding StockOrders while a client writes; the suppliers send partition
 * files at a low rate ({@code moveBytesPerSecond} 32 KiB/s on every node) so that transfers wait in the suppliers'
 * queue and a test can act on one while it is on its way. Which transfer is on its way is read from the nodes'
 * moves directories, not guessed from a clock: node-4 has {@code in-c<cache>-p<P>-*.tmp} (it asked for the file and
 * waits for it) while a supplier has {@code out-<cache>-p<P>-*} (its send has not ended).
 * <ul>
 *   <li>The supplier killed with kill -9 mid-transfer: node-4's file move from it fails and the partition is
 *   built from another copy or by entries; afterwards (the killed node's partitions led by their backups and
 *   given new backups after the rebalance delay, 3 s) every acknowledged entry is there once, each backup equals
 *   its owner, and no survivor has a temporary move file left.</li>
 *   <li>A corrupted chunk: a byte of a supplier's outgoing file flipped before its chunk is sent (its CRC32C was
 *   computed as the file was written): node-4's check fails ("fails its CRC32C check"), the partition is built from
 *   elsewhere, and the same end holds.</li>
 * </ul>
 * The demander's disk filling up mid-transfer is tested in one JVM (the file transfer's own tests).
 */
@Timeout(600)
class MoveFailuresIT {

    private static final int PARTITIONS = 16;
    private static final Duration SETTLE = Duration.ofSeconds(180);
    private static final List<String> FIRST = List.of("node-1", "node-2", "node-3");

    private ClusterProcesses cluster;

    @AfterEach
    void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** A transfer to node-4 on its way: the partition and the supplier's outgoing file. */
    private record InFlight(String supplier, int partition, Path outgoing) {
    }

    @Test
    void supplierKilledMidTransfer() throws Exception {
        run("kill", (c, t) -> {
            System.out.printf("MoveFailuresIT: killing %s (kill -9) while it sends partition %d to node-4 (%s)%n",
                    t.supplier(), t.partition(), t.outgoing().getFileName());
            c.kill(t.supplier());
            return t.supplier();
        }, "moving it as a file from");
    }

    @Test
    void corruptedChunk() throws Exception {
        run("corrupt", (c, t) -> {
            flipMiddleByte(t.outgoing());
            System.out.printf("MoveFailuresIT: flipped a byte of %s (partition %d, %s to node-4)%n",
                    t.outgoing().getFileName(), t.partition(), t.supplier());
            return null;
        }, "fails its CRC32C check");
    }

    @FunctionalInterface
    private interface Fault {
        /** Does the harm to the transfer; returns the node it killed, or null. */
        String apply(ClusterProcesses cluster, InFlight transfer) throws Exception;
    }

    private void run(String name, Fault fault, String expectedOnNode4) throws Exception {
        long n = Long.getLong("sluice.movefail.entries", 50_000);
        cluster = ClusterProcesses.create("movefail-" + name, Duration.ofSeconds(3), PARTITIONS);
        MoveTests.withMethod(cluster, MoveTests.method()).sessionTimeout(BackupKillLoopIT.SESSION)
                .clusterSetting("moveBytesPerSecond", Long.toString(32 << 10));
        try {
            cluster.startAll(FIRST.toArray(String[]::new));
            cluster.awaitSettled(SETTLE);
            try (Sluice client = cluster.client()) {
                MoveTests.createCache(client);
                ReplicaMaps.awaitReplicated(cluster, 1, SETTLE);
                MoveTests.preload(client, n);
                AckedOrders load = AckedOrders.start(client, MoveTests.CACHE, n, 2_000, 2_000 * 600);
                load.awaitProgress(1_000, Duration.ofSeconds(60));
                cluster.start("node-4");
                String killed = null;
                // Faults until node-4 reports what the fault does (a corruption may miss: the chunk left first).
                for (int attempt = 1; MoveTests.lines(cluster, "node-4", expectedOnNode4) == 0; attempt++) {
                    assertThat(attempt).as("faults done without node-4 reporting \"%s\"", expectedOnNode4)
                            .isLessThanOrEqualTo(killed == null ? 5 : 1);
                    InFlight transfer = awaitTransferToNode4(Duration.ofSeconds(attempt == 1 ? 60 : 20));
                    if (transfer == null && attempt == 1) {
                        throw new AssertionError("no transfer to node-4 seen on its way within 60 s");
                    }
                    if (transfer == null) {
                        // A corruption misses when its chunk left first (a file of one chunk leaves at once unless
                        // the supplier's rate makes it wait); once node-4 has built everything there is nothing
                        // left to corrupt. The run still checks that nothing was lost; the CRC check itself is
                        // asserted in one JVM (PartitionFileMoveTest).
                        System.out.printf("MoveFailuresIT %s: the fault missed %d time(s) and node-4 has no transfer"
                                + " left to fault; this run checks only that nothing was lost%n", name, attempt - 1);
                        break;
                    }
                    killed = fault.apply(cluster, transfer);
                    awaitOrNot(expectedOnNode4, Duration.ofSeconds(killed == null ? 10 : 60));
                }
                ReplicaMaps.awaitReplicated(cluster, 1, SETTLE);
                load.awaitProgress(1_000, Duration.ofSeconds(60));
                load.stop();
                System.out.printf("MoveFailuresIT %s: in sync again; load %s; node-4 adopted %d files, fell back %d"
                        + " times%n", name, load, MoveTests.adopted(cluster, "node-4"),
                        MoveTests.fileFallbacks(cluster, "node-4"));
                assertThat(load.ended()).as("how the load's streamer ended").isNull();
                assertThat(load.failed()).as("entries the cluster failed: %s", load.failures()).isZero();
                long total = n + load.acknowledged();
                try (Sluice reader = cluster.client()) {
                    MoveTests.assertReadable(reader, 0, n, PARTITIONS);
                    assertThat(load.verify(reader, MoveTests.CACHE)).as("the load's acknowledged keys").isNull();
                    MoveTests.assertScanMeetsEachOnce(reader, total, n + load.issued());
                }
                assertThat(PartitionDigests.awaitEqual(cluster, MoveTests.CACHE, Duration.ofSeconds(60)))
                        .as("entries in the owners' copies").isEqualTo(total);
                MoveTests.assertNoLeftovers(cluster, Duration.ofSeconds(30));
            }
        } catch (AssertionError | RuntimeException e) {
            System.err.println(cluster.logs());
            throw e;
        }
    }

    /**
     * Waits (at most 60 s) for a transfer to node-4 on its way: node-4 receives partition P ({@code in-c<id>-pP-})
     * and a running supplier has that partition's outgoing file.
     */
    /** A transfer to node-4 on its way, or null if none is seen within {@code atMost}. */
    private InFlight awaitTransferToNode4(Duration atMost) {
        AtomicReference<InFlight> found = new AtomicReference<>();
        try {
            await().atMost(atMost).pollInterval(Duration.ofMillis(20)).until(() -> {
                Set<Integer> receiving = new HashSet<>();
                for (Path in : MoveTests.temporaryMoveFiles(cluster, "node-4")) {
                    receiving.add(partitionOf(in));
                }
                for (String id : cluster.runningIds()) {
                    if (id.equals("node-4")) {
                        continue;
                    }
                    for (Path out : MoveTests.movesDirectory(cluster, id, "out-")) {
                        int p = partitionOf(out);
                        if (receiving.contains(p)) {
                            found.set(new InFlight(id, p, out));
                            return true;
                        }
                    }
                }
                return false;
            });
        } catch (ConditionTimeoutException e) {
            return null;
        }
        return found.get();
    }

    /**
     * The partition a move file is of: its name holds "-p<partition>-" ({@code in-c<cache id>-p<P>-<uuid>.tmp},
     * {@code out-<cache id>-p<P>-...}). The test has one cache; its id may differ from node to node.
     */
    private static int partitionOf(Path file) {
        String name = file.getFileName().toString();
        int p = name.indexOf("-p") + 2;
        return Integer.parseInt(name.substring(p, name.indexOf('-', p)));
    }

    /** Waits at most {@code atMost} for the line on node-4; returns either way. */
    private void awaitOrNot(String text, Duration atMost) {
        try {
            await().atMost(atMost).pollInterval(Duration.ofMillis(100))
                    .until(() -> MoveTests.lines(cluster, "node-4", text) > 0);
        } catch (ConditionTimeoutException e) {
            System.out.printf("MoveFailuresIT: node-4 did not report \"%s\" within %s%n", text, atMost);
        }
    }

    private static void flipMiddleByte(Path file) throws IOException {
        // READ and WRITE without CREATE: a file the supplier deleted meanwhile is not made again (RandomAccessFile's
        // "rw" would create it, and the empty file left behind then failed the leftovers check on JDK 25 in CI).
        try (FileChannel f = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long at = f.size() / 2;
            ByteBuffer b = ByteBuffer.allocate(1);
            if (f.read(b, at) != 1) {
                System.out.printf("MoveFailuresIT: %s was emptied before it could be changed%n", file.getFileName());
                return;
            }
            b.put(0, (byte) (b.get(0) ^ 0xFF)).rewind();
            f.write(b, at);
        } catch (NoSuchFileException gone) {
            System.out.printf("MoveFailuresIT: %s was sent and deleted before it could be changed%n",
                    file.getFileName());
        }
    }
}
