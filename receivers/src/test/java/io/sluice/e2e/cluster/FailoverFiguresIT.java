package io.sluice.e2e.cluster;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.Sluice;
import io.sluice.StreamerOptions;
import io.sluice.WriteSyncMode;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.protocol.internal.ClusterMap;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 27's figures, off by default ({@code -Dsluice.failover.figures=true}; it takes minutes):
 * <pre>
 * ./mvnw -B -pl receivers -am verify -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dfailsafe.failIfNoSpecifiedTests=false -Dit.test=FailoverFiguresIT -Dsluice.failover.figures=true
 * </pre>
 * Three nodes (processes), session timeout 6 s.
 * <ul>
 *   <li>Failover time: a cache of its own with one backup, FULL_SYNC; a writer issues a put every millisecond to keys of the
 *   victim's partitions, without waiting; the victim is killed with kill -9; the time from the kill to the first
 *   acknowledgement of a put issued after it, and to the moment every one of its partitions acknowledged such a
 *   put. {@code -Dsluice.failover.kills=3} kills (node-1, node-2, node-3 in turn, each restarted after).</li>
 *   <li>Load: {@code -Dsluice.failover.entries=500000} StockOrders streamed into three caches of the same cluster,
 *   backups 0, backups 1 PRIMARY_SYNC and backups 1 FULL_SYNC, in turn, {@code -Dsluice.failover.passes=3} passes
 *   (each beginning with another cache; the first warms up): entries/s from the first entry until the streamer's close
 *   returned, and CPU time per entry of the three nodes together (until they are idle again: replication's tail
 *   included) and of the client's JVM.</li>
 * </ul>
 * {@code -Dsluice.failover.partitions=1024} for the default partition count (64 by default); with more entries give
 * the nodes room: {@code -Dsluice.cluster.it.region=1g -Dsluice.cluster.it.heap=1g} (each node holds a third of b0
 * and two thirds of each b1).
 */
@Timeout(3600)
class FailoverFiguresIT {

    private static final List<String> NODES = List.of("node-1", "node-2", "node-3");

    @Test
    void failoverTimeAndLoadWithBackups() throws Exception {
        Assumptions.assumeTrue(Boolean.getBoolean("sluice.failover.figures"),
                "set -Dsluice.failover.figures=true to run");
        int partitions = Integer.getInteger("sluice.failover.partitions", BackupKillLoopIT.PARTITIONS);
        try (ClusterProcesses cluster = ClusterProcesses.create("figures", Duration.ofSeconds(60), partitions)) {
            try {
                cluster.sessionTimeout(BackupKillLoopIT.SESSION).startAll(NODES.toArray(String[]::new));
                try (Sluice client = cluster.client()) {
                    client.getOrCreateCache(CacheConfig.named("b0"));
                    client.getOrCreateCache(CacheConfig.named("b1-primary").withBackups(1)
                            .withWriteSync(WriteSyncMode.PRIMARY_SYNC));
                    client.getOrCreateCache(CacheConfig.named("b1-full").withBackups(1)
                            .withWriteSync(WriteSyncMode.FULL_SYNC));
                    client.getOrCreateCache(CacheConfig.named("failover").withBackups(1)
                            .withWriteSync(WriteSyncMode.FULL_SYNC));
                    // The failovers first, on small caches: after the load a restarted node catches up millions of
                    // entries, which is another figure (and took its 6 s session past expiry on a busy machine).
                    int kills = Integer.getInteger("sluice.failover.kills", 3);
                    for (int i = 0; i < kills; i++) {
                        failover(cluster, client, NODES.get(i % NODES.size()), partitions);
                    }
                    load(cluster, client);
                }
            } catch (AssertionError | RuntimeException e) {
                System.err.println(cluster.logs());
                throw e;
            }
        }
    }

