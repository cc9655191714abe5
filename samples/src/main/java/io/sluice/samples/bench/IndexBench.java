package io.sluice.samples.bench;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.IndexQuery;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.node.NodeConfig;
import io.sluice.node.SluiceNode;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Field indexes' figures (issue 31), embedded, one thread streaming StockOrder entries with unique Long keys into the
 * isolated receiver (default streamer options), values from a reused binary builder with the StockOrder fields; the
 * indexed fields vary: secCode one of 40 codes, account one of 1,000, price one of 10,000 (100.00 to 199.99).
 *
 * <pre>
 * java -Xmx1g -XX:MaxDirectMemorySize=8g -cp samples/target/benchmarks.jar io.sluice.samples.bench.IndexBench load [entries] [rounds]
 * java -Xmx1g -XX:MaxDirectMemorySize=8g -cp samples/target/benchmarks.jar io.sluice.samples.bench.IndexBench load-one [entries] [rounds] indexed|plain [partitions]
 * java -Xmx1g -XX:MaxDirectMemorySize=8g -cp samples/target/benchmarks.jar io.sluice.samples.bench.IndexBench load-threads [entries] [rounds] indexed|plain
 * java -Xmx2g -XX:MaxDirectMemorySize=10g -cp samples/target/benchmarks.jar io.sluice.samples.bench.IndexBench query [entries] [queries]
 * </pre>
 * {@code load}: per round the same load into a cache without indexes and into one with indexes on {@code secCode}
 * and {@code account} (the order alternates between rounds), entries/s of each (wall, and per process CPU-second:
 * robust to other processes' load) and their ratios; the median ratios at the end. Which load runs first matters
 * there: a node's load after another node's larger one (the indexed) reuses memory the process already touched
 * and pays fewer page faults, so {@code load-one} runs one kind only in its JVM (a 500,000-entry warm-up of the same
 * kind, then {@code rounds} loads; user and system CPU seconds from {@code /proc/self/stat} too): alternate JVMs of
 * each kind and compare their medians; an indexed load also prints how long its first queries took (they apply what the
 * partitions still hold); its optional fifth argument sets the cache's partitions (default: the cache's default).
 * {@code query}: loads a cache with an index on {@code price}, then times a range query returning 1% of
 * the entries ({@code between(100.00, 100.99)}) against a full scan of the cache filtering the same range (values as
 * binary objects in both, reading the price field), each {@code queries} times after an untimed warm-up (the JIT's:
 * without it the first queries of a fresh JVM ran 2-3x slower) of at least five queries and 500,000 entries found (25
 * queries at 2,000,000 entries) and one scan, then the medians; each figure
 * also as the querying thread's CPU nanoseconds per entry (less moved by other processes than the wall clock).
 * Measurements, not tests.
 */
public final class IndexBench {

    private static final int CODES = 40;
    private static final int ACCOUNTS = 1_000;

    /** The loaded cache's partitions ({@code load-one}'s optional fifth argument), or 0 for the default. */
    private static int partitions;

    private IndexBench() {
    }

    public static void main(String[] args) {
        String what = args.length > 0 ? args[0] : "load";
        long entries = args.length > 1 ? Long.parseLong(args[1]) : 2_000_000;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        switch (what) {
            case "load" -> load(entries, rounds);
            case "load-one" -> {
                if (args.length > 4) {
                    partitions = Integer.parseInt(args[4]);
                }
                loadOne(entries, rounds, args.length > 3 && args[3].equals("indexed"));
            }
            case "load-threads" -> LoadThreads.run(entries, rounds, args.length > 3 && args[3].equals("indexed"));
            case "query" -> query(entries, rounds);
            default -> throw new IllegalArgumentException("load, load-one or query, not " + what);
        }
    }

    static BinaryObject order(BinaryObjectBuilder b, long key) {
        long mix = key * 0x9E3779B97F4A7C15L;
        return b.setField("secCode", "SEC" + Long.remainderUnsigned(mix >>> 7, CODES))
                .setDouble("price", 100.0 + (key % 10_000) / 100.0)
                .setLong("quantity", 1 + key % 1000)
                .setField("buySell", (key & 1) == 0 ? "B" : "S")
                .setField("secBoard", "TQBR")
                .setField("account", "L01-" + Long.remainderUnsigned(mix >>> 17, ACCOUNTS))
                .setField("user", "user" + (key % 100))
                .setField("currency", "RUB")
                .setDouble("commission", 0.01 * (1 + key % 7))
                .setField("status", "NEW")
                .setBoolean("marketMaker", key % 10 == 0)
                .build();
    }

    private static NodeConfig node(long entries) {
        return NodeConfig.builder().dataRegionMaxSize(Math.max(1L << 30, entries * 400)).build();
    }

    static NodeConfig nodeFor(long entries) {
        return node(entries);
    }

