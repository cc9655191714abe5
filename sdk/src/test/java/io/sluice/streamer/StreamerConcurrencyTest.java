package io.sluice.streamer;

import io.sluice.StreamerOptions;
import io.sluice.streamer.internal.Streamer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Many threads adding at once, with requests completed on other threads. */
@Timeout(60)
class StreamerConcurrencyTest {

    private final ExecutorService completer = Executors.newFixedThreadPool(2);
    private final ExecutorService adders = Executors.newFixedThreadPool(4);

    @AfterEach
    void stop() throws InterruptedException {
        completer.shutdownNow();
        adders.shutdownNow();
        assertThat(completer.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        assertThat(adders.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void everyEntryAddedByManyThreadsArrivesExactlyOnce() throws Exception {
        TestTransport transport = new TestTransport(64, "n1", "n2").completingOn(completer);
        int perNode = 3;
        StreamerOptions options = StreamerOptions.builder()
                .perPartitionBufferSize(32)
                .perNodeParallelOperations(perNode)
                .bufferMemory(64 * 1024) // small: adders also block and resume
                .perPartitionBufferBytes(4096)
                .autoFlushInterval(Duration.ofMillis(5))
                .build();
        Streamer<Object, Object> s = new Streamer<>("c", options, transport, new TestCodec(), () -> { });
        int threads = 4;
        int perThread = 25_000;
        CountDownLatch start = new CountDownLatch(1);
        List<Future<?>> running = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            long base = (long) t * perThread;
            running.add(adders.submit(() -> {
                start.await();
                for (long k = base; k < base + perThread; k++) {
                    if (k % 10 == 0) {
                        s.removeData(k);
                    } else {
                        s.addData(k, k % 3 == 0 ? "v" + k : k);
                    }
                }
                return null;
            }));
        }
        start.countDown();
        for (Future<?> f : running) {
            f.get();
        }
        s.close();

        int total = threads * perThread;
        assertThat(transport.received).hasSize(total);
        assertThat(transport.received.values()).allSatisfy(n -> assertThat(n).hasValue(1));
        assertThat(transport.removals).hasValue(total / 10);
        assertThat(transport.lastValue(3L)).isEqualTo("v3");
        assertThat(transport.lastValue(7L)).isEqualTo(7L);
        assertThat(transport.misrouted.get()).isNull();
        assertThat(transport.maxOutstandingPerNode.get()).isLessThanOrEqualTo(perNode);
        assertThat(s.metrics().added()).isEqualTo(total);
        assertThat(s.metrics().applied()).isEqualTo(total);
        assertThat(s.metrics().failed()).isZero();
        assertThat(s.metrics().bufferedBytes()).isZero();
    }

    @Test
    void flushesFromOtherThreadsWhileAddingLoseNothing() throws Exception {
        TestTransport transport = new TestTransport(16, "n1").completingOn(completer);
        Streamer<Object, Object> s = new Streamer<>("c", StreamerOptions.builder().perPartitionBufferSize(50)
                .autoFlushInterval(Duration.ZERO).build(), transport, new TestCodec(), () -> { });
        AtomicInteger flushes = new AtomicInteger();
        // Every 5,000 keys the adder waits until the flusher has flushed again: at least ten flushes land
        // while entries are buffered mid-stream, however the threads are scheduled (before, the adder could
        // finish before the flusher's first look, and the test then tested no concurrent flush).
        CompletableFuture<Void> adding = CompletableFuture.runAsync(() -> {
            for (long k = 0; k < 50_000; k++) {
                if (k % 5_000 == 2_500) {
                    int seen = flushes.get();
                    await().atMost(Duration.ofSeconds(20)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(1))
                            .until(() -> flushes.get() > seen);
                }
                s.addData(k, k);
            }
        }, adders);
        Future<?> flushing = adders.submit(() -> {
            while (!adding.isDone()) {
                s.flush();
                flushes.incrementAndGet();
            }
            return null;
        });
        adding.get();
        flushing.get();
        s.flush();
        assertThat(flushes.get()).as("flushes while adding").isGreaterThanOrEqualTo(10);
        assertThat(transport.received).hasSize(50_000);
        assertThat(transport.received.values()).allSatisfy(n -> assertThat(n).hasValue(1));
        assertThat(s.metrics().applied()).isEqualTo(50_000);
        s.close();
    }

    @Test
    void cancellingCloseWhileThreadsAddAndNodesAnswerLeavesNoFuturePending() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        TestTransport transport = new TestTransport(32, "n1", "n2").completingOn(completer);
        Streamer<Object, Object> s = new Streamer<>("c", StreamerOptions.builder()
                .perPartitionBufferSize(1 + random.nextInt(64))
                .perNodeParallelOperations(1 + random.nextInt(4))
                .bufferMemory(16 * 1024)
                .perPartitionBufferBytes(1024)
                .maxBlock(Duration.ofSeconds(30))
                .build(), transport, new TestCodec(), () -> { });
        int closeAfter = random.nextInt(20_000);
        CountDownLatch reached = new CountDownLatch(1);
        List<Future<List<CompletableFuture<Void>>>> running = new ArrayList<>();
        for (int t = 0; t < 3; t++) {
            long base = t * 1_000_000L;
            running.add(adders.submit(() -> {
                List<CompletableFuture<Void>> futures = new ArrayList<>();
                try {
                    for (long k = base; ; k++) {
                        futures.add(s.addData(k, k));
                        if (k - base == closeAfter) {
                            reached.countDown();
                        }
                    }
                } catch (IllegalStateException closed) {
                    return futures;
                }
            }));
        }
        reached.await();
        s.close(true);
        long total = 0;
        for (Future<List<CompletableFuture<Void>>> f : running) {
            List<CompletableFuture<Void>> futures = f.get();
            total += futures.size();
            assertThat(futures).as("seed %d", seed).allSatisfy(future -> assertThat(future).isDone());
        }
        assertThat(s.metrics().added()).as("seed %d", seed).isEqualTo(total);
        assertThat(s.metrics().applied() + s.metrics().failed()).as("seed %d", seed).isEqualTo(total);
        assertThat(s.metrics().bufferedBytes()).as("seed %d", seed).isZero();
    }
}
