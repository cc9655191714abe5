package io.sluice.samples.bench;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.node.NodeConfig;
import io.sluice.node.PersistenceConfig;
import io.sluice.node.WalMode;
import io.sluice.node.internal.NodeEngine;
import io.sluice.samples.load.StockOrderFields;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.Stream;

/**
 * What durability costs, measured in one run (a measurement, not a test; asserts only that the
 * entries arrived).
 *
 * <p>{@code load}: N StockOrder entries (unique Long keys, values from a reused binary builder,
 * isolated receiver, default streamer options, one adding thread) into an embedded node: in memory,
 * then with persistence in each {@link WalMode}; the rounds interleave the configurations so machine
 * noise spreads over all of them. Then the FSYNC node's directory is opened again: the restart time
 * (checkpoint load, then the log after its mark) and disk bytes per entry.
 *
 * <p>{@code commits}: single-entry {@code put}s (or {@code putAll}s of k entries: one commit each) from
 * 1, 16 and 256 threads under FSYNC for a few seconds each: commits/s and entries/s, beside the disk's
 * raw fsync rate (4 KiB write + fsync, one thread).
 *
 * <pre>
 * java -Xmx1g -XX:MaxDirectMemorySize=6g -cp samples/target/benchmarks.jar io.sluice.samples.bench.DurabilityLoad \
 *     load [entries=2000000] [rounds=2] [dir=target/durability-load]
 * java -Xmx1g -XX:MaxDirectMemorySize=2g -cp samples/target/benchmarks.jar io.sluice.samples.bench.DurabilityLoad \
 *     commits [secondsPerCell=3] [dir=target/durability-load]
 * java -Xmx1g -XX:MaxDirectMemorySize=6g -cp samples/target/benchmarks.jar io.sluice.samples.bench.DurabilityLoad \
 *     restart [entries=10000000] [dir=target/durability-load] [walMode of the load=FSYNC]
 * </pre>
 * {@code restart} loads the entries with FSYNC, closes the node (its final checkpoint timed), and times a
 * node started on the same directory (the checkpoint's partition files loaded, then the log after its mark).
 */
public final class DurabilityLoad {

    private DurabilityLoad() {
    }

    public static void main(String[] args) throws Exception {
        String what = args.length > 0 ? args[0] : "load";
        if (what.equals("commits")) {
            int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
            Path dir = Path.of(args.length > 2 ? args[2] : "target/durability-load");
            commits(seconds, dir);
        } else if (what.equals("restart")) {
            int entries = args.length > 1 ? Integer.parseInt(args[1]) : 10_000_000;
            Path dir = Path.of(args.length > 2 ? args[2] : "target/durability-load");
            String mode = args.length > 3 ? args[3] : "FSYNC";
            System.out.printf("loading %,d entries with %s: %,.0f entries/s%n", entries, mode, loadOnce(mode, entries, dir));
            restart(entries, dir.resolve(mode));
        } else {
            int entries = args.length > 1 ? Integer.parseInt(args[1]) : 2_000_000;
            int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 2;
            Path dir = Path.of(args.length > 3 ? args[3] : "target/durability-load");
            load(entries, rounds, dir);
        }
    }

    // ---- load ----

