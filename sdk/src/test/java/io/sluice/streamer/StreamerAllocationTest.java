package io.sluice.streamer;

import io.sluice.Receivers;
import io.sluice.StreamerOptions;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.protocol.internal.BatchOutcome;
import io.sluice.protocol.internal.BatchRequest;
import io.sluice.protocol.internal.StreamerTransport;
import io.sluice.streamer.internal.Streamer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The hot path allocates nothing per entry: with a built-in receiver the arrays of applied batches
 * are reused, so an adding thread allocates a few objects per batch and nothing else; arrays that
 * someone may still read (a custom receiver's, a failed batch's) are never reused.
 */
@Timeout(60)
class StreamerAllocationTest {

    private static final List<String> NODES = List.of("n1");

    @Test
    void addingAllocatesNothingPerEntryOnceBatchArraysAreReused() {
        var threads = allocationCounters();

        // Answers at once, on the adding thread, and allocates per batch only (no decoding).
        StreamerTransport transport = answering(1024, batch -> BatchOutcome.success(batch.entries().size()));
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

        // An entry is 8 header + 9 key + 45 value = 62 bytes; before the arrays were reused each entry's
        // bytes were allocated once more in its batch array. What is left is the objects made per batch
        // (about 300 bytes per 512 entries); one 16-byte object per entry would break the bound.
        double perEntry = (double) allocated / n;
        assertThat(perEntry).as("bytes allocated per entry").isLessThan(4);
    }

    @Test
    void addingFromABuilderAllocatesNothingPerEntry() {
        var threads = allocationCounters();

        BinaryContext binary = new BinaryContext();
        StreamerTransport transport = answering(1024, batch -> BatchOutcome.success(batch.entries().size()));
        Streamer<Object, Object> s = new Streamer<>("c", StreamerOptions.builder()
                .autoFlushInterval(Duration.ZERO).build(), transport, binary, () -> { });
        BinaryObjectBuilder builder = binary.builder("Order");
        int n = 400_000;
        Long[] keys = new Long[n];
        for (int i = 0; i < n; i++) {
            keys[i] = (long) i;
        }
        for (int i = 0; i < n; i++) { // warm up: JIT, thread-local scratch, the builder's layout
            s.addFromBuilder(keys[i], builder.setLong("id", i).setField("symbol", "SBER").setDouble("price", i));
        }
        s.flush();

        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < n; i++) {
            s.addFromBuilder(keys[i], builder.setLong("id", i).setField("symbol", "SBER").setDouble("price", i));
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        s.close();

        // addData(key, builder.build()) allocates the object and its array per entry (~70 bytes here).
        double perEntry = (double) allocated / n;
        assertThat(perEntry).as("bytes allocated per entry").isLessThan(4);
    }

    @Test
    void onlyArraysOfBatchesABuiltInReceiverAppliedAreReused() {
        for (String receiver : List.of(Receivers.ISOLATED, "audit")) {
            Map<byte[], Boolean> failedArrays = new IdentityHashMap<>();
            Map<byte[], Boolean> seen = new IdentityHashMap<>();
            int[] batches = {0};
            boolean[] reusedAFailedArray = {false};
            StreamerTransport transport = answering(4, batch -> {
                byte[] array = batch.entries().data();
                reusedAFailedArray[0] |= failedArrays.containsKey(array);
                seen.put(array, true);
                int size = batch.entries().size();
                if (batches[0]++ % 3 == 0) {
                    failedArrays.put(array, true);
                    return BatchOutcome.failure(0, size, new IllegalStateException("refused"));
                }
                return BatchOutcome.success(size);
            });
            Streamer<Object, Object> s = new Streamer<>("c", StreamerOptions.builder().perPartitionBufferSize(16)
                    .receiver(receiver.equals(Receivers.ISOLATED) ? Receivers.isolated() : Receivers.named(receiver))
                    .autoFlushInterval(Duration.ZERO).build(), transport, new TestCodec(), () -> { });
            for (long k = 0; k < 20_000; k++) {
                s.addData(k, new byte[40]);
            }
            s.close(true);

            assertThat(reusedAFailedArray[0]).as("%s: a failed batch's array came back", receiver).isFalse();
            if (receiver.equals(Receivers.ISOLATED)) {
                assertThat(seen.size()).as("distinct arrays for %d batches", batches[0]).isLessThan(batches[0] / 2);
            } else {
                assertThat(seen.size()).as("a custom receiver's batches each have their own array")
                        .isEqualTo(batches[0]);
            }
        }
    }

    /** A transport of one node that answers every batch at once, on the sending thread, with {@code outcome}. */
    private static StreamerTransport answering(int partitions,
                                               java.util.function.Function<BatchRequest.PartitionBatch, BatchOutcome> outcome) {
        return new StreamerTransport() {
            @Override
            public int partitions(String cacheName) {
                return partitions;
            }

            @Override
            public List<String> nodeIds() {
                return NODES;
            }

            @Override
            public CompletableFuture<List<BatchOutcome>> send(String nodeId, BatchRequest request) {
                BatchOutcome[] outcomes = new BatchOutcome[request.batches().size()];
                for (int i = 0; i < outcomes.length; i++) {
                    outcomes[i] = outcome.apply(request.batches().get(i));
                }
                return CompletableFuture.completedFuture(Arrays.asList(outcomes));
            }
        };
    }

    /** The JVM's per-thread allocation counters; the test is skipped where there are none (not HotSpot). */
    private static com.sun.management.ThreadMXBean allocationCounters() {
        assumeTrue(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean,
                "needs per-thread allocation counters (HotSpot)");
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        assumeTrue(threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());
        return threads;
    }
}
