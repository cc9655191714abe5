package io.sluice.samples.bench;

import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.StreamerOptions;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.node.NodeConfig;
import io.sluice.node.SluiceNode;
import io.sluice.samples.StockOrder;
import io.sluice.samples.load.StockOrderFields;

import java.lang.management.ManagementFactory;

/**
 * Measures an embedded load: N StockOrder entries with unique Long keys, isolated receiver,
 * default streamer options, from one thread, with values from a reused binary builder and then as
 * POJOs. Prints entries/s; asserts nothing (a measurement, not a test).
 *
 * <pre>
 * java -Xmx512m -XX:MaxDirectMemorySize=4g -cp samples/target/benchmarks.jar io.sluice.samples.bench.EmbeddedLoadRate [entries] [rounds]
 * </pre>
 */
public final class EmbeddedLoadRate {

    /** Default options unless -Dsluice.bufferMemory / -Dsluice.applyThreads say otherwise (to compare). */
    private static final StreamerOptions OPTIONS = Long.getLong("sluice.bufferMemory") == null ? StreamerOptions.DEFAULT
            : StreamerOptions.builder().bufferMemory(Long.getLong("sluice.bufferMemory")).build();
    private static final NodeConfig NODE = Integer.getInteger("sluice.applyThreads") == null ? NodeConfig.defaults()
            : NodeConfig.builder().applyThreads(Integer.getInteger("sluice.applyThreads")).build();

    private EmbeddedLoadRate() {
    }

    public static void main(String[] args) {
        int entries = args.length > 0 ? Integer.parseInt(args[0]) : 2_000_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        for (int round = 1; round <= rounds; round++) {
            report("build only", round, entries, buildOnly(entries));
            report("builder", round, entries, loadWithBuilder(entries));
            report("pojo", round, entries, loadPojos(entries));
        }
    }

    private static void report(String values, int round, int entries, long[] nanos) {
        System.out.printf("round %d  %-10s %,d entries in %,6d ms: %,10.0f entries/s wall, %,10.0f entries per CPU-second"
                        + " (%.2f cores busy)%n", round, values, entries, nanos[0] / 1_000_000, entries / (nanos[0] / 1e9),
                entries / (nanos[1] / 1e9), (double) nanos[1] / nanos[0]);
    }

    /** CPU time of the whole process (all threads, GC and JIT included): robust to other processes' load. */
    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** Wall and process CPU nanoseconds since the start marks. */
    private static long[] since(long wallStart, long cpuStart) {
        return new long[] {System.nanoTime() - wallStart, processCpuNanos() - cpuStart};
    }

    /** The values alone: what building them costs, without streaming (a breakdown of the builder load). */
    private static long[] buildOnly(int entries) {
        try (SluiceNode node = SluiceNode.start(NODE)) {
            long cpu = processCpuNanos();
            long start = System.nanoTime();
            BinaryObjectBuilder builder = node.binary().builder(StockOrderFields.TYPE_NAME);
            long sink = 0;
            for (long k = 0; k < entries; k++) {
                sink += StockOrderFields.build(builder, k, null).hashCode();
            }
            long[] nanos = since(start, cpu);
            if (sink == 42) {
                System.out.println();
            }
            return nanos;
        }
    }

    private static long[] loadWithBuilder(int entries) {
        try (SluiceNode node = SluiceNode.start(NODE)) {
            node.createCache(CacheConfig.named("orders"));
            long cpu = processCpuNanos();
            long start = System.nanoTime();
            BinaryObjectBuilder builder = node.binary().builder(StockOrderFields.TYPE_NAME);
            try (DataStreamer<Long, BinaryObject> streamer = node.dataStreamer("orders", OPTIONS)) {
                for (long k = 0; k < entries; k++) {
                    streamer.addData(k, StockOrderFields.build(builder, k, null));
                }
            }
            long[] nanos = since(start, cpu);
            check(node, entries);
            return nanos;
        }
    }

    private static long[] loadPojos(int entries) {
        try (SluiceNode node = SluiceNode.start(NODE)) {
            node.createCache(CacheConfig.named("orders"));
            long cpu = processCpuNanos();
            long start = System.nanoTime();
            try (DataStreamer<Long, StockOrder> streamer = node.dataStreamer("orders", OPTIONS)) {
                for (long k = 0; k < entries; k++) {
                    streamer.addData(k, StockOrder.forKey(k));
                }
            }
            long[] nanos = since(start, cpu);
            check(node, entries);
            return nanos;
        }
    }

    private static void check(SluiceNode node, int entries) {
        long size = node.cache("orders").size();
        if (size != entries) {
            throw new IllegalStateException("loaded " + entries + " entries but the cache holds " + size);
        }
    }
}