    private static void failover(ClusterProcesses cluster, Sluice client, String victim, int partitions)
            throws Exception {
        ClusterMap before = ReplicaMaps.awaitReplicated(cluster, 1, Duration.ofSeconds(180));
        Set<Integer> itsPartitions = ReplicaMaps.primaryOf(before, victim);
        List<Long> keys = new ArrayList<>();
        Set<Integer> wanted = new java.util.HashSet<>(itsPartitions);
        for (long k = 0; !wanted.isEmpty(); k++) {
            if (wanted.remove(AckedWrites.partition(k, partitions))) {
                keys.add(k);
            }
        }
        Cache<Long, String> cache = client.cache("failover");
        long kill = Long.MAX_VALUE;
        AtomicLong first = new AtomicLong(Long.MAX_VALUE);
        ConcurrentMap<Long, Long> firstPerKey = new ConcurrentHashMap<>();
        List<CompletableFuture<Void>> afterKill = new ArrayList<>();
        long start = System.nanoTime();
        long killAt = start + TimeUnit.SECONDS.toNanos(2);
        for (int i = 0; ; i++) {
            long now = System.nanoTime();
            if (kill == Long.MAX_VALUE && now >= killAt) {
                cluster.kill(victim);
                kill = System.nanoTime();
            }
            if (kill != Long.MAX_VALUE && firstPerKey.size() == keys.size()) {
                break;
            }
            if (now - start > TimeUnit.SECONDS.toNanos(120)) {
                throw new AssertionError("the victim's partitions were not all written again within 120 s: "
                        + firstPerKey.size() + " of " + keys.size());
            }
            long key = keys.get(i % keys.size());
            CompletableFuture<Void> put = cache.putAsync(key, "after " + i);
            if (kill != Long.MAX_VALUE) {
                afterKill.add(put.whenComplete((ok, e) -> {
                    if (e == null) {
                        long t = System.nanoTime();
                        first.accumulateAndGet(t, Math::min);
                        firstPerKey.putIfAbsent(key, t);
                    }
                }));
            }
            LockSupport.parkNanos(start + (i + 1) * 1_000_000L - System.nanoTime());
        }
        long killed = kill;
        long last = firstPerKey.values().stream().mapToLong(t -> t).max().orElseThrow();
        System.out.printf("FIGURE failover: %s killed (primary of %d partitions): first put issued after the kill"
                        + " acknowledged after %.2f s, every one of its partitions after %.2f s%n", victim,
                keys.size(), (first.get() - killed) / 1e9, (last - killed) / 1e9);
        CompletableFuture.allOf(afterKill.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
        ReplicaMaps.awaitFailedOver(cluster, NODES.get((NODES.indexOf(victim) + 1) % NODES.size()), victim,
                Duration.ofSeconds(60));
        cluster.start(victim);
    }

    private static void load(ClusterProcesses cluster, Sluice client) throws Exception {
        ReplicaMaps.awaitReplicated(cluster, 1, Duration.ofSeconds(180));
        long n = Long.getLong("sluice.failover.entries", 500_000);
        int passes = Integer.getInteger("sluice.failover.passes", 3);
        BinaryObjectBuilder builder = client.binary().builder("StockOrder");
        List<String> caches = List.of("b0", "b1-primary", "b1-full");
        for (int pass = 1; pass <= passes; pass++) {
            for (int c = 0; c < caches.size(); c++) {
                String cache = caches.get((c + pass - 1) % caches.size()); // each pass begins with another cache
                long cpu0 = nodesCpuNanos(cluster);
                long client0 = clientCpuNanos();
                long t0 = System.nanoTime();
                try (DataStreamer<Long, BinaryObject> streamer = client.dataStreamer(cache, StreamerOptions.builder()
                        .timeout(Duration.ofSeconds(120)).build())) {
                    long base = pass * n;
                    for (long k = base; k < base + n; k++) {
                        streamer.addData(k, OrderLoad.order(builder, k));
                    }
                }
                long wall = System.nanoTime() - t0;
                long clientCpu = clientCpuNanos() - client0;
                awaitIdle(cluster);
                long nodesCpu = nodesCpuNanos(cluster) - cpu0;
                System.out.printf("FIGURE load pass %d %-10s: %,d entries in %.2f s = %,.0f entries/s; CPU per entry:"
                                + " nodes %.2f µs, client %.2f µs%n", pass, cache, n, wall / 1e9, n / (wall / 1e9),
                        nodesCpu / 1e3 / n, clientCpu / 1e3 / n);
                assertThat(client.cache(cache).size()).as("%s's size", cache).isEqualTo(pass * n);
            }
        }
    }

    /** Waits until the nodes use less than a tenth of a core together over 500 ms (the replication's tail). */
    private static void awaitIdle(ClusterProcesses cluster) {
        AtomicLong last = new AtomicLong(nodesCpuNanos(cluster));
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).until(() -> {
            long now = nodesCpuNanos(cluster);
            return now - last.getAndSet(now) < 50_000_000L;
        });
    }

    private static long nodesCpuNanos(ClusterProcesses cluster) {
        long sum = 0;
        for (String id : cluster.runningIds()) {
            sum += ProcessHandle.of(cluster.node(id).pid()).flatMap(p -> p.info().totalCpuDuration())
                    .orElseThrow(() -> new AssertionError("no CPU time for " + id)).toNanos();
        }
        return sum;
    }

    private static long clientCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }
}
