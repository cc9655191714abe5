package io.sluice.samples.bench;

import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.node.NodeConfig;
import io.sluice.node.SluiceNode;
import io.sluice.samples.load.StockOrderFields;
import org.apache.ignite.Ignite;
import org.apache.ignite.IgniteDataStreamer;
import org.apache.ignite.Ignition;
import org.apache.ignite.binary.BinaryObject;
import org.apache.ignite.binary.BinaryObjectBuilder;
import org.apache.ignite.cache.CacheAtomicityMode;
import org.apache.ignite.cache.CacheMode;
import org.apache.ignite.cache.affinity.rendezvous.RendezvousAffinityFunction;
import org.apache.ignite.configuration.CacheConfiguration;
import org.apache.ignite.configuration.DataRegionConfiguration;
import org.apache.ignite.configuration.DataStorageConfiguration;
import org.apache.ignite.configuration.IgniteConfiguration;
import org.apache.ignite.spi.communication.tcp.TcpCommunicationSpi;
import org.apache.ignite.spi.discovery.tcp.TcpDiscoverySpi;
import org.apache.ignite.spi.discovery.tcp.ipfinder.vm.TcpDiscoveryVmIpFinder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The design's "Sluice ≥ 5× Ignite 2.18 side by side": the same StockOrder load (Long keys 0..n-1, the 11-field order
 * of {@link StockOrderFields} built as a binary object by a reused builder, one producer thread) through each
 * system's streamer with its defaults into an embedded node of each: Sluice's default streamer (isolated receiver)
 * into a cache of 1,024 partitions; Ignite's {@code IgniteDataStreamer} (allowOverwrite false, its isolated updater)
 * with {@code keepBinary} into an ATOMIC PARTITIONED cache of 1,024 partitions without backups, in memory, on a server
 * node alone (discovery and communication on 127.0.0.1; its work files in a temporary directory, deleted at the end).
 * One system per JVM: a 500,000-entry warm-up, then
 * {@code rounds} loads of {@code entries}, each into a fresh cache (Ignite: the cache destroyed and created on the
 * same node, whose start takes seconds; Sluice: a fresh node), each checked for its size; entries/s on the wall
 * clock and per process CPU-second. Alternate JVMs of each system and compare the medians of their later rounds.
 *
 * <pre>
 * java -Xms2g -Xmx2g -cp samples/target/benchmarks.jar io.sluice.samples.bench.IgniteSideBySide sluice 2000000 6
 * java -Xms2g -Xmx2g @samples/ignite-jdk17.args -cp samples/target/benchmarks.jar io.sluice.samples.bench.IgniteSideBySide ignite 2000000 6
 * </pre>
 * ({@code samples/ignite-jdk17.args}: the {@code --add-opens} Ignite 2.x needs on JDK 17 and later.) A measurement,
 * not a test.
 */
public final class IgniteSideBySide {

    private static final String CACHE = "orders";
    private static final int PARTITIONS = 1024;

    private IgniteSideBySide() {
    }

    public static void main(String[] args) throws IOException {
        String system = args.length > 0 ? args[0] : "sluice";
        long entries = args.length > 1 ? Long.parseLong(args[1]) : 2_000_000;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 6;
        long region = Math.max(1L << 30, entries * 400);
        switch (system) {
            case "sluice" -> sluice(entries, rounds, region);
            case "ignite" -> ignite(entries, rounds, region);
            default -> throw new IllegalArgumentException("sluice or ignite, not " + system);
        }
    }

    private static void sluice(long entries, int rounds, long region) {
        for (int round = 0; round <= rounds; round++) {
            long n = round == 0 ? Math.min(entries, 500_000) : entries;
            try (SluiceNode node = SluiceNode.start(NodeConfig.builder().dataRegionMaxSize(region).build())) {
                node.createCache(CacheConfig.named(CACHE).withPartitions(PARTITIONS));
                long cpu = processCpuNanos();
                long start = System.nanoTime();
                io.sluice.binary.BinaryObjectBuilder builder = node.binary().builder(StockOrderFields.TYPE_NAME);
                try (DataStreamer<Long, io.sluice.binary.BinaryObject> streamer = node.dataStreamer(CACHE)) {
                    for (long k = 0; k < n; k++) {
                        streamer.addData(k, StockOrderFields.build(builder, k, null));
                    }
                }
                report("sluice", round, n, System.nanoTime() - start, processCpuNanos() - cpu,
                        node.cache(CACHE).size());
            }
        }
    }

    private static void ignite(long entries, int rounds, long region) throws IOException {
        Path work = Files.createTempDirectory("ignite-side-by-side-"); // Ignite's work files, not the current folder
        try {
            ignite(entries, rounds, region, work);
        } finally {
            try (Stream<Path> files = Files.walk(work)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static void ignite(long entries, int rounds, long region, Path work) {
        IgniteConfiguration config = new IgniteConfiguration().setIgniteInstanceName("side-by-side")
                .setWorkDirectory(work.toString())
                .setLocalHost("127.0.0.1")
                .setDiscoverySpi(new TcpDiscoverySpi().setLocalAddress("127.0.0.1").setLocalPort(47500)
                        .setLocalPortRange(10).setIpFinder(new TcpDiscoveryVmIpFinder()
                                .setAddresses(List.of("127.0.0.1:47500..47509"))))
                .setCommunicationSpi(new TcpCommunicationSpi().setLocalAddress("127.0.0.1"))
                .setDataStorageConfiguration(new DataStorageConfiguration().setDefaultDataRegionConfiguration(
                        new DataRegionConfiguration().setName("default").setInitialSize(region).setMaxSize(region)))
                .setMetricsLogFrequency(0);
        try (Ignite ignite = Ignition.start(config)) {
            for (int round = 0; round <= rounds; round++) {
                long n = round == 0 ? Math.min(entries, 500_000) : entries;
                ignite.getOrCreateCache(new CacheConfiguration<Long, Object>(CACHE).setCacheMode(CacheMode.PARTITIONED)
                        .setAtomicityMode(CacheAtomicityMode.ATOMIC).setBackups(0)
                        .setAffinity(new RendezvousAffinityFunction(false, PARTITIONS)));
                long cpu = processCpuNanos();
                long start = System.nanoTime();
                BinaryObjectBuilder builder = ignite.binary().builder(StockOrderFields.TYPE_NAME);
                try (IgniteDataStreamer<Long, BinaryObject> streamer = ignite.dataStreamer(CACHE)) {
                    streamer.keepBinary(true);
                    for (long k = 0; k < n; k++) {
                        streamer.addData(k, order(builder, k));
                    }
                }
                report("ignite", round, n, System.nanoTime() - start, processCpuNanos() - cpu,
                        ignite.cache(CACHE).size());
                ignite.destroyCache(CACHE);
            }
        }
    }

    /** The key's order as {@link StockOrderFields#build} writes it, through Ignite's builder. */
    private static BinaryObject order(BinaryObjectBuilder b, long key) {
        StockOrderFields.forEachField(key, b::setField);
        return b.build();
    }

    private static void report(String system, int round, long n, long wallNanos, long cpuNanos, long size) {
        if (size != n) {
            throw new IllegalStateException(system + " loaded " + n + " entries but its cache holds " + size);
        }
        System.out.printf("%s %s %d: %,d entries, %,.0f entries/s, %,.0f per CPU-second%n", system,
                round == 0 ? "warm-up" : "round", round, n, n / (wallNanos / 1e9), n / (cpuNanos / 1e9));
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
    }
}
