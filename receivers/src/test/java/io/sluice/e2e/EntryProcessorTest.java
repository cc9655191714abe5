package io.sluice.e2e;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.EntryProcessorException;
import io.sluice.MutableEntry;
import io.sluice.Processors;
import io.sluice.Receivers;
import io.sluice.StreamerException;
import io.sluice.StreamerOptions;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.binary.BinaryTypeMismatchException;
import io.sluice.node.NodeConfig;
import io.sluice.node.SluiceNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Entry processors, the transformer receiver and async cache operations, through the public API. */
@Timeout(120)
class EntryProcessorTest {

    private static final String CACHE = "orders";

    private SluiceNode node;
    private Cache<Long, BinaryObject> cache;
    private final AtomicInteger calls = new AtomicInteger();
    private final Set<String> threads = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final java.util.concurrent.CountDownLatch stalled = new java.util.concurrent.CountDownLatch(1);
    private final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);

    @BeforeEach
    void start() {
        node = SluiceNode.start(NodeConfig.builder()
                .dataRegionInitialSize(16L << 20)
                .dataRegionMaxSize(1L << 30)
                .applyThreads(2)
                .processor("double-quantity", () -> (MutableEntry<Long, BinaryObject> e, Object arg) -> {
                    calls.incrementAndGet();
                    threads.add(Thread.currentThread().getName());
                    if (!e.exists()) {
                        return null;
                    }
                    int q = e.value().field("quantity");
                    e.setValue(e.value().toBuilder().setInt("quantity", q * 2).build());
                    return q * 2;
                })
                .processor("throw-on-7", () -> (MutableEntry<Long, BinaryObject> e, Object arg) -> {
                    if (e.key() == 7L) {
                        throw new IllegalStateException("seven is unlucky");
                    }
                    e.remove();
                    return "removed";
                })
                .receiver("stall", () -> (c, entries) -> {
                    stalled.countDown();
                    release.await();
                })
                .processor("create", () -> (MutableEntry<Long, Object> e, Object arg) -> {
                    boolean existed = e.exists();
                    e.setValue(arg);
                    return existed;
                })
                .build());
        cache = node.<Long, BinaryObject>createCache(CacheConfig.named(CACHE).withPartitions(64)).withKeepBinary();
    }

    @AfterEach
    void stop() {
        release.countDown();
        if (node != null) {
            node.close();
        }
    }

    private BinaryObject order(BinaryObjectBuilder b, long id, int quantity) {
        return b.setField("symbol", "S" + (id % 100)).setInt("quantity", quantity).setDouble("price", id * 0.5)
                .setField("note", "n" + id).build();
    }

    private void load(int n) {
        BinaryObjectBuilder b = node.binary().builder("Order");
        Map<Long, BinaryObject> batch = new HashMap<>();
        for (long id = 0; id < n; id++) {
            batch.put(id, order(b, id, (int) id));
        }
        cache.putAll(batch);
    }

    @Test
    void setFieldsChangesOnlyTheNamedFields() {
        load(10);

        Boolean changed = cache.invoke(3L, Processors.setFields(Map.of("quantity", 1000, "note", "big")));

        assertThat(changed).isTrue();
        BinaryObject o = cache.get(3L);
        assertThat((int) o.field("quantity")).isEqualTo(1000);
        assertThat((String) o.field("note")).isEqualTo("big");
        assertThat((String) o.field("symbol")).isEqualTo("S3");
        assertThat((double) o.field("price")).isEqualTo(1.5);
        assertThat((int) cache.get(4L).field("quantity")).as("other keys untouched").isEqualTo(4);
    }

    @Test
    void builtInsOnAnAbsentKeyStoreNothing() {
        assertThat((Boolean) cache.invoke(42L, Processors.setField("quantity", 1))).isFalse();
        assertThat((Object) cache.invoke(42L, Processors.add("quantity", 1))).isNull();
        assertThat((Boolean) cache.invoke(42L, Processors.removeField("quantity"))).isFalse();
        assertThat(cache.get(42L)).isNull();
        assertThat(cache.size()).isZero();
    }

    @Test
    void addKeepsTheFieldTypeAndReturnsTheNewValue() {
        load(5);

        Number q = cache.invoke(2L, Processors.add("quantity", 40));
        Number p = cache.invoke(2L, Processors.add("price", 0.25));

        assertThat(q).isEqualTo(42);
        assertThat(p).isEqualTo(1.25);
        assertThat((Object) cache.get(2L).field("quantity")).isEqualTo(42);
        assertThat((Object) cache.get(2L).field("price")).isEqualTo(1.25);
    }

    @Test
    void removeFieldAndSetFieldsIfAbsent() {
        load(5);

        assertThat((Boolean) cache.invoke(1L, Processors.removeField("note"))).isTrue();
        assertThat(cache.get(1L).hasField("note")).isFalse();
        assertThat((Boolean) cache.invoke(1L, Processors.removeField("note"))).isFalse();

        assertThat((Boolean) cache.invoke(1L, Processors.setFieldsIfAbsent(Map.of("note", "back", "quantity", 9))))
                .isTrue();
        BinaryObject o = cache.get(1L);
        assertThat((String) o.field("note")).isEqualTo("back");
        assertThat((int) o.field("quantity")).as("present fields keep their values").isEqualTo(1);
        assertThat((Boolean) cache.invoke(1L, Processors.setFieldsIfAbsent(Map.of("note", "again")))).isFalse();
    }

    @Test
    void aFieldOfTheWrongTypeFailsThatKeyNamingKeyFieldAndProcessor() {
        load(5);
        BinaryObject before = cache.get(2L);

        assertThatThrownBy(() -> cache.invoke(2L, Processors.setField("quantity", "many")))
                .isInstanceOf(EntryProcessorException.class)
                .hasMessageContaining("processor 'sluice.setFields' failed for key 2")
                .hasMessageContaining("quantity")
                .hasCauseInstanceOf(BinaryTypeMismatchException.class);
        assertThatThrownBy(() -> cache.invoke(2L, Processors.add("symbol", 1)))
                .isInstanceOf(EntryProcessorException.class)
                .hasMessageContaining("field 'symbol'")
                .hasMessageContaining("sluice.add");
        assertThat(cache.get(2L)).as("a failed key keeps its value").isEqualTo(before);
    }

    @Test
    void invokeAllProcessesEveryKeyOnItsApplyThreadAndReturnsEachResult() {
        load(100);
        Set<Long> keys = new LinkedHashSet<>();
        for (long k = 0; k < 100; k += 2) {
            keys.add(k);
        }
        keys.add(1_000L); // absent

        Map<Long, Integer> results = cache.invokeAll(keys, Processors.named("double-quantity"));

        assertThat(results).hasSize(51).containsEntry(1_000L, null);
        for (long k = 0; k < 100; k++) {
            int expected = k % 2 == 0 ? (int) k * 2 : (int) k;
            assertThat((int) cache.get(k).field("quantity")).as("key %d", k).isEqualTo(expected);
            if (k % 2 == 0) {
                assertThat(results.get(k)).isEqualTo(expected);
            }
        }
        assertThat(calls).hasValue(51);
        assertThat(threads).allMatch(t -> t.startsWith("sluice-apply"));
    }

    @Test
    void aThrowingProcessorFailsOnlyItsKey() {
        load(10);

        EntryProcessorException e = (EntryProcessorException) org.assertj.core.api.Assertions.catchThrowable(
                () -> cache.invokeAll(Set.of(6L, 7L, 8L), Processors.named("throw-on-7")));

        assertThat(e).hasMessageContaining("processor 'throw-on-7' failed for key 7")
                .hasMessageContaining("seven is unlucky");
        assertThat(e.failures()).containsOnlyKeys(7L);
        assertThat(e.results()).containsOnlyKeys(6L, 8L).containsValue("removed");
        assertThat(cache.get(7L)).isNotNull();
        assertThat(cache.get(6L)).isNull();
        assertThat(cache.get(8L)).isNull();
    }

    @Test
    void anUnknownProcessorFailsEveryKeyNamingTheRegisteredOnes() {
        load(3);

        assertThatThrownBy(() -> cache.invokeAll(Set.of(0L, 1L), Processors.named("nope")))
                .isInstanceOf(EntryProcessorException.class)
                .hasMessageContaining("processor 'nope' is not registered")
                .hasMessageContaining("double-quantity")
                .hasMessageContaining("sluice.setFields");
        assertThat((int) cache.get(1L).field("quantity")).isEqualTo(1);
    }

    @Test
    void aProcessorArgumentArrivesAsTheNodeDecodesIt() {
        BinaryObject value = node.binary().builder("Order").setInt("quantity", 5).build();

        Boolean existed = cache.invoke(77L, Processors.named("create", value));

        assertThat(existed).isFalse();
        assertThat((int) cache.get(77L).field("quantity")).isEqualTo(5);
    }

    @Test
    void theTransformerReceiverAppliesStreamedArguments() {
        load(1_000);

        try (DataStreamer<Long, Map<String, Object>> streamer = node.dataStreamer(CACHE,
                StreamerOptions.builder().receiver(Receivers.transform(Processors.SET_FIELDS)).build())) {
            for (long k = 0; k < 1_000; k++) {
                streamer.addData(k, Map.of("quantity", 1000, "note", "t" + k));
            }
            streamer.removeData(999L);
        }

        for (long k = 0; k < 999; k++) {
            BinaryObject o = cache.get(k);
            assertThat((int) o.field("quantity")).isEqualTo(1000);
            assertThat((String) o.field("note")).isEqualTo("t" + k);
            assertThat((String) o.field("symbol")).isEqualTo("S" + (k % 100));
        }
        assertThat(cache.get(999L)).isNull();
        assertThat(cache.size()).isEqualTo(999);
    }

    @Test
    @Timeout(300)
    void theTransformerUpdatesAMillionStoredEntriesFieldByField() {
        int n = 1_000_000;
        BinaryObjectBuilder b = node.binary().builder("Order");
        try (DataStreamer<Long, BinaryObject> streamer = node.dataStreamer(CACHE)) {
            for (long id = 0; id < n; id++) {
                streamer.addData(id, order(b, id, (int) id));
            }
        }
        try (DataStreamer<Long, Map<String, Object>> add = node.dataStreamer(CACHE,
                StreamerOptions.builder().receiver(Receivers.transform(Processors.ADD)).build())) {
            for (long id = 0; id < n; id++) {
                add.addData(id, Map.of("field", "quantity", "delta", 1000));
            }
        }
        try (DataStreamer<Long, Map<String, Object>> set = node.dataStreamer(CACHE,
                StreamerOptions.builder().receiver(Receivers.transform(Processors.SET_FIELDS)).build())) {
            for (long id = 0; id < n; id += 2) {
                set.addData(id, Map.of("note", "even" + id));
            }
        }

        assertThat(cache.size()).isEqualTo(n);
        for (long id = 0; id < n; id++) {
            BinaryObject o = cache.get(id);
            assertThat((int) o.field("quantity")).isEqualTo((int) id + 1000);
            assertThat((String) o.field("note")).isEqualTo(id % 2 == 0 ? "even" + id : "n" + id);
            assertThat((String) o.field("symbol")).isEqualTo("S" + (id % 100));
            assertThat((double) o.field("price")).isEqualTo(id * 0.5);
        }
    }

    @Test
    void aTransformerBatchWithAFailingKeyReportsItAndAppliesTheRest() {
        load(10);

        DataStreamer<Long, Object> streamer = node.dataStreamer(CACHE,
                StreamerOptions.builder().receiver(Receivers.transform("throw-on-7")).build());
        for (long k = 5; k < 10; k++) {
            streamer.addData(k, "x");
        }
        assertThatThrownBy(streamer::close)
                .isInstanceOf(StreamerException.class)
                .hasStackTraceContaining("processor 'throw-on-7' failed for key 7");
        assertThat(cache.get(7L)).isNotNull();
        for (long k : List.of(5L, 6L, 8L, 9L)) {
            assertThat(cache.get(k)).as("key %d", k).isNull();
        }
    }

    @Test
    void asyncOperationsCompleteOffTheCallersThread() throws Exception {
        // One partition, its apply thread held by a stalled batch: the write below waits behind it, so
        // its continuation is registered before it completes and runs where completion happens.
        Cache<Long, String> strings = node.createCache(CacheConfig.named("strings").withPartitions(1));
        DataStreamer<Long, String> staller = node.dataStreamer("strings",
                StreamerOptions.builder().receiver(Receivers.named("stall")).build());
        staller.addData(0L, "stall");
        staller.tryFlush();
        assertThat(stalled.await(30, TimeUnit.SECONDS)).isTrue();
        Map<Long, String> batch = new HashMap<>();
        for (long k = 0; k < 1_000; k++) {
            batch.put(k, "v" + k);
        }
        String caller = Thread.currentThread().getName();
        AtomicReference<String> completedOn = new AtomicReference<>();

        CompletableFuture<Void> put = strings.putAllAsync(batch)
                .thenRun(() -> completedOn.set(Thread.currentThread().getName()));
        assertThat(put).isNotDone();
        release.countDown();
        put.get(30, TimeUnit.SECONDS);
        staller.close();

        assertThat(completedOn.get()).isNotEqualTo(caller).doesNotStartWith("sluice-apply");
        strings.putAsync(5_000L, "five thousand").get(30, TimeUnit.SECONDS);
        assertThat(strings.size()).isEqualTo(1_001);
        assertThat(strings.getAsync(5_000L).get(30, TimeUnit.SECONDS)).isEqualTo("five thousand");

        strings.removeAllAsync(List.of(1L, 2L, 3L)).get(30, TimeUnit.SECONDS);
        assertThat(strings.size()).isEqualTo(998);
        assertThat(strings.get(2L)).isNull();
    }

    @Test
    void concurrentAsyncPutAllsAndInvokeAllsLoseNothing() throws Exception {
        int producers = 4;
        int perProducer = 5_000;
        List<CompletableFuture<Void>> puts = new java.util.ArrayList<>();
        BinaryObjectBuilder[] builders = new BinaryObjectBuilder[producers];
        for (int p = 0; p < producers; p++) {
            builders[p] = node.binary().builder("Order");
        }
        // Each producer prepares its next batch while the last is written.
        for (int round = 0; round < 10; round++) {
            for (int p = 0; p < producers; p++) {
                Map<Long, BinaryObject> batch = new HashMap<>();
                for (int i = 0; i < perProducer / 10; i++) {
                    long key = (long) p * perProducer + round * (perProducer / 10) + i;
                    batch.put(key, order(builders[p], key, 1));
                }
                puts.add(cache.putAllAsync(batch));
            }
        }
        CompletableFuture.allOf(puts.toArray(new CompletableFuture[0])).get(60, TimeUnit.SECONDS);
        assertThat(cache.size()).isEqualTo((long) producers * perProducer);

        List<CompletableFuture<Map<Long, Number>>> adds = new java.util.ArrayList<>();
        Set<Long> all = new LinkedHashSet<>();
        for (long k = 0; k < (long) producers * perProducer; k++) {
            all.add(k);
        }
        for (int t = 0; t < 5; t++) {
            adds.add(cache.invokeAllAsync(all, Processors.add("quantity", 1)));
        }
        for (CompletableFuture<Map<Long, Number>> f : adds) {
            assertThat(f.get(60, TimeUnit.SECONDS)).hasSize(producers * perProducer);
        }
        for (long k = 0; k < (long) producers * perProducer; k += 97) {
            assertThat((int) cache.get(k).field("quantity")).as("key %d", k).isEqualTo(6);
        }
    }

    @Test
    void asyncFailuresCompleteTheFutureWithTheCause() {
        CompletableFuture<Map<Long, Object>> f = cache.invokeAllAsync(Set.of(1L), Processors.named("nope"));

        assertThatThrownBy(() -> f.get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(EntryProcessorException.class);
    }
}
