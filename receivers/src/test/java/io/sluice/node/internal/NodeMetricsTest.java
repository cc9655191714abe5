package io.sluice.node.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.CacheConfig;
import io.sluice.Receivers;
import io.sluice.StreamerOptions;
import io.sluice.protocol.internal.BatchOutcome;
import io.sluice.protocol.internal.BatchRequest;
import io.sluice.protocol.internal.EntryBatch;
import io.sluice.protocol.internal.ErrorKind;
import io.sluice.protocol.internal.StreamerTransport;
import io.sluice.streamer.internal.Streamer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(60)
class NodeMetricsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private NodeEngine node;

    @AfterEach
    void closeNode() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void streamedEntriesBatchesAndBytesAreCountedExactly() {
        node = new NodeEngine(NodeEngineTest.smallNode().applyThreads(3).build(), registry);
        node.createCache(CacheConfig.named("orders").withPartitions(32));
        TallyingTransport tally = new TallyingTransport(node.transport());
        int n = 20_000;
        // Small buffers: many batches, several per partition.
        StreamerOptions options = StreamerOptions.builder().perPartitionBufferSize(64).build();
        try (Streamer<Long, String> streamer = new Streamer<>("orders", options, tally, node.binaryContext(), () -> { })) {
            for (long k = 0; k < n; k++) {
                streamer.addData(k, "order-" + k);
            }
        }

        assertThat(node.cache("orders").size()).isEqualTo(n);
        assertThat(tally.batches.get()).as("the streamer sent many batches").isGreaterThan(n / 64 - 1);
        assertThat(count(NodeMetrics.ENTRIES_APPLIED)).isEqualTo(n);
        assertThat(count(NodeMetrics.BATCHES_APPLIED)).isEqualTo(tally.batches.get());
        assertThat(count(NodeMetrics.ENTRY_BYTES)).isEqualTo(tally.bytes.get());
        assertThat(registry.get(NodeMetrics.BATCH_APPLY).timer().count()).as("one apply time per batch")
                .isEqualTo(tally.batches.get());
        assertThat(registry.get(NodeMetrics.BATCH_APPLY).timer().totalTime(java.util.concurrent.TimeUnit.NANOSECONDS))
                .isPositive();
        assertThat(registry.find(NodeMetrics.ERRORS).counters()).as("every kind and scope, each at zero")
                .hasSize(ErrorKind.values().length * NodeMetrics.Scope.values().length)
                .allSatisfy(c -> assertThat(c.count()).isZero());
        assertThat(registry.find(NodeMetrics.STRIPE_QUEUED).gauges()).as("one queue gauge per apply thread")
                .hasSize(3).allSatisfy(g -> assertThat(g.value()).isZero());
        assertThat(registry.get(NodeMetrics.STRIPE_QUEUED).tag("stripe", "2").gauge()).isNotNull();
    }

    @Test
    void failedBatchesAreCountedByKindAndTheOthersAsApplied() throws Exception {
        node = new NodeEngine(NodeEngineTest.smallNode().build(), registry);
        node.createCache(CacheConfig.named("orders").withPartitions(8));
        EntryBatch empty = new EntryBatch(new byte[0], 0, 0);
        // Claims one entry with a 100-byte key in 8 bytes: the check of a received batch refuses it.
        EntryBatch corrupt = new EntryBatch(new byte[]{0, 0, 0, 100, 0, 0, 0, 1}, 8, 1);
        List<BatchOutcome> outcomes = node.transport().sendReceived(node.id(), new BatchRequest("orders",
                Receivers.isolated(), false, false, List.of(new BatchRequest.PartitionBatch(1, empty),
                        new BatchRequest.PartitionBatch(2, corrupt), new BatchRequest.PartitionBatch(99, empty))))
                .get(30, TimeUnit.SECONDS);

        assertThat(outcomes).extracting(BatchOutcome::succeeded).containsExactly(true, false, false);
        assertThat(count(NodeMetrics.BATCHES_APPLIED)).isEqualTo(1);
        assertThat(errors(NodeMetrics.Scope.BATCH, ErrorKind.BINARY_FORMAT)).isEqualTo(1);
        assertThat(errors(NodeMetrics.Scope.BATCH, ErrorKind.ILLEGAL_ARGUMENT)).as("partition 99 of 8").isEqualTo(1);
        assertThat(count(NodeMetrics.ENTRY_BYTES)).isEqualTo(8);
        assertThat(registry.find(NodeMetrics.ERRORS).counters().stream().mapToDouble(Counter::count).sum())
                .isEqualTo(2);
    }

    @Test
    void aClosedNodeLeavesNoMetersInTheRegistry() {
        node = new NodeEngine(NodeEngineTest.smallNode().build(), registry);
        assertThat(registry.getMeters()).isNotEmpty();
        node.close();
        node = null;
        assertThat(registry.getMeters()).isEmpty();
    }

    @Test
    void aNodeWithoutARegistryCountsInItsOwn() {
        node = new NodeEngine(NodeEngineTest.smallNode().build());
        node.createCache(CacheConfig.named("orders").withPartitions(4));
        try (var streamer = node.<Long, String>dataStreamer("orders")) {
            streamer.addData(1L, "one");
        }
        assertThat(node.metrics().registry().get(NodeMetrics.ENTRIES_APPLIED).counter().count()).isEqualTo(1);
    }

    private double count(String name) {
        return registry.get(name).counter().count();
    }

    private double errors(NodeMetrics.Scope scope, ErrorKind kind) {
        return registry.get(NodeMetrics.ERRORS).tag("scope", scope.name().toLowerCase(java.util.Locale.ROOT))
                .tag("kind", kind.name()).counter().count();
    }

    /** The node's transport, counting the batches and entry bytes handed to it. */
    private static final class TallyingTransport implements StreamerTransport {
        final StreamerTransport node;
        final AtomicLong batches = new AtomicLong();
        final AtomicLong bytes = new AtomicLong();

        TallyingTransport(StreamerTransport node) {
            this.node = node;
        }

        @Override
        public int partitions(String cacheName) {
            return node.partitions(cacheName);
        }

        @Override
        public List<String> nodeIds() {
            return node.nodeIds();
        }

        @Override
        public CompletableFuture<List<BatchOutcome>> send(String nodeId, BatchRequest request) {
            for (BatchRequest.PartitionBatch b : request.batches()) {
                batches.incrementAndGet();
                bytes.addAndGet(b.entries().length());
            }
            return node.send(nodeId, request);
        }
    }
}