    /** Streams the entries; returns the wall nanoseconds. */
    static long stream(SluiceNode node, String cache, long entries) {
        long start = System.nanoTime();
        BinaryObjectBuilder builder = node.binary().builder("StockOrder");
        try (DataStreamer<Long, BinaryObject> streamer = node.dataStreamer(cache)) {
            for (long k = 0; k < entries; k++) {
                streamer.addData(k, order(builder, k));
            }
        }
        long nanos = System.nanoTime() - start;
        long size = node.cache(cache).size();
        if (size != entries) {
            throw new IllegalStateException("loaded " + entries + " entries but the cache holds " + size);
        }
        return nanos;
    }

    /** Streams the entries as {@link #stream} does, calling {@code closing} before the streamer's close; returns when. */
    static long streamMarkingClose(SluiceNode node, String cache, long entries, Runnable closing) {
        BinaryObjectBuilder builder = node.binary().builder("StockOrder");
        long closeAt;
        try (DataStreamer<Long, BinaryObject> streamer = node.dataStreamer(cache)) {
            for (long k = 0; k < entries; k++) {
                streamer.addData(k, order(builder, k));
            }
            closing.run();
            closeAt = System.nanoTime();
        }
        long size = node.cache(cache).size();
        if (size != entries) {
            throw new IllegalStateException("loaded " + entries + " entries but the cache holds " + size);
        }
        return closeAt;
    }

    /** Entries/s wall and entries per process CPU-second (robust to other processes' load) of one load. */
    private static double[] loadRate(long entries, boolean indexed) {
        try (SluiceNode node = SluiceNode.start(node(entries))) {
            CacheConfig config = CacheConfig.named("orders");
            if (partitions > 0) {
                config = config.withPartitions(partitions);
            }
            node.createCache(indexed ? config.index("secCode").index("account") : config);
            long cpu = processCpuNanos();
            long wall = stream(node, "orders", entries);
            if (indexed) { // the index changes a partition still holds are part of the load: a query applies them
                long start = System.nanoTime();
                Cache<Long, BinaryObject> cache = node.cache("orders");
                for (String field : new String[] {"secCode", "account"}) {
                    try (Stream<Map.Entry<Long, BinaryObject>> none = cache.query(IndexQuery.on(field).eq("none"))) {
                        none.forEach(e -> {
                            throw new IllegalStateException("found " + e.getKey());
                        });
                    }
                }
                long settle = System.nanoTime() - start;
                wall += settle;
                lastSettleNanos = settle;
            }
            return new double[] {entries / (wall / 1e9), entries / ((processCpuNanos() - cpu) / 1e9)};
        }
    }