    private static void load(int entries, int rounds, Path dir) {
        List<String> configs = List.of(System.getProperty("sluice.configs", "in-memory,NONE,BACKGROUND,LOG_ONLY,FSYNC")
                .split(","));
        Map<String, List<Double>> rates = new LinkedHashMap<>();
        configs.forEach(c -> rates.put(c, new ArrayList<>()));
        System.out.printf("warm-up: %,d entries in memory and with FSYNC%n", entries);
        loadOnce("in-memory", entries, dir);
        loadOnce("FSYNC", entries, dir);
        Map<String, List<Double>> ratios = new LinkedHashMap<>();
        configs.forEach(c -> ratios.put(c, new ArrayList<>()));
        for (int round = 1; round <= rounds; round++) {
            double memory = 0;
            for (String config : configs) {
                double rate = loadOnce(config, entries, dir);
                rates.get(config).add(rate);
                if (config.equals("in-memory")) {
                    memory = rate;
                }
                double ratio = memory == 0 ? Double.NaN : rate / memory;
                ratios.get(config).add(ratio);
                System.out.printf("round %d  %-10s %,12.0f entries/s  %5.0f%% of this round's in-memory%n", round, config,
                        rate, 100 * ratio);
            }
        }
        System.out.println();
        System.out.printf("%-10s %14s %14s %22s   (%d rounds of %,d entries, interleaved)%n", "config",
                "median /s", "best /s", "median of round ratios", rounds, entries);
        for (String config : configs) {
            System.out.printf("%-10s %,14.0f %,14.0f %21.0f%%%n", config, median(rates.get(config)),
                    best(rates.get(config)), 100 * median(ratios.get(config)));
        }
        if (configs.contains("FSYNC")) {
            restart(entries, dir.resolve("FSYNC"));
        }
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n == 0 ? Double.NaN : n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static double best(List<Double> rates) {
        return rates.stream().mapToDouble(Double::doubleValue).max().orElse(0);
    }

    private static NodeConfig nodeConfig(String config, Path dir) {
        NodeConfig.Builder b = NodeConfig.builder().dataRegionMaxSize(4L << 30);
        if (!config.equals("in-memory")) {
            b.persistence(PersistenceConfig.at(dir.resolve(config)).withWalMode(WalMode.valueOf(config)));
        }
        return b.build();
    }

    /** @return entries/s from the first addData to the streamer's close (everything acknowledged) */
    private static double loadOnce(String config, int entries, Path dir) {
        if (!config.equals("in-memory")) {
            deleteTree(dir.resolve(config));
        }
        try (NodeEngine node = new NodeEngine(nodeConfig(config, dir))) {
            node.createCache(CacheConfig.named("orders"));
            long start = System.nanoTime();
            BinaryObjectBuilder builder = node.binary().builder(StockOrderFields.TYPE_NAME);
            try (DataStreamer<Long, BinaryObject> streamer = node.dataStreamer("orders")) {
                for (long k = 0; k < entries; k++) {
                    streamer.addData(k, StockOrderFields.build(builder, k, null));
                }
            }
            double rate = entries / ((System.nanoTime() - start) / 1e9);
            long size = node.cache("orders").size();
            if (size != entries) {
                throw new IllegalStateException("loaded " + entries + " but the cache holds " + size);
            }
            long closing = System.nanoTime();
            node.close(); // a persistent node takes its final checkpoint here
            if (!config.equals("in-memory") && entries >= 1_000_000) {
                System.out.printf("  %s: %,d checkpoints during the load; close (final checkpoint) %,d ms%n", config,
                        node.checkpoints() - 1, (System.nanoTime() - closing) / 1_000_000);
            }
            return rate;
        }
    }

    /** Opens the FSYNC run's directory again: the log replay's time, and the log's bytes per entry. */
    private static void restart(int entries, Path dir) {
        long bytes = treeSize(dir);
        long logBytes = treeSize(dir, "wal-");
        long checkpointBytes = treeSize(dir, "part-");
        long start = System.nanoTime();
        try (NodeEngine node = new NodeEngine(NodeConfig.builder().dataRegionMaxSize(4L << 30)
                .persistence(PersistenceConfig.at(dir).withWalMode(WalMode.FSYNC)).build())) {
            long millis = (System.nanoTime() - start) / 1_000_000;
            long size = node.cache("orders").size();
            System.out.printf("%nrestart of the node: %,d entries back in %,d ms (%,.0f entries/s);"
                    + " on disk %,d bytes = %.1f bytes per entry (partition files %.1f, log %.1f)%n", size, millis,
                    size / (millis / 1e3), bytes, (double) bytes / entries, (double) checkpointBytes / entries,
                    (double) logBytes / entries);
            if (size != entries) {
                throw new IllegalStateException("restarted with " + size + " entries, expected " + entries);
            }
            io.sluice.pagestore.internal.ConsistencyReport check = node.checkConsistency(); // what checkOnRecovery costs
            System.out.printf("store consistency check after the restart: %s%n", check);
            if (!check.ok()) {
                throw new IllegalStateException("the restarted store is not consistent: " + check);
            }
        }
    }

    // ---- commits ----

    private static void commits(int seconds, Path dir) throws Exception {
        System.out.printf("raw fsync rate (4 KiB write + fsync, 1 thread): %,.0f /s%n", rawFsyncRate(dir, seconds));
        System.out.printf("%8s %12s %14s %14s %10s%n", "threads", "per commit", "commits/s", "entries/s", "fsyncs/s");
        Map<Integer, Double> oneEntryCommits = new HashMap<>();
        for (int perCommit : new int[]{1, 16, 1000}) {
            for (int threads : new int[]{1, 16, 256}) {
                double[] r = commitCell(threads, perCommit, seconds, dir.resolve("commits"));
                if (perCommit == 1) {
                    oneEntryCommits.put(threads, r[0]);
                }
                System.out.printf("%8d %12d %,14.0f %,14.0f %,10.0f%n", threads, perCommit, r[0], r[0] * perCommit, r[1]);
            }
        }
        System.out.printf("256 threads vs 1 thread, single-entry puts: %.1fx the commits/s%n",
                oneEntryCommits.get(256) / oneEntryCommits.get(1));
    }

    /** @return {commits/s, fsyncs/s} */
    private static double[] commitCell(int threads, int perCommit, int seconds, Path dir) throws Exception {
        deleteTree(dir);
        try (NodeEngine node = new NodeEngine(NodeConfig.builder().dataRegionMaxSize(2L << 30)
                .persistence(PersistenceConfig.at(dir).withWalMode(WalMode.FSYNC)).build())) {
            Cache<Long, BinaryObject> cache = node.createCache(CacheConfig.named("orders"));
            AtomicBoolean stop = new AtomicBoolean();
            LongAdder commits = new LongAdder();
            CountDownLatch done = new CountDownLatch(threads);
            long syncsBefore = fsyncs(node);
            long start = System.nanoTime();
            for (int t = 0; t < threads; t++) {
                long base = (long) t << 40;
                Thread thread = new Thread(() -> {
                    BinaryObjectBuilder builder = node.binary().builder(StockOrderFields.TYPE_NAME);
                    Map<Long, BinaryObject> batch = new HashMap<>();
                    long k = base;
                    while (!stop.get()) {
                        if (perCommit == 1) {
                            cache.put(k, StockOrderFields.build(builder, k, null));
                            k++;
                        } else {
                            batch.clear();
                            for (int i = 0; i < perCommit; i++, k++) {
                                batch.put(k, StockOrderFields.build(builder, k, null));
                            }
                            cache.putAll(batch);
                        }
                        commits.increment();
                    }
                    done.countDown();
                });
                thread.setDaemon(true);
                thread.start();
            }
            Thread.sleep(seconds * 1000L);
            stop.set(true);
            done.await();
            double elapsed = (System.nanoTime() - start) / 1e9;
            return new double[]{commits.sum() / elapsed, (fsyncs(node) - syncsBefore) / elapsed};
        }
    }

    private static long fsyncs(NodeEngine node) {
        return node.walSyncs();
    }

    private static double rawFsyncRate(Path dir, int seconds) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve("raw-fsync.bin");
        Files.deleteIfExists(file);
        ByteBuffer page = ByteBuffer.allocateDirect(4096);
        long n = 0;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            long start = System.nanoTime();
            while (System.nanoTime() < end) {
                page.clear();
                ch.write(page);
                ch.force(false);
                n++;
            }
            double rate = n / ((System.nanoTime() - start) / 1e9);
            Files.deleteIfExists(file);
            return rate;
        }
    }

    private static long treeSize(Path dir) {
        return treeSize(dir, "");
    }

    private static long treeSize(Path dir, String prefix) {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).filter(f -> f.getFileName().toString().startsWith(prefix))
                    .mapToLong(f -> f.toFile().length()).sum();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
