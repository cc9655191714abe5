package io.sluice.e2e;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.CacheNotFoundException;
import io.sluice.DataStreamer;
import io.sluice.Receivers;
import io.sluice.StreamerException;
import io.sluice.StreamerOptions;
import io.sluice.StreamerTimeoutException;
import io.sluice.Sluice;
import io.sluice.binary.BinaryObjectBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The streaming suite, through the public API only ({@link Sluice}, {@link DataStreamer}, {@link Cache}):
 * one set of tests that every way of reaching a sluice must pass — an embedded sluice
 * ({@link EmbeddedStreamingTest}) and a sluice process reached over TCP ({@link RemoteStreamingIT}).
 * Each target offers the custom receivers of {@link TestReceivers} as "failing", "stalling" and "upper".
 */
@Timeout(60)
abstract class StreamingContract {

    static final String FAILING = TestReceivers.Failing.class.getName();
    static final String STALLING = TestReceivers.Stalling.class.getName();
    static final String UPPER = TestReceivers.UpperCase.class.getName();

    /** The cache of the current test (a fresh one per test). */
    protected String cacheName;
    /** Holds stalled batches until released; released after every test whatever it did. */
    protected StallSwitch stall;
    protected Sluice sluice;
    private StallSwitch ownStall;

    /**
     * The Sluice under test, with the test's cache created; its data region may grow to
     * {@code maxRegion} bytes (a target that shares one sluice among tests may offer more).
     */
    protected abstract Sluice open(String cacheName, long maxRegion);

    /** The switch that holds this target's stalled batches: a new one per test unless the target shares a node. */
    protected StallSwitch stallSwitch() {
        StallSwitch own = new StallSwitch();
        ownStall = own;
        System.setProperty(TestReceivers.STALL_PORT, Integer.toString(own.port()));
        return own;
    }

    private void start(long maxRegion) {
        stall = stallSwitch();
        cacheName = "orders-" + java.util.UUID.randomUUID();
        stall.arm(cacheName);
        sluice = open(cacheName, maxRegion);
    }

    @AfterEach
    void stop() {
        if (stall != null) {
            stall.release();
        }
        if (sluice != null) {
            try {
                sluice.close();
            } catch (RuntimeException e) {
                // a test that failed a streamer on purpose left it to be reported here
            }
        }
        if (ownStall != null) {
            ownStall.close();
        }
    }

    private static String valueOf(long key) {
        return "order-" + key;
    }

    @Test
    void cacheNamesListsEveryCacheOnceAndNotADestroyedOne() {
        start(64L << 20);
        String other = cacheName + "-other";
        sluice.createCache(CacheConfig.named(other).withPartitions(4));
        assertThat(sluice.cacheNames()).contains(cacheName, other).doesNotHaveDuplicates();

        assertThat(sluice.destroyCache(other)).isTrue();

        assertThat(sluice.cacheNames()).contains(cacheName).doesNotContain(other);
    }

