package io.sluice.e2e.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.CacheConfig;
import io.sluice.Sluice;
import io.sluice.protocol.internal.ClusterMap;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 28's figures, off by default ({@code -Dsluice.move.figures=true}; minutes):
 * <pre>
 * ./mvnw -B -o -pl receivers -am verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dfailsafe.failIfNoSpecifiedTests=false -Dit.test=MoveFiguresIT -Dsluice.move.figures=true
 * </pre>
 * In one run, for each method (ENTRIES, then FILES; {@code -Dsluice.move.figures.methods=FILES,ENTRIES} for
 * another order): a cluster of three nodes (processes, persistent, {@code -Dsluice.move.figures.partitions=64}),
 * a cache without backups holding {@code -Dsluice.move.figures.entries=1000000} StockOrders, every node building
 * partitions by that method with no rate limit ({@code moveBytesPerSecond} 0); a client streams more StockOrders as
 * fast as it goes ({@code -Dsluice.move.figures.rate=N}: N entries/s at most; {@code -Dsluice.move.figures.load=false}:
 * no load; {@code -Dsluice.move.figures.permits=N}: {@code maxConcurrentMoves} N instead of the default); after a
 * baseline window (10 s worth of a limited load's entries, 1,000,000 of an unlimited one) a fourth node
 * (same id, same partitions in both runs: rendezvous hashing) joins and takes its quarter of the partitions.
 * Printed, per method:
 * <ul>
 *   <li>the move: the span from node-4's first move seen in its status (polled every 20 ms) to the last one done,
 *   the sum of its per-partition times (its log), the bytes it reports (entries' bytes, or files' bytes), and
 *   MB/s;</li>
 *   <li>the load: entries/s acknowledged during the window before the join and during the moves' span, and the
 *   ratio;</li>
 *   <li>the CPU seconds node-4's process and node-1..3's together used over the span (the latter serve the load
 *   too).</li>
 * </ul>
 * Then the ceiling: the partition files node-4 adopted (killed with kill -9 first, so that no checkpoint deletes
 * them) copied over a loopback socket by {@code FileChannel.transferTo} into {@code FileChannel.transferFrom}
 * (two threads, then fsync), three times. With more entries give the nodes room: {@code
 * -Dsluice.cluster.it.region=1g -Dsluice.cluster.it.heap=512m}.
 */
@Timeout(3600)
class MoveFiguresIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern TOOK = Pattern.compile("took it over from .*: (\\d+) entries, (\\d+) bytes in (\\d+) ms");
    /** The moves' status is read this often while node-4 joins. */
    private static final Duration POLL = Duration.ofMillis(20);

    private ClusterProcesses cluster;

    @AfterEach
    void stopCluster() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** What one join measured. */
    private record Join(String method, int partitions, long bytes, long entries, double spanSeconds, long sumMillis,
                        double baseline, double during, List<Path> files, double demanderCpu,
                        double suppliersCpu) {
    }

    @Test
    void filesVsEntriesAndTheLoadDuringARebalance() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("sluice.move.figures"), "set -Dsluice.move.figures=true to run");
        long n = Long.getLong("sluice.move.figures.entries", 1_000_000);
        int partitions = Integer.getInteger("sluice.move.figures.partitions", 64);
        boolean load = Boolean.parseBoolean(System.getProperty("sluice.move.figures.load", "true"));
        List<Join> joins = new ArrayList<>();
        for (String method : System.getProperty("sluice.move.figures.methods", "ENTRIES,FILES").split(",")) {
            joins.add(join(method.trim(), n, partitions, load));
        }
        for (Join j : joins) {
            System.out.printf(Locale.ROOT, "FIGURE move %-7s: %d partitions, %,d entries, %,d bytes; span %.2f s"
                            + " = %.1f MB/s; sum of per-partition times %.2f s; load %,.0f entries/s before,"
                            + " %,.0f during = %.0f%%%n", j.method(), j.partitions(), j.entries(), j.bytes(),
                    j.spanSeconds(), j.bytes() / 1e6 / j.spanSeconds(), j.sumMillis() / 1e3, j.baseline(),
                    j.during(), 100 * j.during() / j.baseline());
            System.out.printf(Locale.ROOT, "FIGURE move %-7s: process CPU over the span: node-4 %.2f s, node-1..3"
                    + " %.2f s (they also serve the load)%n", j.method(), j.demanderCpu(), j.suppliersCpu());
        }
        Join files = joins.stream().filter(j -> j.method().equals("FILES")).findFirst().orElse(null);
        Join entries = joins.stream().filter(j -> j.method().equals("ENTRIES")).findFirst().orElse(null);
        if (files != null && entries != null) {
            System.out.printf(Locale.ROOT, "FIGURE move FILES vs ENTRIES: span %.2fx faster, sum of per-partition"
                    + " times %.2fx%n", entries.spanSeconds() / files.spanSeconds(),
                    (double) entries.sumMillis() / files.sumMillis());
        }
        if (files != null && !files.files().isEmpty()) {
            long bytes = 0;
            for (Path f : files.files()) {
                bytes += Files.size(f);
            }
            for (int round = 1; round <= 3; round++) {
                double seconds = plainCopy(files.files(), files.files().get(0).getParent().resolveSibling("copy"));
                System.out.printf(Locale.ROOT, "FIGURE plain copy round %d: %d files, %,d bytes over loopback in"
                                + " %.3f s = %.1f MB/s (FILES' span moved %,d bytes at %.1f MB/s = %.0f%% of it)%n",
                        round, files.files().size(), bytes, seconds, bytes / 1e6 / seconds, files.bytes(),
                        files.bytes() / 1e6 / files.spanSeconds(),
                        100 * (files.bytes() / files.spanSeconds()) / (bytes / seconds));
            }
        }
    }

    /** Entries the rate before a join is measured over: 10 s of a limited load, 1,000,000 of an unlimited one. */
    private static long windowEntries(int rate) {
        return rate > 0 ? 10L * rate : 1_000_000;
    }

    /** Node-4's moves as the status shows them, read once per poll: when they began and when all were done. */
    private final class MoveWatch {
        private final AckedOrders load;
        long first;
        long last;
        long ackedAtFirst;
        long ackedAtLast;
        long done;
        /** CPU seconds of node-1, -2, -3 and -4 at the first move seen and when all were done. */
        double[] cpuAtFirst;
        double[] cpuAtLast;

        MoveWatch(AckedOrders load) {
            this.load = load;
        }

        /** True once node-4 moves nothing and has taken every partition the settled map gives it. */
        boolean allMoved() throws IOException {
            long now = System.nanoTime();
            long acked = load == null ? 0 : load.acknowledged();
            JsonNode moves = JSON.readTree(cluster.status("node-4")).path("moves");
            int inProgress = moves.path("inProgress").asInt();
            done = moves.path("done").asLong();
            if (first == 0 && (inProgress > 0 || done > 0)) {
                first = now;
                ackedAtFirst = acked;
                cpuAtFirst = cpuSeconds();
            }
            if (first == 0 || inProgress > 0) {
                return false;
            }
            ClusterMap map = cluster.map("node-4");
            if (done != ReplicaMaps.primaryOf(map, "node-4").size() || !settled(map)) {
                return false;
            }
            last = now;
            ackedAtLast = acked;
            cpuAtLast = cpuSeconds();
            return true;
        }
    }

    private Join join(String method, long n, int partitions, boolean withLoad) throws Exception {
        cluster = ClusterProcesses.create("figures-" + method.toLowerCase(Locale.ROOT), Duration.ofSeconds(60),
                partitions);
        MoveTests.withMethod(cluster, method).clusterSetting("moveBytesPerSecond", "0");
        String permits = System.getProperty("sluice.move.figures.permits"); // maxConcurrentMoves; the default if unset
        if (permits != null) {
            cluster.clusterSetting("maxConcurrentMoves", permits);
        }
        try {
            cluster.startAll("node-1", "node-2", "node-3");
            cluster.awaitSettled(ClusterProcesses.SETTLE);
            try (Sluice client = cluster.client()) {
                client.getOrCreateCache(CacheConfig.named(MoveTests.CACHE));
                long t0 = System.nanoTime();
                MoveTests.preload(client, n);
                System.out.printf("MoveFiguresIT %s: %,d StockOrders preloaded in %.1f s%n", method, n,
                        (System.nanoTime() - t0) / 1e9);
                int rate = Integer.getInteger("sluice.move.figures.rate", 0);
                AckedOrders load = withLoad ? AckedOrders.start(client, MoveTests.CACHE, n, rate, 50_000_000) : null;
                double baseline = Double.NaN;
                if (load != null) {
                    load.awaitProgress(1, Duration.ofSeconds(60));
                    // The rate before the join: the time the load takes for a window's worth of entries.
                    long a0 = load.acknowledged();
                    long w0 = System.nanoTime();
                    load.awaitProgress(windowEntries(rate), Duration.ofMinutes(2));
                    baseline = (load.acknowledged() - a0) / ((System.nanoTime() - w0) / 1e9);
                }
                cluster.start("node-4");
                MoveWatch watch = new MoveWatch(load);
                Awaitility.await("node-4's moves done").atMost(Duration.ofMinutes(10)).pollInSameThread()
                        .pollInterval(POLL).until(watch::allMoved);
                double during = load == null ? Double.NaN
                        : (watch.ackedAtLast - watch.ackedAtFirst) / ((watch.last - watch.first) / 1e9);
                if (load != null) {
                    load.stop();
                    assertThat(load.failed()).as("entries the load failed: %s", load.failures()).isZero();
                }
                long sum = 0;
                for (String line : cluster.node("node-4").output().split("\n")) {
                    Matcher m = TOOK.matcher(line);
                    if (m.find()) {
                        sum += Long.parseLong(m.group(3));
                    }
                }
                JsonNode end = JSON.readTree(cluster.status("node-4")).path("moves");
                long adopted = MoveTests.adopted(cluster, "node-4");
                System.out.printf("MoveFiguresIT %s: node-4 took %d partitions (%d adopted as files,"
                        + " %d fallbacks); status moves %s%n", method, watch.done, adopted,
                        MoveTests.fileFallbacks(cluster, "node-4"), end);
                if (method.equals("FILES")) {
                    assertThat(adopted).as("partitions adopted as files").isEqualTo(watch.done);
                }
                cluster.kill("node-4"); // its adopted files stay for the plain copy
                List<Path> files = adoptedFiles(cluster.dataDirectory("node-4").resolve("moves"));
                return new Join(method, (int) watch.done, end.path("bytes").asLong(), end.path("entries").asLong(),
                        (watch.last - watch.first) / 1e9, sum, baseline, during, files,
                        watch.cpuAtLast[3] - watch.cpuAtFirst[3], watch.cpuAtLast[0] + watch.cpuAtLast[1]
                                + watch.cpuAtLast[2] - watch.cpuAtFirst[0] - watch.cpuAtFirst[1] - watch.cpuAtFirst[2]);
            }
        } catch (AssertionError | RuntimeException e) {
            System.err.println(cluster.logs());
            throw e;
        } finally {
            cluster.close();
            cluster = null;
        }
    }

    /** The CPU seconds (user and system) node-1..4's processes have used so far, in that order. */
    private double[] cpuSeconds() {
        double[] cpu = new double[4];
        for (int i = 0; i < 4; i++) {
            long pid = cluster.node("node-" + (i + 1)).pid();
            cpu[i] = ProcessHandle.of(pid).flatMap(h -> h.info().totalCpuDuration())
                    .map(d -> d.toNanos() / 1e9).orElse(Double.NaN);
        }
        return cpu;
    }

    /** Every partition owned, the owners the running nodes. */
    private boolean settled(ClusterMap map) {
        java.util.Map<String, Integer> owned = ClusterProcesses.partitionsPerOwner(map);
        return !owned.containsKey(null) && owned.keySet().equals(new java.util.TreeSet<>(cluster.runningIds()));
    }

    private static List<Path> adoptedFiles(Path moves) throws IOException {
        if (!Files.isDirectory(moves)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(moves)) {
            return files.filter(f -> f.getFileName().toString().startsWith("adopt-")).sorted().toList();
        }
    }

    /**
     * Copies the files over a loopback socket: one thread sends each with {@code transferTo}, another receives
     * into a file of the same name under {@code into} with {@code transferFrom} and fsyncs it.
     *
     * @return seconds from the first byte asked for to the last file's fsync
     */
    private static double plainCopy(List<Path> files, Path into) throws Exception {
        Files.createDirectories(into);
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            long start = System.nanoTime();
            CompletableFuture<Void> receiver = CompletableFuture.runAsync(() -> {
                try (SocketChannel in = server.accept()) {
                    ByteBuffer length = ByteBuffer.allocate(8);
                    for (Path f : files) {
                        length.clear();
                        while (length.hasRemaining()) {
                            if (in.read(length) < 0) {
                                throw new IOException("the sender ended early");
                            }
                        }
                        long size = length.flip().getLong();
                        try (FileChannel out = FileChannel.open(into.resolve(f.getFileName()),
                                StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                                StandardOpenOption.TRUNCATE_EXISTING)) {
                            for (long at = 0; at < size; ) {
                                long got = out.transferFrom(in, at, size - at);
                                if (got <= 0) {
                                    throw new IOException("the sender ended at byte " + at + " of " + size);
                                }
                                at += got;
                            }
                            out.force(true);
                        }
                    }
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }, command -> new Thread(command, "plain-copy-receiver").start());
            try (SocketChannel out = SocketChannel.open(server.getLocalAddress())) {
                for (Path f : files) {
                    try (FileChannel in = FileChannel.open(f, StandardOpenOption.READ)) {
                        long size = in.size();
                        ByteBuffer length = ByteBuffer.allocate(8).putLong(size).flip();
                        while (length.hasRemaining()) {
                            out.write(length);
                        }
                        for (long at = 0; at < size; ) {
                            at += in.transferTo(at, size - at, out);
                        }
                    }
                }
            }
            receiver.get(10, TimeUnit.MINUTES);
            return (System.nanoTime() - start) / 1e9;
        }
    }
}
