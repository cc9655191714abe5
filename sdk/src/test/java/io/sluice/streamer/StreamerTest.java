package io.sluice.streamer;

import io.sluice.CacheNotFoundException;
import io.sluice.Receivers;
import io.sluice.StreamerException;
import io.sluice.StreamerOptions;
import io.sluice.StreamerTimeoutException;
import io.sluice.affinity.internal.Partitioner;
import io.sluice.protocol.internal.BatchOutcome;
import io.sluice.protocol.internal.BatchRequest;
import io.sluice.streamer.internal.Streamer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

@Timeout(30)
class StreamerTest {

    private static final int PARTITIONS = 8;
    private static final StreamerOptions NO_AUTO_FLUSH = StreamerOptions.builder()
            .autoFlushInterval(Duration.ZERO).build();

    private final TestCodec codec = new TestCodec();
    private final List<Streamer<Object, Object>> opened = new ArrayList<>();
    private final AtomicInteger closedCalls = new AtomicInteger();

    @AfterEach
    void closeAll() {
        for (Streamer<Object, Object> s : opened) {
            s.close(true);
        }
    }

    private Streamer<Object, Object> streamer(StreamerOptions options, TestTransport transport) {
        Streamer<Object, Object> s = new Streamer<>("c", options, transport, codec, closedCalls::incrementAndGet);
        opened.add(s);
        return s;
    }

    /** The first {@code n} Long keys from {@code from} on whose partition is {@code partition}. */
    private List<Long> keysIn(int partition, int n, long from) {
        List<Long> keys = new ArrayList<>();
        for (long k = from; keys.size() < n; k++) {
            byte[] b = codec.bytes(k);
            if (Partitioner.partition(b, 0, b.length, PARTITIONS) == partition) {
                keys.add(k);
            }
        }
        return keys;
    }

    private static StreamerOptions.Builder noAutoFlush() {
        return NO_AUTO_FLUSH.toBuilder();
    }

    @Test
    void bufferIsSentWhenItReachesPerPartitionBufferSize() {
        TestTransport transport = new TestTransport(PARTITIONS, "n1");
        Streamer<Object, Object> s = streamer(noAutoFlush().perPartitionBufferSize(4).build(), transport);
        List<Long> keys = keysIn(3, 4, 0);
        List<CompletableFuture<Void>> futures = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            futures.add(s.addData(keys.get(i), "v" + i));
        }
        assertThat(transport.requests).isEmpty();
        assertThat(futures.get(0)).isNotDone();

        futures.add(s.addData(keys.get(3), "v3"));

