package io.sluice.node.internal;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.MutableEntry;
import io.sluice.Processors;
import io.sluice.ProcessorRef;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.node.NodeConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Random entry processors over random keys against a plain map of the objects' fields: in place and
 * rewritten, through invoke and invokeAll, while readers check they never see a torn value (fields
 * a and b are always set together to the same number). Replay a failure with -Dsluice.seed=N.
 */
@Timeout(120)
class InPlaceUpdateModelTest {

    private static final int KEYS = 300;

    private NodeEngine node;

    @AfterEach
    void stop() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void randomProcessorsAgreeWithAModelAndReadersNeverSeeATornValue() throws Exception {
        long seed = Long.getLong("sluice.seed", System.nanoTime());
        Random random = new Random(seed);
        node = new NodeEngine(NodeConfig.builder().dataRegionInitialSize(8L << 20).dataRegionMaxSize(256L << 20)
                .applyThreads(2)
                .processor("double-qty", () -> (MutableEntry<Long, BinaryObject> e, Object arg) -> {
                    int q = e.value().field("qty");
                    e.setValue(e.value().toBuilder().setInt("qty", q * 2).build());
                    return q * 2;
                })
                .build());
        Cache<Long, BinaryObject> cache = node.<Long, BinaryObject>createCache(CacheConfig.named("m").withPartitions(16))
                .withKeepBinary();
        BinaryObjectBuilder builder = node.binary().builder("Thing");
        Map<Long, Map<String, Object>> model = new HashMap<>();
        for (long k = 0; k < KEYS; k++) {
            Map<String, Object> fields = new LinkedHashMap<>();
            fields.put("a", k);
            fields.put("b", k);
            fields.put("name", "n" + k % 10);
            fields.put("qty", 1);
            model.put(k, fields);
            fields.forEach(builder::setField);
            cache.put(k, builder.build());
        }

        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<String> torn = new AtomicReference<>();
        // a reader that throws (a null value, a failed read) must fail the test, not end quietly
        AtomicReference<Throwable> readerFailure = new AtomicReference<>();
        AtomicLong[] reads = new AtomicLong[2];
        Thread[] readers = new Thread[reads.length];
        for (int r = 0; r < readers.length; r++) {
            long readerSeed = seed + r + 1;
            AtomicLong count = reads[r] = new AtomicLong();
            readers[r] = new Thread(() -> {
                try {
                    Random rr = new Random(readerSeed);
                    while (!done.get() && torn.get() == null) {
                        long k = rr.nextInt(KEYS);
                        BinaryObject o = cache.get(k);
                        long a = o.field("a");
                        long b = o.field("b");
                        if (a != b) {
                            torn.set("key " + k + ": a=" + a + ", b=" + b);
                        }
                        count.incrementAndGet();
                    }
                } catch (Throwable t) {
                    readerFailure.set(t);
                }
            }, "model-reader-" + r);
            readers[r].start();
        }
        java.util.function.BooleanSupplier readersStopped = () -> torn.get() != null || readerFailure.get() != null;
        // the readers read while the processors run: each has read before the first and halfway
        awaitReads(reads, readersStopped);

        try {
            for (int op = 0; op < 4_000; op++) {
                if (op == 2_000) {
                    awaitReads(reads, readersStopped);
                }
                Set<Long> keys = new LinkedHashSet<>();
                int n = random.nextInt(4) == 0 ? 1 + random.nextInt(40) : 1;
                while (keys.size() < n) {
                    keys.add((long) random.nextInt(KEYS));
                }
                ProcessorRef processor;
                int kind = random.nextInt(6);
                long x = random.nextLong();
                String name = "n" + "x".repeat(random.nextInt(3)) + random.nextInt(10);
                int delta = random.nextInt(100) - 50;
                switch (kind) {
                    case 0 -> processor = Processors.setFields(Map.of("a", x, "b", x));
                    case 1 -> processor = Processors.setFields(Map.of("name", name));
                    case 2 -> processor = Processors.add("qty", delta);
                    case 3 -> processor = Processors.removeField("name");
                    case 4 -> processor = Processors.setFieldsIfAbsent(Map.of("name", name));
                    default -> processor = Processors.named("double-qty");
                }
                Map<Long, Object> results = n == 1 && random.nextBoolean()
                        ? Map.of(keys.iterator().next(), cache.invoke(keys.iterator().next(), processor))
                        : cache.invokeAll(keys, processor);
                for (long k : keys) {
                    Map<String, Object> m = model.get(k);
                    switch (kind) {
                        case 0 -> {
                            m.put("a", x);
                            m.put("b", x);
                        }
                        case 1 -> m.put("name", name);
                        case 2 -> {
                            m.put("qty", (Integer) m.get("qty") + delta);
                            assertThat(results.get(k)).as("seed %d: add's result", seed).isEqualTo(m.get("qty"));
                        }
                        case 3 -> assertThat(results.get(k)).as("seed %d", seed)
                                .isEqualTo(m.remove("name") != null);
                        case 4 -> assertThat(results.get(k)).as("seed %d", seed)
                                .isEqualTo(m.putIfAbsent("name", name) == null);
                        default -> m.put("qty", (Integer) m.get("qty") * 2);
                    }
                }
            }
        } finally {
            done.set(true);
            for (Thread reader : readers) {
                reader.join(10_000);
            }
        }

        for (Thread reader : readers) {
            assertThat(reader.isAlive()).as("seed %d: %s stopped", seed, reader.getName()).isFalse();
        }
        assertThat(readerFailure.get()).as("seed %d: a reader failed", seed).isNull();
        assertThat(torn.get()).as("seed %d: a reader saw a torn value", seed).isNull();
        for (long k = 0; k < KEYS; k++) {
            BinaryObject o = cache.get(k);
            Map<String, Object> m = model.get(k);
            for (String field : new String[]{"a", "b", "name", "qty"}) {
                assertThat((Object) o.field(field)).as("seed %d: key %d field %s", seed, k, field)
                        .isEqualTo(m.get(field));
            }
        }
        assertThat(node.processors().inPlaceUpdates()).as("seed %d: keys changed in place", seed).isPositive();
        assertThat(node.processors().rewrites()).as("seed %d: keys rewritten", seed).isPositive();
    }

