package io.sluice.streamer;

import io.sluice.StreamerOptions;
import io.sluice.protocol.internal.BatchOutcome;
import io.sluice.protocol.internal.BatchRequest;
import io.sluice.protocol.internal.StreamerTransport;
import io.sluice.streamer.internal.Streamer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The hot path allocates nothing per entry: what an adding thread allocates is the batch bytes
 * (the encoded entries themselves, handed to the node) plus a few objects per batch.
 */
@Timeout(60)
class StreamerAllocationTest {

    private static final List<String> NODES = List.of("n1");

    @Test
    void addingAllocatesOnlyTheBatchBytes() {
        assumeTrue(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean,
                "needs per-thread allocation counters (HotSpot)");
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());

        // Answers at once, on the adding thread, and allocates per batch only (no decoding).
        StreamerTransport transport = new StreamerTransport() {
            @Override
            public int partitions(String cacheName) {
                return 1024;
            }

            @Override
            public List<String> nodeIds() {
                return NODES;
            }

            @Override
            public CompletableFuture<List<BatchOutcome>> send(String nodeId, BatchRequest request) {
                BatchOutcome[] outcomes = new BatchOutcome[request.batches().size()];
                for (int i = 0; i < outcomes.length; i++) {
                    outcomes[i] = BatchOutcome.success(request.batches().get(i).entries().size());
                }
                return CompletableFuture.completedFuture(Arrays.asList(outcomes));
            }
        };
        Streamer<Object, Object> s = new Streamer<>("c", StreamerOptions.builder()
                .autoFlushInterval(Duration.ZERO).build(), transport, new TestCodec(), () -> { });
        int n = 400_000;
        Long[] keys = new Long[n];
        for (int i = 0; i < n; i++) {
            keys[i] = (long) i;
        }
        byte[] value = new byte[40];
        for (int i = 0; i < n; i++) { // warm up: JIT, thread-local scratch, first-batch sizing
            s.addData(keys[i], value);
        }
        s.flush();

        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < n; i++) {
            s.addData(keys[i], value);
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        s.close();

        // 8 header + 9 key + 45 value: the bytes that must exist per entry. Allow 1/16 array slack and the
        // objects made per batch; one 16-byte object per entry would break the bound.
        int entryBytes = 8 + 9 + 45;
        double perEntry = (double) allocated / n;
        assertThat(perEntry).as("bytes allocated per entry (entry is %d bytes)", entryBytes)
                .isLessThan(entryBytes * 1.1 + 4);
    }
}
