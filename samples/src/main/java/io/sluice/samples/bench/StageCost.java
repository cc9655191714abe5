package io.sluice.samples.bench;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.Receivers;
import io.sluice.StreamerOptions;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.node.NodeConfig;
import io.sluice.node.PersistenceConfig;
import io.sluice.node.SluiceNode;
import io.sluice.node.WalMode;
import io.sluice.pagestore.internal.DataRegionConfig;
import io.sluice.samples.StockOrder;
import io.sluice.samples.load.StockOrderFields;
import io.sluice.streamer.internal.Streamer;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * CPU nanoseconds per entry of each stage of the isolated StockOrder load (issue 29), one stage per
 * JVM: the figures of the stage table in docs/benchmarks-results.md, reproducible.
 *
 * <table>
 *   <caption>Stages</caption>
 *   <tr><th>stage</th><th>what one entry costs</th><th>clock</th></tr>
 *   <tr><td>{@code build}</td><td>a StockOrder written into one reused binary builder and built</td><td>thread</td></tr>
 *   <tr><td>{@code forKey}</td><td>{@code StockOrder.forKey}: the record alone</td><td>thread</td></tr>
 *   <tr><td>{@code marshal}</td><td>{@code forKey} + the codec marshalling the record into a buffer
 *       (marshalling = this − {@code forKey})</td><td>thread</td></tr>
 *   <tr><td>{@code encode}</td><td>the codec copying a pre-built value into a buffer</td><td>thread</td></tr>
 *   <tr><td>{@code add}</td><td>{@code addData} of pre-built values (a ring of 1,024) into a streamer whose
 *       transport acknowledges every batch unstored ({@link DiscardingTransport}: completion runs on the adding
 *       thread, so every cost of the client side is on its clock)</td><td>thread</td></tr>
 *   <tr><td>{@code add-built}, {@code add-builder}</td><td>{@code add}'s streamer, each value's fields set in one
 *       reused builder, then {@code build()} and {@code addData}, or {@code addFromBuilder}: the producer thread's
 *       whole work per entry without a node</td><td>thread</td></tr>
 *   <tr><td>{@code load-binary}</td><td>the whole isolated load into an embedded node, each value's fields set in
 *       one reused builder and added with {@code addFromBuilder} (written by the builder straight into the
 *       streamer's buffer): every thread of the process</td><td>process</td></tr>
 *   <tr><td>{@code load-binary-built}</td><td>the same, each value built into an object ({@code build()}) and added
 *       with {@code addData(key, object)}: {@code load-binary}'s loop before {@code addFromBuilder}</td>
 *       <td>process</td></tr>
 *   <tr><td>{@code load-pojo}</td><td>the same, each value a {@code StockOrder.forKey} record marshalled by
 *       {@code addData}</td><td>process</td></tr>
 *   <tr><td>{@code load-binary-log}, {@code load-binary-built-log}, {@code load-pojo-log}</td><td>the same with
 *       persistence under {@code LOG_ONLY} in a temporary directory</td><td>process</td></tr>
 * </table>
 *
 * <p>The load is {@code sluice-load --threads 1 --modes streamer-isolated}'s: a fresh node per round, a cache of
 * 1,024 partitions, buffers of 512 entries, auto-flush 1 s, 8 operations in flight, {@code Receivers.isolated()};
 * keys 0..n−1 from one producer thread, timed through {@code close()}; the cache's size is checked.
 * Each round's figure is printed, then the median and the range of the timed rounds (after the warm-up rounds);
 * for the load stages also the producer thread's own CPU per entry (building and adding, through {@code close()}).
 *
 * <pre>java -Xms1g -Xmx1g -XX:+AlwaysPreTouch -XX:MaxDirectMemorySize=2g \
 *     -cp samples/target/benchmarks.jar io.sluice.samples.bench.StageCost STAGE [entries [rounds [warm-up rounds]]]</pre>
 */
public final class StageCost {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final int RING = 1024;
    /** Partitions of the cache: {@code -Dsluice.partitions=N}, default 1,024 as in the load generator. */
    private static final int PARTITIONS = Integer.getInteger("sluice.partitions", 1024);
    /** Values kept reachable so that the JIT cannot drop the work that made them. */
    private static final Object[] SINK = new Object[RING];
    /** The load stages: the producer thread's CPU of the last round (its adds through close); -1 for the others. */
    private static long producerNanos = -1;

    private StageCost() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: StageCost build|forKey|marshal|encode|add|add-built|add-builder|load-binary|load-binary-built|load-pojo"
                    + "|load-binary-log|load-binary-built-log|load-pojo-log [entries=2000000 [rounds=5 [warmup=4]]]");
            System.exit(2);
        }
        String stage = args[0];
        int entries = args.length > 1 ? Integer.parseInt(args[1]) : 2_000_000;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        int warmup = args.length > 3 ? Integer.parseInt(args[3]) : 4;
        Round round = round(stage, entries);
        double[] perEntry = new double[rounds];
        double[] producer = new double[rounds];
        for (int r = -warmup; r < rounds; r++) {
            double ns = (double) round.cpuNanos() / entries;
            double producerNs = (double) producerNanos / entries;
            System.out.printf(Locale.ROOT, "%s round %d%s: %.1f ns/entry%s%n", stage, r + warmup + 1,
                    r < 0 ? " (warm-up)" : "", ns,
                    producerNanos < 0 ? "" : String.format(Locale.ROOT, " (producer thread %.1f)", producerNs));
            if (r >= 0) {
                perEntry[r] = ns;
                producer[r] = producerNs;
            }
            System.gc();
        }
        Arrays.sort(perEntry);
        Arrays.sort(producer);
        System.out.printf(Locale.ROOT, "%s: median %.1f ns/entry (%.1f-%.1f) over %d rounds of %d entries%s%n",
                stage, median(perEntry), perEntry[0], perEntry[rounds - 1], rounds, entries,
                producerNanos < 0 ? "" : String.format(Locale.ROOT, "; producer thread median %.1f (%.1f-%.1f)",
                        median(producer), producer[0], producer[rounds - 1]));
    }

    /** One measured pass of a stage over {@code entries} entries. */
    @FunctionalInterface
    private interface Round {
        /** CPU nanoseconds of the pass on the stage's clock. */
        long cpuNanos() throws Exception;
    }

    private static Round round(String stage, int entries) {
        BinaryContext context = new BinaryContext();
        BinaryObjectBuilder builder = context.builder(StockOrderFields.TYPE_NAME);
        GrowableBuffer out = new GrowableBuffer(512);
        return switch (stage) {
            case "build" -> () -> onThread(() -> {
                for (int k = 0; k < entries; k++) {
                    SINK[k & (RING - 1)] = StockOrderFields.build(builder, k, null);
                }
            });
            case "forKey" -> () -> onThread(() -> {
                for (int k = 0; k < entries; k++) {
                    SINK[k & (RING - 1)] = StockOrder.forKey(k);
                }
            });
            case "marshal" -> () -> onThread(() -> {
                for (int k = 0; k < entries; k++) {
                    out.reset();
                    context.encode(StockOrder.forKey(k), out);
                }
            });
            case "encode" -> {
                BinaryObject[] values = prebuilt(builder);
                yield () -> onThread(() -> {
                    for (int k = 0; k < entries; k++) {
                        out.reset();
                        context.encode(values[k & (RING - 1)], out);
                    }
                });
            }
            case "add" -> {
                BinaryObject[] values = prebuilt(builder);
                yield () -> {
                    try (DataStreamer<Long, Object> streamer = new Streamer<>("orders", options(),
                            new DiscardingTransport(PARTITIONS), context, () -> { })) {
                        return onThread(() -> {
                            for (long k = 0; k < entries; k++) {
                                streamer.addData(k, values[(int) k & (RING - 1)]);
                            }
                            streamer.flush();
                        });
                    }
                };
            }
            case "add-built", "add-builder" -> {
                boolean direct = stage.equals("add-builder");
                yield () -> {
                    try (DataStreamer<Long, Object> streamer = new Streamer<>("orders", options(),
                            new DiscardingTransport(PARTITIONS), context, () -> { })) {
                        return onThread(() -> {
                            for (long k = 0; k < entries; k++) {
                                if (direct) {
                                    streamer.addFromBuilder(k, StockOrderFields.fill(builder, k, null));
                                } else {
                                    streamer.addData(k, StockOrderFields.build(builder, k, null));
                                }
                            }
                            streamer.flush();
                        });
                    }
                };
            }
            case "load-binary" -> () -> load(entries, false, Values.BUILDER);
            case "load-binary-built" -> () -> load(entries, false, Values.BUILT);
            case "load-pojo" -> () -> load(entries, false, Values.POJO);
            case "load-binary-log" -> () -> load(entries, true, Values.BUILDER);
            case "load-binary-built-log" -> () -> load(entries, true, Values.BUILT);
            case "load-pojo-log" -> () -> load(entries, true, Values.POJO);
            default -> throw new IllegalArgumentException("no stage " + stage);
        };
    }

    private static BinaryObject[] prebuilt(BinaryObjectBuilder builder) {
        BinaryObject[] values = new BinaryObject[RING];
        for (int i = 0; i < RING; i++) {
            values[i] = StockOrderFields.build(builder, i, null);
        }
        return values;
    }

    private static StreamerOptions options() {
        return StreamerOptions.builder()
                .perPartitionBufferSize(512)
                .autoFlushInterval(Duration.ofMillis(1000))
                .perNodeParallelOperations(8)
                .receiver(Receivers.isolated())
                .build();
    }

    private static long onThread(Runnable work) {
        long start = THREADS.getCurrentThreadCpuTime();
        work.run();
        return THREADS.getCurrentThreadCpuTime() - start;
    }

    /** How the load's producer makes and adds each value. */
    private enum Values {
        /** Fields set in a reused builder, {@code addFromBuilder}. */
        BUILDER,
        /** Fields set in a reused builder, {@code build()}, {@code addData}. */
        BUILT,
        /** {@code StockOrder.forKey}, {@code addData}. */
        POJO
    }

    /** The whole isolated load on a fresh node: process CPU from the producer's start through close. */
    private static long load(int entries, boolean log, Values values) throws IOException {
        long region = Math.max(256L << 20, entries * 400L);
        NodeConfig.Builder config = NodeConfig.builder()
                .dataRegionMaxSize(region)
                .dataRegionInitialSize(Math.min(DataRegionConfig.DEFAULT_INITIAL_SIZE, region));
        Path dir = null;
        if (log) {
            dir = Files.createTempDirectory("stage-cost");
            config.persistence(PersistenceConfig.at(dir).withWalMode(WalMode.LOG_ONLY));
        }
        try (SluiceNode node = SluiceNode.start(config.build())) {
            Cache<Long, Object> cache = node.createCache(CacheConfig.named("orders").withPartitions(PARTITIONS));
            BinaryObjectBuilder builder = node.binary().builder(StockOrderFields.TYPE_NAME);
            long start = processCpu();
            long producerStart = THREADS.getCurrentThreadCpuTime();
            try (DataStreamer<Long, Object> streamer = node.dataStreamer("orders", options())) {
                switch (values) {
                    case BUILDER -> {
                        for (long k = 0; k < entries; k++) {
                            streamer.addFromBuilder(k, StockOrderFields.fill(builder, k, null));
                        }
                    }
                    case BUILT -> {
                        for (long k = 0; k < entries; k++) {
                            streamer.addData(k, StockOrderFields.build(builder, k, null));
                        }
                    }
                    case POJO -> {
                        for (long k = 0; k < entries; k++) {
                            streamer.addData(k, StockOrder.forKey(k));
                        }
                    }
                }
            }
            long cpu = processCpu() - start;
            producerNanos = THREADS.getCurrentThreadCpuTime() - producerStart;
            if (cache.size() != entries) {
                throw new IllegalStateException("the cache holds " + cache.size() + " entries, not " + entries);
            }
            return cpu;
        } finally {
            if (dir != null) {
                delete(dir);
            }
        }
    }

    private static long processCpu() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static void delete(Path dir) throws IOException {
        List<Path> paths = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(dir)) {
            walk.sorted(Comparator.reverseOrder()).forEach(paths::add);
        }
        for (Path p : paths) {
            Files.delete(p);
        }
    }

    private static double median(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