    /**
     * Waits until every reader has read again since now, or has stopped (a torn value seen, or a
     * failure: the test's assertions after the run report either).
     */
    private static void awaitReads(AtomicLong[] reads, java.util.function.BooleanSupplier stopped) {
        long[] before = new long[reads.length];
        for (int r = 0; r < reads.length; r++) {
            before[r] = reads[r].get();
        }
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(1)).until(() -> {
            if (stopped.getAsBoolean()) {
                return true;
            }
            for (int r = 0; r < reads.length; r++) {
                if (reads[r].get() <= before[r]) {
                    return false;
                }
            }
            return true;
        });
    }

    @Test
    void aFixedWidthUpdateWritesOnlyTheFieldAndTakesNoPage() {
        node = new NodeEngine(NodeConfig.builder().dataRegionInitialSize(8L << 20).dataRegionMaxSize(256L << 20)
                .applyThreads(1).build());
        Cache<Long, BinaryObject> cache = node.<Long, BinaryObject>createCache(CacheConfig.named("c").withPartitions(4))
                .withKeepBinary();
        BinaryObjectBuilder builder = node.binary().builder("Order");
        Map<Long, BinaryObject> values = new HashMap<>();
        for (long k = 0; k < 5_000; k++) {
            values.put(k, builder.setField("symbol", "S" + k).setInt("quantity", 1).build());
        }
        cache.putAll(values);
        long pages = node.usedPages();

        Map<Long, Object> results = cache.invokeAll(values.keySet(), Processors.setField("quantity", 1000));

        assertThat(results).hasSize(5_000).containsValue(Boolean.TRUE);
        assertThat(node.processors().inPlaceUpdates()).isEqualTo(5_000);
        assertThat(node.processors().rewrites()).isZero();
        assertThat(node.usedPages()).isEqualTo(pages);
        for (long k = 0; k < 5_000; k += 7) {
            assertThat((int) cache.get(k).field("quantity")).isEqualTo(1000);
            assertThat((String) cache.get(k).field("symbol")).isEqualTo("S" + k);
        }
    }
}
