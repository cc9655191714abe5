package io.sluice.samples.bench;

import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.node.NodeConfig;
import io.sluice.node.SluiceNode;
import io.sluice.samples.load.StockOrderFields;

import java.lang.management.ManagementFactory;

/**
 * Does loading slow down as a node fills? One node; first N caches of M StockOrder entries each,
 * loaded one after another (the rate of each cache), then one cache grown by M entries N times (the
 * rate of each step); then the live heap per empty cache after a full GC. Isolated receiver, default
 * options, one producer thread, binary values from a reused builder. A measurement; asserts only
 * that every load is complete.
 *
 * <pre>
 * java -Xmx256m -cp samples/target/benchmarks.jar io.sluice.samples.bench.CacheGrowth [steps=10] [entriesPerStep=1000000]
 * </pre>
 */
public final class CacheGrowth {

    private CacheGrowth() {
    }

    public static void main(String[] args) {
        int steps = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int perStep = args.length > 1 ? Integer.parseInt(args[1]) : 1_000_000;
        NodeConfig config = NodeConfig.builder().dataRegionMaxSize(16L << 30).build();
        try (SluiceNode node = SluiceNode.start(config)) {
            BinaryObjectBuilder builder = node.binary().builder(StockOrderFields.TYPE_NAME);
            load(node, "warm-up", builder, 0, 200_000);
            node.destroyCache("warm-up");
            double first = 0;
            for (int i = 1; i <= steps; i++) {
                double rate = load(node, "cache-" + i, builder, 0, perStep);
                first = i == 1 ? rate : first;
                System.out.printf("cache %2d of %,d entries: %,10.0f entries/s (%.2f of the first)%n",
                        i, perStep, rate, rate / first);
            }
            for (int i = 1; i <= steps; i++) {
                node.destroyCache("cache-" + i);
            }
            for (int i = 1; i <= steps; i++) {
                double rate = load(node, "growing", builder, (long) (i - 1) * perStep, perStep);
                first = i == 1 ? rate : first;
                System.out.printf("one cache, entries %,11d to %,11d: %,10.0f entries/s (%.2f of the first step)%n",
                        (long) (i - 1) * perStep, (long) i * perStep, rate, rate / first);
            }
            node.destroyCache("growing");
            long before = liveHeap();
            int caches = 100;
            for (int i = 0; i < caches; i++) {
                node.createCache(CacheConfig.named("empty-" + i));
            }
            System.out.printf("live heap per empty cache of %d partitions: %.2f MiB (%d caches)%n",
                    CacheConfig.named("x").partitions(), (liveHeap() - before) / (double) caches / (1 << 20), caches);
        }
    }

    /** Loads keys [from, from + n) into the cache (created if absent) and returns entries/s. */
    private static double load(SluiceNode node, String cache, BinaryObjectBuilder builder, long from, int n) {
        node.getOrCreateCache(CacheConfig.named(cache));
        long before = node.cache(cache).size();
        long start = System.nanoTime();
        try (DataStreamer<Long, BinaryObject> streamer = node.dataStreamer(cache)) {
            for (long k = from; k < from + n; k++) {
                streamer.addData(k, StockOrderFields.build(builder, k, null));
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long size = node.cache(cache).size();
        if (size != before + n) {
            throw new IllegalStateException(cache + " holds " + size + " entries, expected " + (before + n));
        }
        return n / seconds;
    }

    private static long liveHeap() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
