package io.sluice.samples.bench;

import io.sluice.CacheConfig;
import io.sluice.protocol.internal.BatchOutcome;
import io.sluice.protocol.internal.BatchRequest;
import io.sluice.protocol.internal.StreamerTransport;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A transport that acknowledges every batch at once, on the sending thread, without storing it:
 * with it a streamer benchmark measures the client side alone (encode, buffer, hand over), and
 * {@code -prof gc} counts only the client's allocation, not a node's apply threads.
 */
final class DiscardingTransport implements StreamerTransport {

    private static final List<String> NODES = List.of("discard");

    private final int partitions;

    DiscardingTransport() {
        this(CacheConfig.DEFAULT_PARTITIONS);
    }

    DiscardingTransport(int partitions) {
        this.partitions = partitions;
    }

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
        List<BatchOutcome> outcomes = new ArrayList<>(request.batches().size());
        for (BatchRequest.PartitionBatch batch : request.batches()) {
            outcomes.add(BatchOutcome.success(batch.entries().size()));
        }
        return CompletableFuture.completedFuture(outcomes);
    }
}