        assertThat(transport.requests).hasSize(1);
        BatchRequest request = transport.requests.get(0).request();
        assertThat(request.batches()).hasSize(1);
        assertThat(request.batches().get(0).partition()).isEqualTo(3);
        assertThat(request.batches().get(0).entries().size()).isEqualTo(4);
        assertThat(futures).allSatisfy(f -> assertThat(f).isSameAs(futures.get(0)).isCompleted());
        assertThat(transport.lastValue(keys.get(2))).isEqualTo("v2");
        assertThat(transport.misrouted.get()).isNull();
    }

    @Test
    void bufferIsSentWhenItReachesPerPartitionBufferBytes() {
        TestTransport transport = new TestTransport(PARTITIONS, "n1");
        // Each entry: 8 header + 9 key + 25 value = 42 bytes; two pass the 64-byte limit.
        Streamer<Object, Object> s = streamer(noAutoFlush().perPartitionBufferBytes(64).build(), transport);
        List<Long> keys = keysIn(5, 2, 0);
        s.addData(keys.get(0), new byte[20]);
        assertThat(transport.requests).isEmpty();
        assertThat(s.metrics().bufferedBytes()).isEqualTo(42);

        s.addData(keys.get(1), new byte[20]);

        assertThat(transport.requests).hasSize(1);
        assertThat(transport.requests.get(0).entries()).isEqualTo(2);
        assertThat(s.metrics().bufferedBytes()).isZero();
    }

    @Test
    void autoFlushIntervalSendsWithoutFlush() {
        TestTransport transport = new TestTransport(PARTITIONS, "n1");
        Streamer<Object, Object> s = streamer(StreamerOptions.builder()
                .autoFlushInterval(Duration.ofMillis(20)).build(), transport);

        CompletableFuture<Void> future = s.addData(1L, "one");

        await().atMost(Duration.ofSeconds(10)).until(future::isDone);
        assertThat(future).isCompleted();
        assertThat(transport.received).containsOnlyKeys(1L);
        assertThat(s.metrics().applied()).isEqualTo(1);
    }

    @Test
    void autoFlushThreadStopsOnClose() {
        TestTransport transport = new TestTransport(PARTITIONS, "n1");
        Streamer<Object, Object> s = new Streamer<>("c", StreamerOptions.builder()
                .autoFlushInterval(Duration.ofMillis(10)).build(), transport, codec, () -> { });
        assertThat(flusherThreads()).isPositive();

        s.close();

        await().atMost(Duration.ofSeconds(10)).until(() -> flusherThreads() == 0);
    }

    private static long flusherThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().equals("sluice-streamer-autoflush-c")).count();
    }

    @Test
    void flushWaitsUntilEveryBatchIsApplied() {
        TestTransport transport = new TestTransport(PARTITIONS, "n1").manual();
        Streamer<Object, Object> s = streamer(NO_AUTO_FLUSH, transport);
        for (long k = 0; k < 100; k++) {
            s.addData(k, k);
        }

        CompletableFuture<Void> flushed = CompletableFuture.runAsync(s::flush);

        await().atMost(Duration.ofSeconds(10)).until(() -> transport.pending.size() == 1);
        assertThat(flushed).isNotDone(); // its batches are still in flight
        transport.completePending();
        flushed.join();
        assertThat(s.metrics().applied()).isEqualTo(100);
        assertThat(s.metrics().added()).isEqualTo(100);
        assertThat(s.metrics().bufferedBytes()).isZero();
    }

    @Test
    void flushReportsFailedEntriesWithTheirCountAndFirstCause() {
        IllegalStateException boom = new IllegalStateException("page memory is full");
        TestTransport transport = new TestTransport(PARTITIONS, "n1").outcomes(batch -> batch.partition() == 2
                ? BatchOutcome.failure(0, batch.entries().size(), boom)
                : BatchOutcome.success(batch.entries().size()));
        Streamer<Object, Object> s = streamer(NO_AUTO_FLUSH, transport);
        List<Long> failing = keysIn(2, 7, 0);
        List<Long> fine = keysIn(4, 5, 0);
        CompletableFuture<Void> failedFuture = null;
        for (Long k : failing) {
            failedFuture = s.addData(k, "x");
        }
        CompletableFuture<Void> fineFuture = null;
        for (Long k : fine) {
            fineFuture = s.addData(k, "y");
        }

        assertThatThrownBy(s::flush)
                .isInstanceOfSatisfying(StreamerException.class, e -> assertThat(e.failedEntries()).isEqualTo(7))
                .hasCause(boom)
                .hasMessageContaining("7 entries in 1 batches failed");
        assertThat(failedFuture).isCompletedExceptionally();
        assertThatThrownBy(failedFuture::join).hasCause(boom);
        assertThat(fineFuture).isCompleted();
        assertThat(s.metrics().failed()).isEqualTo(7);
        assertThat(s.metrics().applied()).isEqualTo(5);
        assertThat(s.metrics().added()).isEqualTo(s.metrics().applied() + s.metrics().failed());

        s.flush(); // the failures were reported once; nothing new failed
    }

    @Test
    void partiallyAppliedBatchCountsAppliedAndFailedEntries() {
        RuntimeException cause = new RuntimeException("duplicate");
        TestTransport transport = new TestTransport(PARTITIONS, "n1")
                .outcomes(batch -> BatchOutcome.failure(3, batch.entries().size() - 3, cause));
        Streamer<Object, Object> s = streamer(NO_AUTO_FLUSH, transport);
        for (Long k : keysIn(1, 10, 0)) {
            s.addData(k, k);
        }
        assertThatThrownBy(s::flush).isInstanceOfSatisfying(StreamerException.class,
                e -> assertThat(e.failedEntries()).isEqualTo(7));
        assertThat(s.metrics().applied()).isEqualTo(3);
        assertThat(s.metrics().failed()).isEqualTo(7);
    }

    @Test
    void failedRequestFailsEveryBatchOfIt() {
        RuntimeException gone = new RuntimeException("node n1 went away");
        TestTransport transport = new TestTransport(PARTITIONS, "n1").failRequestsWith(gone);
        Streamer<Object, Object> s = streamer(NO_AUTO_FLUSH, transport);
        List<CompletableFuture<Void>> futures = new ArrayList<>();
        for (long k = 0; k < 50; k++) {
            futures.add(s.addData(k, k));
        }

        assertThatThrownBy(s::flush).isInstanceOfSatisfying(StreamerException.class,
                e -> assertThat(e.failedEntries()).isEqualTo(50)).hasCause(gone);
        assertThat(transport.requests).hasSize(1);
        assertThat(futures).allSatisfy(f -> assertThatThrownBy(f::join)
                .isInstanceOf(CompletionException.class).hasCause(gone));
        assertThat(s.metrics().failed()).isEqualTo(50);
    }

    @Test
    void transportThrowingFromSendFailsTheBatchesInsteadOfHanging() {
        TestTransport transport = new TestTransport(PARTITIONS, "n1") {
            @Override
            public CompletableFuture<List<BatchOutcome>> send(String nodeId, BatchRequest request) {
                throw new IllegalStateException("connection refused");
            }
        };
        Streamer<Object, Object> s = streamer(NO_AUTO_FLUSH, transport);
        CompletableFuture<Void> future = s.addData(1L, 1L);
        assertThatThrownBy(s::flush).isInstanceOf(StreamerException.class)
                .hasRootCauseMessage("connection refused");
        assertThat(future).isCompletedExceptionally();
    }

    @Test
    void flushTimesOutWhenTheNodeNeverAnswers() {
        TestTransport transport = new TestTransport(PARTITIONS, "n1").manual();
        Streamer<Object, Object> s = streamer(noAutoFlush().timeout(Duration.ofMillis(100)).build(), transport);
        s.addData(1L, 1L);
        assertThatThrownBy(s::flush).isInstanceOf(StreamerTimeoutException.class)
                .hasMessageContaining("1 batches (1 entries)").hasMessageContaining("StreamerOptions.timeout");
    }

    @Test
    void addDataBlocksAtBufferMemoryThenFailsNamingTheLimit() {
        TestTransport transport = new TestTransport(PARTITIONS, "n1").manual(); // never answers
        Streamer<Object, Object> s = streamer(noAutoFlush().bufferMemory(1024).perPartitionBufferBytes(64)
                .maxBlock(Duration.ofMillis(100)).build(), transport);

        StreamerTimeoutException thrown = null;
        int added = 0;
        while (thrown == null && added < 1000) {
            try {
                s.addData((long) added, new byte[20]);
                added++;
            } catch (StreamerTimeoutException e) {
                thrown = e;
            }
        }

        assertThat(thrown).isNotNull();
        assertThat(thrown.getMessage()).contains("StreamerOptions.bufferMemory", "StreamerOptions.maxBlock",
                "42 bytes", "of 1024 bytes");
        assertThat(added).isBetween(1024 / 42 - 1, 1024 / 42);
        assertThat(s.metrics().bufferedBytes()).isLessThanOrEqualTo(1024);
        assertThat(s.metrics().added()).isEqualTo(added);
    }

    @Test
    void blockedAddDataResumesWhenBatchesComplete() throws Exception {
        TestTransport transport = new TestTransport(PARTITIONS, "n1").manual();
        Streamer<Object, Object> s = streamer(noAutoFlush().bufferMemory(1024).perPartitionBufferBytes(64)
                .maxBlock(Duration.ofSeconds(20)).build(), transport);
        CompletableFuture<Void> producer = CompletableFuture.runAsync(() -> {
            for (long k = 0; k < 500; k++) {
                s.addData(k, new byte[20]);
            }
        });
        // The producer can only finish if completed batches give their memory back.
        while (!producer.isDone()) {
            transport.completePending();
            Thread.onSpinWait();
        }
        producer.get();
        s.tryFlush();
        transport.completePending();
        s.flush();
        assertThat(transport.received).hasSize(500);
        assertThat(s.metrics().applied()).isEqualTo(500);
    }

    @Test
    void openBuffersAreSentWhenTheyHoldAllBufferMemory() {
        // Buffers never fill by count or bytes, auto-flush is off: only memory pressure can send them.
        TestTransport transport = new TestTransport(PARTITIONS, "n1");
        Streamer<Object, Object> s = streamer(noAutoFlush().bufferMemory(2048).perPartitionBufferBytes(2048)
                .perPartitionBufferSize(1_000_000).maxBlock(Duration.ofSeconds(20)).build(), transport);
        for (long k = 0; k < 2000; k++) {
            s.addData(k, new byte[20]);
        }
        assertThat(transport.receivedEntries.get()).isPositive();
        s.flush();
        assertThat(transport.received).hasSize(2000);
    }

    @Test
    void cancellingCloseLeavesNoFuturePendingAndIgnoresLateAnswers() {
        TestTransport transport = new TestTransport(PARTITIONS, "n1").manual();
        Streamer<Object, Object> s = streamer(noAutoFlush().perPartitionBufferSize(5)
                .perNodeParallelOperations(1).build(), transport);
        List<CompletableFuture<Void>> futures = new ArrayList<>();
        for (long k = 0; k < 200; k++) {
            futures.add(s.addData(k, k)); // some in flight, some queued behind the in-flight bound, some buffered
        }
        assertThat(transport.pending).hasSize(1);

        s.close(true);

        assertThat(futures).allSatisfy(f -> {
            assertThat(f).isDone();
            assertThatThrownBy(f::join).isInstanceOf(CancellationException.class);
        });
        transport.completePending(); // a late answer changes nothing
        assertThat(futures).allSatisfy(f -> assertThat(f).isCompletedExceptionally());
        assertThat(s.metrics().failed()).isEqualTo(200);
        assertThat(s.metrics().applied()).isZero();
        assertThat(s.metrics().bufferedBytes()).isZero();
        assertThat(transport.requests).hasSize(1); // nothing was sent after the close
        assertThat(closedCalls).hasValue(1);
    }

    @Test
    void closeFlushesWaitsAndRunsOnCloseOnce() {
        TestTransport transport = new TestTransport(PARTITIONS, "n1");
        Streamer<Object, Object> s = streamer(NO_AUTO_FLUSH, transport);
        CompletableFuture<Void> future = s.addData(1L, "a");
        s.removeData(2L);

        s.close();
        s.close();
        s.close(true);

        assertThat(future).isCompleted();
        assertThat(transport.received).containsOnlyKeys(1L, 2L);
        assertThat(transport.removals).hasValue(1);
        assertThat(transport.lastValue(2L)).isNull();
        assertThat(closedCalls).hasValue(1);
    }

    @Test
    void flushAfterCloseThrowsEveryTimeWhateverTheCloseWas() {
        for (boolean cancel : new boolean[] {false, true}) {
            Streamer<Object, Object> s = streamer(NO_AUTO_FLUSH, new TestTransport(PARTITIONS, "n1"));
            s.addData(1L, "a");
            s.close(cancel);
            for (int attempt = 0; attempt < 2; attempt++) {
                assertThatThrownBy(s::flush).as("cancel=%s, attempt %d", cancel, attempt)
                        .isInstanceOf(IllegalStateException.class).hasMessageContaining("is closed");
                assertThatThrownBy(s::tryFlush).isInstanceOf(IllegalStateException.class);
                assertThatThrownBy(() -> s.addData(2L, "b")).isInstanceOf(IllegalStateException.class);
            }
        }
    }

    @Test
    void closeThrowsWhenBatchesFailedAndStillRunsOnClose() {
        RuntimeException cause = new RuntimeException("receiver not found");
        TestTransport transport = new TestTransport(PARTITIONS, "n1").failRequestsWith(cause);
        Streamer<Object, Object> s = streamer(NO_AUTO_FLUSH, transport);
        s.addData(1L, "a");
        assertThatThrownBy(s::close).isInstanceOf(StreamerException.class).hasCause(cause);
        assertThat(closedCalls).hasValue(1);
    }

    @Test
    void closeThatTimesOutCancelsWhatIsLeft() {
        TestTransport transport = new TestTransport(PARTITIONS, "n1").manual();
        Streamer<Object, Object> s = streamer(noAutoFlush().timeout(Duration.ofMillis(100)).build(), transport);
        CompletableFuture<Void> future = s.addData(1L, "a");
        assertThatThrownBy(s::close).isInstanceOf(StreamerTimeoutException.class);
        assertThat(future).isCompletedExceptionally();
        assertThat(closedCalls).hasValue(1);
    }

    @Test
    void closedStreamerRejectsAddData() {
        TestTransport transport = new TestTransport(PARTITIONS, "n1");
        Streamer<Object, Object> s = streamer(NO_AUTO_FLUSH, transport);
        s.close();
        assertThatThrownBy(() -> s.addData(1L, "a")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed").hasMessageContaining("'c'");
        assertThatThrownBy(() -> s.removeData(1L)).isInstanceOf(IllegalStateException.class);
        assertThat(s.metrics().added()).isZero();
    }

    @Test
    void nullKeyOrValueIsRejectedNamingTheArgument() {
        TestTransport transport = new TestTransport(PARTITIONS, "n1");
        Streamer<Object, Object> s = streamer(NO_AUTO_FLUSH, transport);
        assertThatThrownBy(() -> s.addData(null, "v")).isInstanceOf(NullPointerException.class).hasMessage("key");
        assertThatThrownBy(() -> s.addData(1L, null)).isInstanceOf(NullPointerException.class).hasMessage("value");
        assertThatThrownBy(() -> s.removeData(null)).isInstanceOf(NullPointerException.class).hasMessage("key");
        Map<Object, Object> withNullValue = new LinkedHashMap<>();
        withNullValue.put(1L, null);
        assertThatThrownBy(() -> s.addData(withNullValue)).isInstanceOf(NullPointerException.class)
                .hasMessage("value");
        s.flush();
        assertThat(s.metrics().added()).isZero();
        assertThat(transport.requests).isEmpty();
    }

    @Test
    void oversizedEntryIsRejectedWithNothingHalfAdded() {
        TestTransport transport = new TestTransport(PARTITIONS, "n1");
        Streamer<Object, Object> s = streamer(noAutoFlush().maxEntrySize(100).build(), transport);
        s.addData(1L, "small");

        assertThatThrownBy(() -> s.addData(42L, new byte[200]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("key 42")
                .hasMessageContaining("214 bytes")
                .hasMessageContaining("100 bytes (StreamerOptions.maxEntrySize)");

        assertThat(s.metrics().added()).isEqualTo(1);
        s.flush();
        assertThat(transport.received).containsOnlyKeys(1L);
        assertThat(s.metrics().bufferedBytes()).isZero();
    }

    @Test
    void unknownCacheFailsTheConstructor() {
        TestTransport transport = new TestTransport(PARTITIONS, "n1");
        assertThatThrownBy(() -> new Streamer<>("nope", NO_AUTO_FLUSH, transport, codec, () -> { }))
                .isInstanceOf(CacheNotFoundException.class).hasMessageContaining("'nope'");
    }

    @Test
    void readyBuffersOfOneNodeRideInOneRequest() {
        TestTransport transport = new TestTransport(PARTITIONS, "n1");
        Streamer<Object, Object> s = streamer(noAutoFlush().allowOverwrite(true).skipStore(true)
                .receiver(Receivers.batched()).build(), transport);
        for (long k = 0; k < 100; k++) {
            s.addData(k, k);
        }
        s.flush();
        assertThat(transport.requests).hasSize(1);
        BatchRequest request = transport.requests.get(0).request();
        assertThat(request.batches()).hasSize(PARTITIONS);
        assertThat(request.cacheName()).isEqualTo("c");
        assertThat(request.receiver()).isEqualTo(Receivers.batched());
        assertThat(request.allowOverwrite()).isTrue();
        assertThat(request.skipStore()).isTrue();
        assertThat(s.metrics().batchesSent()).isEqualTo(PARTITIONS);
    }

    @Test
    void batchesGoToTheirOwnerNodeOneRequestPerNode() {
        TestTransport transport = new TestTransport(64, "n1", "n2", "n3");
        Streamer<Object, Object> s = streamer(NO_AUTO_FLUSH, transport);
        for (long k = 0; k < 2000; k++) {
            s.addData(k, k);
        }
        s.flush();
        assertThat(transport.misrouted.get()).isNull();
        assertThat(transport.requests).hasSize(3);
        assertThat(transport.requests.stream().map(TestTransport.Sent::nodeId)).containsExactlyInAnyOrder(
                "n1", "n2", "n3");
        assertThat(transport.received).hasSize(2000);
    }

    @Test
    void topologyChangeRoutesLaterBatchesToTheNewOwner() {
        TestTransport transport = new TestTransport(64, "n1");
        Streamer<Object, Object> s = streamer(NO_AUTO_FLUSH, transport);
        for (long k = 0; k < 500; k++) {
            s.addData(k, k);
        }
        s.flush();
        transport.nodes("n1", "n2");
        for (long k = 500; k < 1000; k++) {
            s.addData(k, k);
        }
        s.flush();
        assertThat(transport.misrouted.get()).isNull();
        assertThat(transport.requests.stream().map(TestTransport.Sent::nodeId)).contains("n2");
    }

    @Test
    void inFlightRequestsPerNodeStayWithinTheBound() {
        TestTransport transport = new TestTransport(PARTITIONS, "n1").manual();
        Streamer<Object, Object> s = streamer(noAutoFlush().perPartitionBufferSize(1)
                .perNodeParallelOperations(2).build(), transport);
        for (long k = 0; k < 40; k++) {
            s.addData(k, k); // every entry fills its buffer
        }
        assertThat(transport.requests).hasSize(2);
        assertThat(s.metrics().added()).isEqualTo(40); // addData never waited for a permit

        while (transport.completeOne()) {
            assertThat(transport.outstanding("n1")).isLessThanOrEqualTo(2);
        }
        s.flush();
        assertThat(transport.maxOutstandingPerNode).hasValue(2);
        assertThat(transport.received).hasSize(40);
        // Queued batches went out together: far fewer requests than batches.
        assertThat(transport.requests.size()).isLessThan(40);
        assertThat(transport.misrouted.get()).isNull();
    }

    @Test
    void addingAMapReturnsAFutureOfAllItsBatches() {
        TestTransport transport = new TestTransport(PARTITIONS, "n1").manual();
        Streamer<Object, Object> s = streamer(NO_AUTO_FLUSH, transport);
        Map<Object, Object> entries = new LinkedHashMap<>();
        for (long k = 0; k < 50; k++) {
            entries.put(k, "v" + k);
        }
        CompletableFuture<Void> all = s.addData(entries);
        CompletableFuture<Void> fromCollection = s.addData(List.copyOf(Map.of(100L, "x", 101L, "y").entrySet()));
        s.tryFlush();
        assertThat(all).isNotDone();
        transport.completePending();
        assertThat(all).isCompleted();
        assertThat(fromCollection).isCompleted();
        assertThat(transport.received).hasSize(52);
        assertThat(s.addData(Map.of())).isCompleted();
    }

    @Test
    void aSharedBatchFutureCannotBeCompletedByOneCaller() {
        TestTransport transport = new TestTransport(PARTITIONS, "n1").manual();
        Streamer<Object, Object> s = streamer(NO_AUTO_FLUSH, transport);
        CompletableFuture<Void> future = s.addData(1L, "a");
        assertThatThrownBy(() -> future.complete(null)).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> future.completeExceptionally(new RuntimeException()))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> future.completeAsync(() -> null)).isInstanceOf(UnsupportedOperationException.class);
        assertThat(future.cancel(true)).isFalse();
        CompletableFuture<Void> timedOut = future.orTimeout(1, java.util.concurrent.TimeUnit.MILLISECONDS);
        await().atMost(Duration.ofSeconds(10)).until(timedOut::isDone);
        assertThat(timedOut).isCompletedExceptionally();
        assertThat(future).isNotDone(); // the caller's timeout did not touch the batch's future
        CompletableFuture<String> chained = future.thenApply(v -> "done");
        assertThat(chained.complete("mine")).isTrue(); // chained futures belong to the caller
        s.tryFlush();
        transport.completePending();
        assertThat(future).isCompleted();
    }

    @Test
    void callbacksMayAddDataWhileTheTransportAnswersOnTheAddingThread() {
        TestTransport transport = new TestTransport(PARTITIONS, "n1"); // answers inside send
        // Buffers fill only by memory: an add that finds the memory full sends them from inside addData, the
        // answers run the callbacks below on this thread, and those add entries while the first add is unfinished.
        Streamer<Object, Object> s = streamer(noAutoFlush().perPartitionBufferSize(1000).bufferMemory(1024)
                .perPartitionBufferBytes(1024).build(), transport);
        AtomicInteger callbacks = new AtomicInteger();
        for (long k = 0; k < 200; k++) {
            long key = k;
            s.addData(key, "v" + key).thenRun(() -> {
                if (callbacks.incrementAndGet() < 100) {
                    s.addData(-key - 1, "w" + key);
                }
            });
        }
        assertThat(callbacks.get()).isPositive(); // answers came back while adding
        s.flush();
        s.flush();
        assertThat(transport.received).hasSize(200 + 99);
        assertThat(transport.received.values()).allSatisfy(n -> assertThat(n).hasValue(1));
        for (long k = 0; k < 200; k++) {
            assertThat(transport.lastValue(k)).isEqualTo("v" + k);
        }
        assertThat(s.metrics().added()).isEqualTo(s.metrics().applied()).isEqualTo(299);
    }

    @Test
    void queuedBatchesMoveToTheirNewOwnerWhenTheTopologyChanges() {
        TestTransport transport = new TestTransport(64, "n1").manual();
        Streamer<Object, Object> s = streamer(noAutoFlush().perNodeParallelOperations(1).build(), transport);
        s.addData(0L, 0L);
        s.tryFlush(); // in flight to n1, holding its only permit
        for (long k = 1; k < 300; k++) {
            s.addData(k, k);
        }
        s.tryFlush(); // queued behind the permit
        transport.nodes("n1", "n2");
        transport.completePending();
        transport.completePending();
        s.flush();
        assertThat(transport.misrouted.get()).isNull(); // the test transport checks owners against the new topology
        assertThat(transport.requests.stream().map(TestTransport.Sent::nodeId)).contains("n2");
        assertThat(transport.received).hasSize(300);
    }

    @Test
    void batchesWithNoOwnerFailInsteadOfWaiting() {
        TestTransport transport = new TestTransport(PARTITIONS);
        Streamer<Object, Object> s = streamer(NO_AUTO_FLUSH, transport);
        CompletableFuture<Void> future = s.addData(1L, 1L);
        assertThatThrownBy(s::flush).isInstanceOf(StreamerException.class)
                .hasRootCauseInstanceOf(IllegalArgumentException.class)
                .hasRootCauseMessage("no node owns partition " + partitionOf(1L) + ": the topology is empty");
        assertThat(future).isCompletedExceptionally();

        transport.nodes("n1");
        s.addData(2L, 2L);
        s.flush();
        assertThat(transport.received).containsOnlyKeys(2L);
    }

    private int partitionOf(Object key) {
        byte[] b = codec.bytes(key);
        return Partitioner.partition(b, 0, b.length, PARTITIONS);
    }

    @Test
    void aPartitionsBatchesReachTheTransportInTheOrderTheyWereSealed() {
        TestTransport transport = new TestTransport(PARTITIONS, "n1").manual();
        Streamer<Object, Object> s = streamer(noAutoFlush().perPartitionBufferSize(3)
                .perNodeParallelOperations(2).build(), transport);
        for (int round = 0; round < 20; round++) {
            s.addData(7L, "v" + round); // one key: every batch is partition 7's
        }
        s.tryFlush();
        while (transport.completeOne()) {
            // each answer lets the next queued batch out
        }
        s.flush();
        assertThat(transport.lastValue(7L)).isEqualTo("v19");
        List<Object> order = new ArrayList<>();
        for (TestTransport.Sent sent : transport.requests) {
            assertThat(sent.request().batches()).hasSize(1); // a partition's batches never share a request
            var entries = sent.request().batches().get(0).entries();
            for (int i = 0; i < entries.size(); i++) {
                order.add(codec.decode(entries.data(), entries.valueOffset(i), entries.valueLength(i), true));
            }
        }
        List<Object> expected = new ArrayList<>();
        for (int round = 0; round < 20; round++) {
            expected.add("v" + round);
        }
        assertThat(order).isEqualTo(expected);
    }

    @Test
    void zeroMaxBlockFailsAtOnceWhenBufferMemoryIsFull() {
        TestTransport transport = new TestTransport(PARTITIONS, "n1").manual();
        Streamer<Object, Object> s = streamer(noAutoFlush().bufferMemory(1024).perPartitionBufferBytes(64)
                .maxBlock(Duration.ZERO).build(), transport);
        assertThatThrownBy(() -> {
            for (long k = 0; k < 1000; k++) {
                s.addData(k, new byte[20]);
            }
        }).isInstanceOf(StreamerTimeoutException.class).hasMessageContaining("waited 0 ms");
    }

    @Test
    void closingWakesThreadsBlockedForBufferMemory() throws Exception {
        TestTransport transport = new TestTransport(PARTITIONS, "n1").manual();
        Streamer<Object, Object> s = streamer(noAutoFlush().bufferMemory(1024).perPartitionBufferBytes(64)
                .maxBlock(Duration.ofMinutes(5)).build(), transport);
        for (long k = 0; k < 1024 / 42; k++) {
            s.addData(k, new byte[20]);
        }
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread adder = new Thread(() -> {
            try {
                s.addData(-1L, new byte[20]);
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        adder.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> adder.getState() == Thread.State.TIMED_WAITING);

        s.close(true);

        adder.join(10_000);
        assertThat(thrown.get()).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThat(s.metrics().added()).isEqualTo(1024 / 42);
    }

    @Test
    void aValueTheCodecRejectsFailsThatAddAloneAndLeavesTheStreamerUsable() {
        TestTransport transport = new TestTransport(PARTITIONS, "n1");
        Streamer<Object, Object> s = streamer(NO_AUTO_FLUSH, transport);
        s.addData(1L, "before");
        assertThatThrownBy(() -> s.addData(2L, new Object())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cannot encode");
        s.addData(3L, "after");
        s.flush();
        assertThat(transport.received).containsOnlyKeys(1L, 3L);
        assertThat(transport.lastValue(3L)).isEqualTo("after");
        assertThat(s.metrics().added()).isEqualTo(2);
        assertThat(s.metrics().bufferedBytes()).isZero();
    }

    @Test
    void metricsCountEveryEntryOnce() {
        TestTransport transport = new TestTransport(PARTITIONS, "n1").manual();
        Streamer<Object, Object> s = streamer(noAutoFlush().perPartitionBufferSize(10).build(), transport);
        for (long k = 0; k < 95; k++) {
            s.addData(k, k);
        }
        assertThat(s.metrics().added()).isEqualTo(95);
        assertThat(s.metrics().applied()).isZero();
        assertThat(s.metrics().bufferedBytes()).isEqualTo(95 * (8 + 9 + 9));
        s.tryFlush();
        transport.completePending();
        s.flush();
        assertThat(s.metrics().added()).isEqualTo(95);
        assertThat(s.metrics().applied()).isEqualTo(95);
        assertThat(s.metrics().batchesSent()).isEqualTo(transport.requests.stream()
                .mapToLong(r -> r.request().batches().size()).sum());
        assertThat(s.metrics().bufferedBytes()).isZero();
    }
}
