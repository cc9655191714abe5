package io.sluice.e2e;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.CacheNotFoundException;
import io.sluice.DataStreamer;
import io.sluice.Receivers;
import io.sluice.StreamerException;
import io.sluice.StreamerOptions;
import io.sluice.StreamerTimeoutException;
import io.sluice.node.NodeConfig;
import io.sluice.node.SluiceNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
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

/** Streaming into an embedded node through the public API only: SluiceNode, DataStreamer, Cache. */
@Timeout(60)
class EmbeddedStreamingTest {

    private static final String CACHE = "orders";

    /** Released in {@link #stop()} whatever the test did, so a stalled node can always close. */
    private final CountDownLatch release = new CountDownLatch(1);
    private SluiceNode node;

    private void start(long maxRegion) {
        node = SluiceNode.start(NodeConfig.builder()
                .dataRegionInitialSize(16L << 20)
                .dataRegionMaxSize(maxRegion)
                .receiver("failing", () -> (cache, entries) -> {
                    throw new IllegalStateException("rejected by the receiver");
                })
                .receiver("stalling", () -> (cache, entries) -> release.await())
                .build());
        node.createCache(CacheConfig.named(CACHE));
    }

    @AfterEach
    void stop() {
        release.countDown();
        if (node != null) {
            node.close();
        }
    }

    private static String valueOf(long key) {
        return "order-" + key;
    }

    @Test
    @Timeout(180)
    void aMillionEntriesFromFourThreadsAreAllThereAfterClose() throws Exception {
        start(1L << 30);
        int threads = 4;
        int perThread = 250_000;
        DataStreamer<Long, String> streamer = node.dataStreamer(CACHE);
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

        Cache<Long, String> cache = node.cache(CACHE);
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
        DataStreamer<Long, String> streamer = node.dataStreamer(CACHE, StreamerOptions.builder()
                .autoFlushInterval(Duration.ofMillis(50))
                .build());
        Cache<Long, String> cache = node.cache(CACHE);
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
        DataStreamer<Long, String> streamer = node.dataStreamer(CACHE, StreamerOptions.builder()
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
        DataStreamer<Long, String> streamer = node.dataStreamer(CACHE, StreamerOptions.builder()
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
        assertThat(node.cache(CACHE).size()).isZero();
        streamer.close(true);
    }

    @Test
    void addDataBeyondBufferMemoryBlocksThenTimesOutWhenTheNodeIsStalled() {
        start(256L << 20);
        DataStreamer<Long, String> streamer = node.dataStreamer(CACHE, StreamerOptions.builder()
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
            release.countDown();
            streamer.close(true);
        }
    }

    @Test
    void aPutAfterAnIsolatedLoadWins() {
        start(256L << 20);
        Cache<Long, String> cache = node.cache(CACHE);
        try (DataStreamer<Long, String> streamer = node.dataStreamer(CACHE)) {
            for (long k = 0; k < 1000; k++) {
                streamer.addData(k, "loaded");
            }
        }
        cache.put(7L, "put");
        try (DataStreamer<Long, String> streamer = node.dataStreamer(CACHE)) {
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
        Cache<Long, String> cache = node.cache(CACHE);
        int keys = 100_000;
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<?> load = pool.submit(() -> {
                go.await();
                try (DataStreamer<Long, String> streamer = node.dataStreamer(CACHE)) {
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
        Cache<Long, String> cache = node.cache(CACHE);
        for (long k = 0; k < 100; k++) {
            cache.put(k, "old");
        }
        try (DataStreamer<Long, String> streamer = node.dataStreamer(CACHE,
                StreamerOptions.builder().allowOverwrite(true).build())) {
            streamer.addData(1L, "individual");
            streamer.removeData(2L);
        }
        try (DataStreamer<Long, String> streamer = node.dataStreamer(CACHE,
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
    void closingTheNodeFlushesItsStreamers() {
        start(256L << 20);
        DataStreamer<Long, String> streamer = node.dataStreamer(CACHE, StreamerOptions.builder()
                .autoFlushInterval(Duration.ZERO)
                .build());
        for (long k = 0; k < 100; k++) {
            streamer.addData(k, valueOf(k));
        }
        List<CompletableFuture<Void>> futures = List.of(streamer.addData(100L, valueOf(100)));

        node.close();

        assertThat(futures).allMatch(f -> f.isDone() && !f.isCompletedExceptionally());
        assertThatThrownBy(() -> streamer.addData(1L, "late")).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void closingTheNodeReportsAStreamersFailureAndStillCloses() {
        start(256L << 20);
        Cache<Long, String> cache = node.cache(CACHE);
        DataStreamer<Long, String> streamer = node.dataStreamer(CACHE, StreamerOptions.builder()
                .receiver(Receivers.named("failing"))
                .build());
        streamer.addData(1L, "one");

        assertThatThrownBy(node::close)
                .isInstanceOf(StreamerException.class)
                .hasRootCauseMessage("rejected by the receiver");

        assertThatThrownBy(cache::size).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    @Test
    void unknownCachesAreReported() {
        start(256L << 20);

        assertThatThrownBy(() -> node.dataStreamer("missing"))
                .isInstanceOf(CacheNotFoundException.class)
                .hasMessageContaining("'missing'");
        assertThatThrownBy(() -> node.cache("missing"))
                .isInstanceOf(CacheNotFoundException.class)
                .hasMessageContaining("'missing'");
    }

    @Test
    void aNullKeyIsRejectedAtAddData() {
        start(256L << 20);
        try (DataStreamer<Long, String> streamer = node.dataStreamer(CACHE)) {
            assertThatThrownBy(() -> streamer.addData(null, "v")).isInstanceOf(NullPointerException.class);
        }
    }

    @Test
    void anOversizedValueIsRejectedAtAddData() {
        start(256L << 20);
        try (DataStreamer<Long, String> streamer = node.dataStreamer(CACHE, StreamerOptions.builder()
                .maxEntrySize(1024)
                .build())) {
            assertThatThrownBy(() -> streamer.addData(1L, "x".repeat(4096)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("1024");
        }
        assertThat(node.cache(CACHE).size()).isZero();
    }
}