    /** The wall nanoseconds of the last indexed load's first queries (what they applied of the held changes). */
    private static long lastSettleNanos;

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                .getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static void load(long entries, int rounds) {
        loadRate(Math.min(entries, 500_000), true); // warm-up: JIT of both paths
        loadRate(Math.min(entries, 500_000), false);
        List<Double> wallRatios = new ArrayList<>();
        List<Double> cpuRatios = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            boolean indexedFirst = round % 2 == 0;
            double[] first = loadRate(entries, indexedFirst);
            double[] second = loadRate(entries, !indexedFirst);
            double[] plain = indexedFirst ? second : first;
            double[] indexed = indexedFirst ? first : second;
            wallRatios.add(indexed[0] / plain[0]);
            cpuRatios.add(indexed[1] / plain[1]);
            System.out.printf("round %d: %,d entries; no index %,.0f entries/s (%,.0f per CPU-second), indexes on"
                    + " secCode and account %,.0f entries/s (%,.0f per CPU-second): %.2f wall, %.2f CPU%n", round,
                    entries, plain[0], plain[1], indexed[0], indexed[1], indexed[0] / plain[0], indexed[1] / plain[1]);
        }
        Collections.sort(wallRatios);
        Collections.sort(cpuRatios);
        System.out.printf("median ratio (indexed / not) of %d rounds: %.2f wall, %.2f per CPU-second%n", rounds,
                wallRatios.get(wallRatios.size() / 2), cpuRatios.get(cpuRatios.size() / 2));
    }

    private static void loadOne(long entries, int rounds, boolean indexed) {
        loadRate(Math.min(entries, 500_000), indexed); // warm-up: JIT of the path
        List<Double> perCpu = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            long[] before = userSystemTicks();
            double[] rate = loadRate(entries, indexed);
            long[] after = userSystemTicks();
            perCpu.add(rate[1]);
            System.out.printf("%s round %d: %,d entries, %,.0f entries/s (%,.0f per CPU-second; user %.2f s,"
                    + " system %.2f s)%s%n", indexed ? "indexed" : "plain", round, entries, rate[0], rate[1],
                    (after[0] - before[0]) / 100.0, (after[1] - before[1]) / 100.0,
                    indexed ? String.format("; first queries %.1f ms", lastSettleNanos / 1e6) : "");
        }
        Collections.sort(perCpu);
        System.out.printf("%s median of %d rounds: %,.0f entries per CPU-second%n", indexed ? "indexed" : "plain",
                rounds, perCpu.get(perCpu.size() / 2));
    }

    /** This process's user and system CPU in clock ticks (assumed 100 a second) from /proc/self/stat, or zeros. */
    private static long[] userSystemTicks() {
        try {
            String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return new long[] {Long.parseLong(f[11]), Long.parseLong(f[12])};
        } catch (java.io.IOException | RuntimeException e) {
            return new long[2];
        }
    }

    private static void query(long entries, int queries) {
        try (SluiceNode node = SluiceNode.start(node(entries))) {
            node.createCache(CacheConfig.named("orders").index("price"));
            long loadNanos = stream(node, "orders", entries);
            System.out.printf("loaded %,d entries with an index on price in %,d ms%n", entries, loadNanos / 1_000_000);
            Cache<Long, BinaryObject> cache = node.<Long, Object>cache("orders").withKeepBinary();
            // Warm-up, untimed: the JIT compiles both paths (the first queries of a fresh JVM ran 2-3x slower).
            long warmFound = 0;
            int warmQueries = 0;
            while (warmQueries < WARM_UP_QUERIES || warmFound < WARM_UP_FOUND) {
                warmFound += rangeQuery(cache)[0];
                warmQueries++;
            }
            long warmScanned = scan(cache)[0];
            System.out.printf("warm-up: %d queries (%,d entries found) and 1 scan (%,d entries), untimed%n",
                    warmQueries, warmFound, warmScanned);
            List<Double> queryMs = new ArrayList<>();
            List<Double> queryCpu = new ArrayList<>();
            List<Double> scanRate = new ArrayList<>();
            List<Double> scanCpu = new ArrayList<>();
            List<Double> faster = new ArrayList<>();
            for (int q = 1; q <= queries; q++) {
                long cpu = threadCpuNanos();
                long start = System.nanoTime();
                long[] query = rangeQuery(cache);
                long queryNanos = System.nanoTime() - start;
                long queryCpuNanos = threadCpuNanos() - cpu;
                cpu = threadCpuNanos();
                start = System.nanoTime();
                long[] scan = scan(cache);
                long scanNanos = System.nanoTime() - start;
                long scanCpuNanos = threadCpuNanos() - cpu;
                long found = query[0];
                long scanned = scan[0];
                if (scan[1] != found) {
                    throw new IllegalStateException("the query found " + found + " entries, the scan " + scan[1]);
                }
                queryMs.add(queryNanos / 1e6);
                queryCpu.add((double) queryCpuNanos / found);
                scanRate.add(scanned / (scanNanos / 1e9));
                scanCpu.add((double) scanCpuNanos / scanned);
                faster.add((double) scanNanos / queryNanos);
                System.out.printf("query %d: range query %,d entries (%.2f%% of %,d) in %,d ms (%,.0f entries/s; %,.0f ns"
                                + " of the thread's CPU per entry); full scan of %,d entries in %,d ms (%,.0f entries/s,"
                                + " %,.0f ns of CPU per entry): %.1fx faster%n",
                        q, found, 100.0 * found / entries, entries, queryNanos / 1_000_000, found / (queryNanos / 1e9),
                        (double) queryCpuNanos / found, scanned, scanNanos / 1_000_000, scanned / (scanNanos / 1e9),
                        (double) scanCpuNanos / scanned, (double) scanNanos / queryNanos);
            }
            long found = rangeQuery(cache)[0];
            System.out.printf("median of %d: range query %,.0f ms (%,.0f entries/s, %,.0f ns of CPU per entry); full scan"
                            + " %,.0f entries/s (%,.0f ns of CPU per entry); query faster by %.1fx%n", queries,
                    median(queryMs), found / (median(queryMs) / 1e3), median(queryCpu), median(scanRate),
                    median(scanCpu), median(faster));
        }
    }

    /** The warm-up runs at least this many queries, and until they found at least {@link #WARM_UP_FOUND} entries. */
    private static final int WARM_UP_QUERIES = 5;
    private static final long WARM_UP_FOUND = 500_000;

    /** The range query of 1%: entries found, and a sum of their prices (kept so that the reads are not dropped). */
    private static long[] rangeQuery(Cache<Long, BinaryObject> cache) {
        long found = 0;
        double sum = 0;
        try (Stream<Map.Entry<Long, BinaryObject>> s = cache.query(IndexQuery.on("price").between(100.0, 100.99))) {
            for (var it = s.iterator(); it.hasNext(); ) {
                sum += it.next().getValue().<Double>field("price");
                found++;
            }
        }
        return new long[] {found, (long) sum};
    }

    /** The full scan, filtering the query's range from every entry's price: entries scanned, entries matching. */
    private static long[] scan(Cache<Long, BinaryObject> cache) {
        long scanned = 0;
        long matched = 0;
        try (Stream<Map.Entry<Long, BinaryObject>> s = cache.scan()) {
            for (var it = s.iterator(); it.hasNext(); ) {
                double price = it.next().getValue().<Double>field("price");
                scanned++;
                if (price >= 100.0 && price <= 100.99) {
                    matched++;
                }
            }
        }
        return new long[] {scanned, matched};
    }

    private static long threadCpuNanos() {
        return java.lang.management.ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }
}
