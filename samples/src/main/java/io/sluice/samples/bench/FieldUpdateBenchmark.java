package io.sluice.samples.bench;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.Processors;
import io.sluice.Receivers;
import io.sluice.StreamerOptions;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.node.NodeConfig;
import io.sluice.node.SluiceNode;
import io.sluice.samples.load.StockOrderFields;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Updating one field of N stored StockOrders (default 2,000,000), three ways on one node, each pass
 * setting {@code quantity} to a new value: {@code getAll} + modify + {@code putAll} (the baseline),
 * in-place {@code invokeAll} of {@link Processors#setField}, and the transformer receiver streaming
 * the new value. Every pass is verified on a sample of keys. Then loading the same orders with
 * {@code putAll} against {@code putAllAsync} with the next batch prepared while the last is written.
 * Run: {@code java -cp samples/target/benchmarks.jar io.sluice.samples.bench.FieldUpdateBenchmark [entries] [rounds]}.
 */
public final class FieldUpdateBenchmark {

    private static final int CHUNK = 10_000;

    private FieldUpdateBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        long entries = args.length > 0 ? Long.parseLong(args[0]) : 2_000_000L;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        try (SluiceNode node = SluiceNode.start(NodeConfig.defaults())) {
            Cache<Long, BinaryObject> cache = node.<Long, BinaryObject>createCache(CacheConfig.named("orders"))
                    .withKeepBinary();
            BinaryObjectBuilder builder = node.binary().builder(StockOrderFields.TYPE_NAME);
            try (DataStreamer<Long, BinaryObject> streamer = node.dataStreamer("orders")) {
                for (long key = 0; key < entries; key++) {
                    streamer.addData(key, StockOrderFields.build(builder, key, null));
                }
            }
            long quantity = 5_000;
            for (int round = 0; round < rounds; round++) {
                long t0 = System.nanoTime();
                for (long from = 0; from < entries; from += CHUNK) {
                    Set<Long> keys = keys(from, Math.min(entries, from + CHUNK));
                    Map<Long, BinaryObject> read = cache.getAll(keys);
                    Map<Long, BinaryObject> changed = new HashMap<>(read.size() * 2);
                    for (Map.Entry<Long, BinaryObject> e : read.entrySet()) {
                        changed.put(e.getKey(), e.getValue().toBuilder().setLong("quantity", quantity).build());
                    }
                    cache.putAll(changed);
                }
                double getPut = seconds(t0);
                verify(cache, entries, quantity++);

                long pagesBefore = node.usedPages();
                t0 = System.nanoTime();
                for (long from = 0; from < entries; from += CHUNK) {
                    cache.invokeAll(keys(from, Math.min(entries, from + CHUNK)),
                            Processors.setField("quantity", quantity));
                }
                double invoke = seconds(t0);
                verify(cache, entries, quantity++);

                t0 = System.nanoTime();
                try (DataStreamer<Long, Map<String, Object>> transform = node.dataStreamer("orders",
                        StreamerOptions.builder().receiver(Receivers.transform(Processors.SET_FIELDS)).build())) {
                    Map<String, Object> argument = Map.of("quantity", quantity);
                    for (long key = 0; key < entries; key++) {
                        transform.addData(key, argument);
                    }
                }
                double transformer = seconds(t0);
                verify(cache, entries, quantity++);
                System.out.printf("round %d: getAll+modify+putAll %.2f s (%,.0f/s); invokeAll in place %.2f s (%,.0f/s, "
                                + "%.1fx); transformer %.2f s (%,.0f/s, %.1fx); pages %d -> %d%n", round, getPut,
                        entries / getPut, invoke, entries / invoke, getPut / invoke, transformer, entries / transformer,
                        getPut / transformer, pagesBefore, node.usedPages());
            }
        }
        loadSyncVsAsync(entries, rounds);
    }

    /** putAll of 10,000-entry batches against putAllAsync with the next batch built while the last is written. */
    private static void loadSyncVsAsync(long entries, int rounds) throws Exception {
        for (int round = 0; round < rounds; round++) {
            for (boolean async : new boolean[]{false, true}) {
                try (SluiceNode node = SluiceNode.start(NodeConfig.defaults())) {
                    Cache<Long, BinaryObject> cache = node.createCache(CacheConfig.named("orders"));
                    BinaryObjectBuilder builder = node.binary().builder(StockOrderFields.TYPE_NAME);
                    long t0 = System.nanoTime();
                    List<CompletableFuture<Void>> inFlight = new ArrayList<>();
                    for (long from = 0; from < entries; from += CHUNK) {
                        Map<Long, BinaryObject> batch = new HashMap<>(CHUNK * 2);
                        for (long key = from; key < Math.min(entries, from + CHUNK); key++) {
                            batch.put(key, StockOrderFields.build(builder, key, null));
                        }
                        if (async) {
                            inFlight.add(cache.putAllAsync(batch));
                            if (inFlight.size() > 2) {
                                inFlight.remove(0).join();
                            }
                        } else {
                            cache.putAll(batch);
                        }
                    }
                    inFlight.forEach(CompletableFuture::join);
                    double s = seconds(t0);
                    if (cache.size() != entries) {
                        throw new IllegalStateException("lost entries: " + cache.size());
                    }
                    System.out.printf("round %d: %s %,d entries in %.2f s (%,.0f/s)%n", round,
                            async ? "putAllAsync (2 in flight)" : "putAll                   ", entries, s, entries / s);
                }
            }
        }
    }

    private static Set<Long> keys(long from, long to) {
        Set<Long> keys = new LinkedHashSet<>((int) (to - from) * 2);
        for (long k = from; k < to; k++) {
            keys.add(k);
        }
        return keys;
    }

    private static void verify(Cache<Long, BinaryObject> cache, long entries, long quantity) {
        for (long key = 0; key < entries; key += 9_973) {
            BinaryObject o = cache.get(key);
            if ((long) o.field("quantity") != quantity || !StockOrderFields.TYPE_NAME.equals(o.type().typeName())) {
                throw new IllegalStateException("key " + key + " has quantity " + o.field("quantity") + ", expected "
                        + quantity);
            }
        }
    }

    private static double seconds(long startNanos) {
        return (System.nanoTime() - startNanos) / 1e9;
    }
}