    @Test
    @Timeout(180)
    void aMillionEntriesFromFourThreadsAreAllThereAfterClose() throws Exception {
        start(1L << 30);
        int threads = 4;
        int perThread = 250_000;
        DataStreamer<Long, String> streamer = sluice.dataStreamer(cacheName);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> loads = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long first = (long) t * perThread;
                loads.add(pool.submit(() -> {
                    for (long k = first; k < first + perThread; k++) {
                        streamer.addData(k, valueOf(k));
                    }
                }));
            }
            for (Future<?> load : loads) {
                load.get(150, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        streamer.close();

        Cache<Long, String> cache = sluice.cache(cacheName);
        int total = threads * perThread;
        assertThat(cache.size()).isEqualTo(total);
        BitSet seen = new BitSet(total);
        try (Stream<Map.Entry<Long, String>> entries = cache.scan()) {
            entries.forEach(e -> {
                long key = e.getKey();
                assertThat(key).isBetween(0L, total - 1L);
                assertThat(seen.get((int) key)).as("key %d seen twice", key).isFalse();
                seen.set((int) key);
                if (!valueOf(key).equals(e.getValue())) {
                    throw new AssertionError("key " + key + " holds " + e.getValue());
                }
            });
        }
        assertThat(seen.cardinality()).isEqualTo(total);
        assertThat(cache.get(123_456L)).isEqualTo(valueOf(123_456L));
    }

    @Test
    void theAutoFlushIntervalMakesDataVisibleWithoutFlush() {
        start(256L << 20);
        DataStreamer<Long, String> streamer = sluice.dataStreamer(cacheName, StreamerOptions.builder()
                .autoFlushInterval(Duration.ofMillis(50))
                .build());
        Cache<Long, String> cache = sluice.cache(cacheName);
        for (long k = 0; k < 10; k++) {
            streamer.addData(k, valueOf(k));
        }

        await().atMost(Duration.ofSeconds(20)).until(() -> cache.size() == 10);
        assertThat(cache.get(7L)).isEqualTo(valueOf(7));
        streamer.close();
    }

    @Test
    void closeWithCancelLeavesNoFuturePending() throws Exception {
        start(256L << 20);
        DataStreamer<Long, String> streamer = sluice.dataStreamer(cacheName, StreamerOptions.builder()
                .receiver(Receivers.named("stalling"))
                .perPartitionBufferSize(4)
                .build());
        List<CompletableFuture<Void>> futures = new ArrayList<>();
        for (long k = 0; k < 10_000; k++) {
            futures.add(streamer.addData(k, valueOf(k)));
        }
        streamer.tryFlush();

        streamer.close(true);

        assertThat(futures).allMatch(CompletableFuture::isDone);
        assertThat(futures).anyMatch(CompletableFuture::isCompletedExceptionally);
        for (CompletableFuture<Void> f : futures) {
            if (f.isCompletedExceptionally()) {
                assertThatThrownBy(f::join).isInstanceOf(CancellationException.class);
            }
        }
    }

    @Test
    void aThrowingReceiverFailsFlushWithTheCauseAndTheCount() {
        start(256L << 20);
        DataStreamer<Long, String> streamer = sluice.dataStreamer(cacheName, StreamerOptions.builder()
                .receiver(Receivers.named("failing"))
                .build());
        for (long k = 0; k < 1000; k++) {
            streamer.addData(k, valueOf(k));
        }

        assertThatThrownBy(streamer::flush)
                .isInstanceOfSatisfying(StreamerException.class,
                        e -> assertThat(e.failedEntries()).isEqualTo(1000))
                .hasRootCauseInstanceOf(IllegalStateException.class)
                .hasRootCauseMessage("rejected by the receiver");
        assertThat(sluice.cache(cacheName).size()).isZero();
        streamer.close(true);
    }

    @Test
    void addDataBeyondBufferMemoryBlocksThenTimesOutWhenTheNodeIsStalled() {
        start(256L << 20);
        DataStreamer<Long, String> streamer = sluice.dataStreamer(cacheName, StreamerOptions.builder()
                .receiver(Receivers.named("stalling"))
                .bufferMemory(64 * 1024)
                .perPartitionBufferBytes(1024)
                .perPartitionBufferSize(8)
                .maxBlock(Duration.ofMillis(200))
                .build());
        try {
            assertThatThrownBy(() -> {
                for (long k = 0; k < 1_000_000; k++) {
                    streamer.addData(k, valueOf(k));
                }
            }).isInstanceOf(StreamerTimeoutException.class).hasMessageContaining("bufferMemory");
        } finally {
            stall.release();
            streamer.close(true);
        }
    }

    @Test
    void aPutAfterAnIsolatedLoadWins() {
        start(256L << 20);
        Cache<Long, String> cache = sluice.cache(cacheName);
        try (DataStreamer<Long, String> streamer = sluice.dataStreamer(cacheName)) {
            for (long k = 0; k < 1000; k++) {
                streamer.addData(k, "loaded");
            }
        }
        cache.put(7L, "put");
        try (DataStreamer<Long, String> streamer = sluice.dataStreamer(cacheName)) {
            for (long k = 0; k < 2000; k++) {
                streamer.addData(k, "reloaded");
            }
        }

        assertThat(cache.get(7L)).isEqualTo("put");
        assertThat(cache.get(8L)).as("isolated keeps existing values").isEqualTo("loaded");
        assertThat(cache.get(1500L)).isEqualTo("reloaded");
        assertThat(cache.size()).isEqualTo(2000);
    }

    @Test
    void putsRacingAnIsolatedLoadAlwaysWin() throws Exception {
        start(256L << 20);
        Cache<Long, String> cache = sluice.cache(cacheName);
        int keys = 100_000;
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<?> load = pool.submit(() -> {
                go.await();
                try (DataStreamer<Long, String> streamer = sluice.dataStreamer(cacheName)) {
                    for (long k = 0; k < keys; k++) {
                        streamer.addData(k, "loaded");
                    }
                }
                return null;
            });
            Future<?> puts = pool.submit(() -> {
                go.await();
                for (long k = 0; k < keys; k += 7) {
                    cache.put(k, "put");
                }
                return null;
            });
            go.countDown();
            load.get(50, TimeUnit.SECONDS);
            puts.get(50, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }

        // Whether a put came before or after the key's batch, the isolated load never overwrites it.
        assertThat(cache.size()).isEqualTo(keys);
        for (long k = 0; k < keys; k++) {
            String expected = k % 7 == 0 ? "put" : "loaded";
            if (!expected.equals(cache.get(k))) {
                throw new AssertionError("key " + k + " holds " + cache.get(k) + ", expected " + expected);
            }
        }
    }

    @Test
    void overwritingReceiversReplaceAndRemove() {
        start(256L << 20);
        Cache<Long, String> cache = sluice.cache(cacheName);
        for (long k = 0; k < 100; k++) {
            cache.put(k, "old");
        }
        try (DataStreamer<Long, String> streamer = sluice.dataStreamer(cacheName,
                StreamerOptions.builder().allowOverwrite(true).build())) {
            streamer.addData(1L, "individual");
            streamer.removeData(2L);
        }
        try (DataStreamer<Long, String> streamer = sluice.dataStreamer(cacheName,
                StreamerOptions.builder().receiver(Receivers.batched()).build())) {
            streamer.addData(3L, "batched");
            streamer.removeData(4L);
        }

        assertThat(cache.get(1L)).isEqualTo("individual");
        assertThat(cache.get(2L)).isNull();
        assertThat(cache.get(3L)).isEqualTo("batched");
        assertThat(cache.get(4L)).isNull();
        assertThat(cache.size()).isEqualTo(98);
    }

    @Test
    void aValueAddedFromItsBuilderIsStoredAsItsBuiltObjectByEveryBuiltInReceiver() {
        start(256L << 20);
        Map<String, StreamerOptions> modes = Map.of(
                "isolated", StreamerOptions.builder().receiver(Receivers.isolated()).build(),
                "individual", StreamerOptions.builder().allowOverwrite(true).build(),
                "batched", StreamerOptions.builder().receiver(Receivers.batched()).build());
        int n = 10_000;
        BinaryObjectBuilder builder = sluice.binary().builder("Order");
        for (Map.Entry<String, StreamerOptions> mode : modes.entrySet()) {
            String viaBuilder = cacheName + "-" + mode.getKey() + "-builder";
            String viaBuild = cacheName + "-" + mode.getKey() + "-built";
            for (String name : List.of(viaBuilder, viaBuild)) {
                sluice.createCache(CacheConfig.named(name));
                Cache<Long, Object> cache = sluice.cache(name);
                for (long k = 0; k < 10; k++) {
                    cache.put(k, "old"); // kept by the isolated receiver, replaced by the others
                }
            }
            try (DataStreamer<Long, Object> direct = sluice.dataStreamer(viaBuilder, mode.getValue());
                 DataStreamer<Long, Object> built = sluice.dataStreamer(viaBuild, mode.getValue())) {
                for (long k = 0; k < n; k++) {
                    direct.addFromBuilder(k, order(builder, k));
                    built.addData(k, order(builder, k).build());
                }
            }

            Map<Long, Object> expected = storedBinary(viaBuild);
            Map<Long, Object> actual = storedBinary(viaBuilder);
            assertThat(actual).as(mode.getKey()).hasSize(n);
            assertThat(actual).as(mode.getKey()).isEqualTo(expected);
            assertThat(actual.get(5L)).as(mode.getKey()).isEqualTo(mode.getKey().equals("isolated") ? "old"
                    : order(builder, 5).build());
        }
    }

    /** The key's order; one in 1,000 with a text of 300 characters (2-byte offsets). */
    private static BinaryObjectBuilder order(BinaryObjectBuilder b, long k) {
        return b.setField("id", k).setDouble("price", k / 4.0)
                .setField("note", k % 1000 == 1 ? "n".repeat(300) : "n" + k);
    }

    private Map<Long, Object> storedBinary(String name) {
        Cache<Long, Object> cache = sluice.cache(name);
        Cache<Long, Object> binary = cache.withKeepBinary();
        try (Stream<Map.Entry<Long, Object>> entries = binary.scan()) {
            return entries.collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        }
    }

    @Test
    void aCustomReceiverChosenByNameAppliesTheBatches() {
        start(256L << 20);
        try (DataStreamer<Long, String> streamer = sluice.dataStreamer(cacheName, StreamerOptions.builder()
                .receiver(Receivers.named("upper"))
                .build())) {
            for (long k = 0; k < 5000; k++) {
                streamer.addData(k, valueOf(k));
            }
        }

        Cache<Long, String> cache = sluice.cache(cacheName);
        assertThat(cache.size()).isEqualTo(5000);
        assertThat(cache.get(4321L)).isEqualTo("ORDER-4321");
    }

    @Test
    void closingTheSluiceFlushesItsStreamers() {
        start(256L << 20);
        DataStreamer<Long, String> streamer = sluice.dataStreamer(cacheName, StreamerOptions.builder()
                .autoFlushInterval(Duration.ZERO)
                .build());
        for (long k = 0; k < 100; k++) {
            streamer.addData(k, valueOf(k));
        }
        List<CompletableFuture<Void>> futures = List.of(streamer.addData(100L, valueOf(100)));

        sluice.close();

        assertThat(futures).allMatch(f -> f.isDone() && !f.isCompletedExceptionally());
        assertThatThrownBy(() -> streamer.addData(1L, "late")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void closingReportsAStreamersFailureAndStillCloses() {
        start(256L << 20);
        Cache<Long, String> cache = sluice.cache(cacheName);
        DataStreamer<Long, String> streamer = sluice.dataStreamer(cacheName, StreamerOptions.builder()
                .receiver(Receivers.named("failing"))
                .build());
        streamer.addData(1L, "one");

        assertThatThrownBy(sluice::close)
                .isInstanceOf(StreamerException.class)
                .hasRootCauseMessage("rejected by the receiver");

        assertThatThrownBy(cache::size).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    @Test
    void unknownCachesAreReported() {
        start(256L << 20);

        assertThatThrownBy(() -> sluice.dataStreamer("missing"))
                .isInstanceOf(CacheNotFoundException.class)
                .hasMessageContaining("'missing'");
        assertThatThrownBy(() -> sluice.cache("missing"))
                .isInstanceOf(CacheNotFoundException.class)
                .hasMessageContaining("'missing'");
    }

    @Test
    void aNullKeyIsRejectedAtAddData() {
        start(256L << 20);
        try (DataStreamer<Long, String> streamer = sluice.dataStreamer(cacheName)) {
            assertThatThrownBy(() -> streamer.addData(null, "v")).isInstanceOf(NullPointerException.class);
        }
    }

    @Test
    void anOversizedValueIsRejectedAtAddData() {
        start(256L << 20);
        try (DataStreamer<Long, String> streamer = sluice.dataStreamer(cacheName, StreamerOptions.builder()
                .maxEntrySize(1024)
                .build())) {
            assertThatThrownBy(() -> streamer.addData(1L, "x".repeat(4096)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("1024");
        }
        assertThat(sluice.cache(cacheName).size()).isZero();
    }
}
