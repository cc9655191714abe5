package io.sluice.streamer;

import io.sluice.StreamerException;
import io.sluice.StreamerOptions;
import io.sluice.protocol.internal.BatchOutcome;
import io.sluice.streamer.internal.Streamer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Seeded random runs of adds, removals, flushes, topology changes and node answers (successes,
 * failed batches, failed requests) in random order, checked against what must hold whatever the
 * order: every entry is sent exactly once and to its owner, every future completes, a future fails
 * exactly when its batch failed, flushes report every failed entry once, and the counters add up.
 */
@Timeout(60)
class StreamerModelTest {

    @Test
    void randomRunsKeepEveryPromise() {
        long base = System.nanoTime();
        for (int run = 0; run < 25; run++) {
            run(base + run);
        }
    }

    private void run(long seed) {
        Random random = new Random(seed);
        int partitions = 1 + random.nextInt(16);
        int maxInFlight = 1 + random.nextInt(3);
        TestTransport transport = new TestTransport(partitions, "n1", "n2", "n3").manual();
        transport.outcomes(batch -> random.nextInt(10) == 0
                ? BatchOutcome.failure(0, batch.entries().size(), new IllegalStateException("batch failed"))
                : BatchOutcome.success(batch.entries().size()));
        StreamerOptions options = StreamerOptions.builder()
                .perPartitionBufferSize(1 + random.nextInt(20))
                .perPartitionBufferBytes(64 + random.nextInt(2000))
                .perNodeParallelOperations(maxInFlight)
                .bufferMemory(1L << 30)
                .autoFlushInterval(Duration.ZERO)
                .build();
        Streamer<Object, Object> s = new Streamer<>("c", options, transport, new TestCodec(), () -> { });
        List<CompletableFuture<Void>> futures = new ArrayList<>();
        Map<Object, Integer> addedPerKey = new HashMap<>();
        long reportedFailures = 0;
        int ops = 500 + random.nextInt(1500);
        for (int op = 0; op < ops; op++) {
            int choice = random.nextInt(100);
            Long key = (long) random.nextInt(200);
            if (choice < 60) {
                futures.add(s.addData(key, random.nextBoolean() ? "v" + op : new byte[random.nextInt(100)]));
                addedPerKey.merge(key, 1, Integer::sum);
            } else if (choice < 70) {
                futures.add(s.removeData(key));
                addedPerKey.merge(key, 1, Integer::sum);
            } else if (choice < 75) {
                s.tryFlush();
            } else if (choice < 90) {
                transport.completeOne();
            } else if (choice < 93) {
                transport.failRequestsWith(new IllegalStateException("request failed"));
                transport.completeOne();
                transport.failRequestsWith(null);
            } else if (choice < 95) {
                transport.completePending();
            } else if (choice < 97) {
                List<String> nodes = new ArrayList<>(List.of("n1", "n2", "n3"));
                Collections.shuffle(nodes, random);
                transport.nodes(nodes.subList(0, 1 + random.nextInt(3)).toArray(new String[0]));
            } else {
                transport.automatic();
                reportedFailures += flushCountingFailures(s);
                assertThat(futures).as("seed %d: every future done after flush", seed).allSatisfy(f ->
                        assertThat(f).isDone());
                transport.manual();
            }
            assertThat(transport.maxOutstandingPerNode.get()).as("seed %d", seed).isLessThanOrEqualTo(maxInFlight);
        }
        transport.automatic();
        reportedFailures += flushCountingFailures(s);
        s.close();

        String context = "seed " + seed;
        assertThat(transport.misrouted.get()).as(context).isNull();
        Map<Object, Integer> receivedPerKey = new HashMap<>();
        transport.received.forEach((k, n) -> receivedPerKey.put(k, n.get()));
        assertThat(receivedPerKey).as(context).isEqualTo(addedPerKey);
        long failedFutures = futures.stream().filter(CompletableFuture::isCompletedExceptionally).count();
        assertThat(futures).as(context).allSatisfy(f -> assertThat(f).isDone());
        assertThat(s.metrics().added()).as(context).isEqualTo(futures.size());
        assertThat(s.metrics().failed()).as(context).isEqualTo(failedFutures).isEqualTo(reportedFailures);
        assertThat(s.metrics().applied()).as(context).isEqualTo(futures.size() - failedFutures);
        assertThat(s.metrics().bufferedBytes()).as(context).isZero();
    }

    private static long flushCountingFailures(Streamer<Object, Object> s) {
        try {
            s.flush();
            return 0;
        } catch (StreamerException e) {
            return e.failedEntries();
        }
    }
}
