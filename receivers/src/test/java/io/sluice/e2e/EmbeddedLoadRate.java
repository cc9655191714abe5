package io.sluice.e2e;

import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.StreamerOptions;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.node.NodeConfig;
import io.sluice.node.SluiceNode;

import java.lang.management.ManagementFactory;

/**
 * Measures an embedded load: N StockOrder entries with unique Long keys, isolated receiver,
 * default streamer options, from one thread, with values from a reused binary builder and then as
 * POJOs. Prints entries/s; asserts nothing (a measurement, not a test).
 *
 * <pre>
 * java -Xmx512m -XX:MaxDirectMemorySize=4g -cp ... io.sluice.e2e.EmbeddedLoadRate [entries] [rounds]
 * </pre>
 */
public final class EmbeddedLoadRate {

    /** The StockOrder workload's value (a copy of the samples' record: receivers cannot depend on samples). */
    public record StockOrder(String secCode, double price, long quantity, String buySell, String secBoard,
                             String account, String user, String currency, double commission, String status,
                             boolean marketMaker) {

        static StockOrder forKey(long key) {
            return new StockOrder("SBER", 100.0 + (key % 10_000) / 100.0, 1 + key % 1000, (key & 1) == 0 ? "B" : "S",
                    "TQBR", "L01-00000F00", USERS[(int) (key % 100)], "RUB", 0.01 * (1 + key % 7), "NEW",
                    key % 10 == 0);
        }
    }

    private static final String[] USERS = new String[100];

    static {
        for (int i = 0; i < USERS.length; i++) {
            USERS[i] = "user" + i;
        }
    }

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
            BinaryObjectBuilder builder = node.binary().builder("StockOrder");
            long sink = 0;
            for (long k = 0; k < entries; k++) {
                sink += build(builder, k).hashCode();
            }
            long[] nanos = since(start, cpu);
            if (sink == 42) {
                System.out.println();
            }
            return nanos;
        }
    }

    private static BinaryObject build(BinaryObjectBuilder builder, long k) {
        return builder
                .setField("secCode", "SBER")
                .setField("price", 100.0 + (k % 10_000) / 100.0)
                .setField("quantity", 1 + k % 1000)
                .setField("buySell", (k & 1) == 0 ? "B" : "S")
                .setField("secBoard", "TQBR")
                .setField("account", "L01-00000F00")
                .setField("user", USERS[(int) (k % 100)])
                .setField("currency", "RUB")
                .setField("commission", 0.01 * (1 + k % 7))
                .setField("status", "NEW")
                .setField("marketMaker", k % 10 == 0)
                .build();
    }

    private static long[] loadWithBuilder(int entries) {
        try (SluiceNode node = SluiceNode.start(NODE)) {
            node.createCache(CacheConfig.named("orders"));
            long cpu = processCpuNanos();
            long start = System.nanoTime();
            BinaryObjectBuilder builder = node.binary().builder("StockOrder");
            try (DataStreamer<Long, BinaryObject> streamer = node.dataStreamer("orders", OPTIONS)) {
                for (long k = 0; k < entries; k++) {
                    streamer.addData(k, build(builder, k));
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
