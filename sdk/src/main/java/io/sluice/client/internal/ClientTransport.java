package io.sluice.client.internal;

import io.sluice.protocol.internal.BatchOutcome;
import io.sluice.protocol.internal.BatchRequest;
import io.sluice.protocol.internal.CacheOptionsWire;
import io.sluice.protocol.internal.Frames;
import io.sluice.protocol.internal.NotOwnerException;
import io.sluice.protocol.internal.Op;
import io.sluice.protocol.internal.StreamCodec;
import io.sluice.protocol.internal.StreamerTransport;
import io.sluice.protocol.internal.Wire;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The streamer's transport over TCP: a request's batches go to their node as one STREAM frame whose
 * entry bytes are the streamer's buffers, sent without a copy. The future completes (on the
 * connection's event loop) with the node's outcome per batch, or fails with the node's error or
 * {@link io.sluice.NodeUnreachableException}; it never hangs (requests time out) and never throws.
 */
final class ClientTransport implements StreamerTransport {

    private final Nodes nodes;
    private final Routing routing;
    private final int maxFrameSize;

    ClientTransport(Nodes nodes, Routing routing, int maxFrameSize) {
        this.nodes = nodes;
        this.routing = routing;
        this.maxFrameSize = maxFrameSize;
    }

    /**
     * Streamed requests are cut into frames of about this size (unless a single batch is larger): the
     * node reads each frame into one pooled buffer, and frames past the pool's chunk size (4 MiB) would
     * be allocated and dropped one by one.
     */
    static final int TARGET_FRAME_BYTES = 1 << 20;

    @Override
    public int partitions(String cacheName) {
        return shape(cacheName).partitions();
    }

    /** A cache's partition count and options, as CACHE_PARTITIONS answers them. */
    record CacheShape(int partitions, CacheOptionsWire.Options options) {
    }

    /** The cache's partition count and options (the defaults from a node of before options). */
    CacheShape shape(String cacheName) {
        if (routing.clustered()) {
            return routing.callAny(node -> shape(node, cacheName));
        }
        return nodes.await(shape(nodes.anyNode(), cacheName));
    }

    private CompletableFuture<CacheShape> shape(String node, String cacheName) {
        return nodes.call(node, false,
                c -> Frames.request(c.alloc(), Op.CACHE_PARTITIONS, out -> Wire.writeString(out, cacheName)),
                body -> new CacheShape(Wire.readInt(body, "partitions"),
                        body.isReadable() ? CacheOptionsWire.read(body) : CacheOptionsWire.DEFAULTS), cacheName);
    }

    @Override
    public List<String> nodeIds() {
        return nodes.ids();
    }

    /** In a cluster, the map's owners (one array per map: the streamer looks a batch's owner up in it). */
    @Override
    public String[] partitionOwners(int partitions) {
        return routing.ownerTable(partitions);
    }

    /**
     * Sends the request as one frame, or as several if its batches would make a frame longer than
     * {@code ClientConfig.maxFrameSize} (the outcomes come back in the request's order all the same).
     *
     * <p>In a cluster each batch goes to its partition's owner in the current map (the node named is where the
     * streamer's table said, and the same unless the map changed); a batch refused with NOT_OWNER, or whose node
     * could not be reached, is sent again to the owner of a refreshed map, and one whose partition has no owner
     * waits for one: {@link RoutedCall}. A batch no node served within the request timeout gets a failed outcome
     * naming its partition.
     */
    @Override
    public CompletableFuture<List<BatchOutcome>> send(String nodeId, BatchRequest request) {
        if (routing.clustered()) {
            List<BatchRequest.PartitionBatch> batches = request.batches();
            int[] partitions = new int[batches.size()];
            for (int i = 0; i < partitions.length; i++) {
                partitions[i] = batches.get(i).partition();
            }
            // The streamer checked the cache's partition count against the map when it looked its owners up.
            return RoutedCall.send(routing, nodes, "streaming to cache '" + request.cacheName() + "'", partitions,
                    -1, (node, items) -> {
                        List<BatchRequest.PartitionBatch> part = new ArrayList<>(items.length);
                        for (int i : items) {
                            part.add(batches.get(i));
                        }
                        return sendDirect(node, items.length == batches.size() ? request : new BatchRequest(
                                request.cacheName(), request.receiver(), request.allowOverwrite(),
                                request.skipStore(), part));
                    }, outcome -> outcome.error() instanceof NotOwnerException,
                    (i, noOwner) -> BatchOutcome.failure(0, batches.get(i).entries().size(), noOwner));
        }
        return sendDirect(nodeId, request);
    }

    /** Sends the request's batches to this node. */
    private CompletableFuture<List<BatchOutcome>> sendDirect(String nodeId, BatchRequest request) {
        try {
            List<BatchRequest> parts = split(request, TARGET_FRAME_BYTES, maxFrameSize);
            if (parts.size() == 1) {
                return sendOne(nodeId, request);
            }
            List<CompletableFuture<List<BatchOutcome>>> sent = new ArrayList<>(parts.size());
            for (BatchRequest part : parts) {
                sent.add(sendOne(nodeId, part));
            }
            return CompletableFuture.allOf(sent.toArray(new CompletableFuture<?>[0])).thenApply(done -> {
                List<BatchOutcome> all = new ArrayList<>(request.batches().size());
                for (CompletableFuture<List<BatchOutcome>> f : sent) {
                    all.addAll(f.join());
                }
                return all;
            });
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    private CompletableFuture<List<BatchOutcome>> sendOne(String nodeId, BatchRequest request) {
        return nodes.call(nodeId, true, c -> StreamCodec.encodeRequest(c.alloc(), 0, request),
                body -> StreamCodec.decodeResponse(body, request.cacheName()), request.cacheName());
    }

    /** Bytes a STREAM frame takes besides its batches' entries (header, names) at most, and per batch. */
    private static final int REQUEST_OVERHEAD = 64 * 1024;
    private static final int BATCH_OVERHEAD = 12;

    /**
     * The request in parts, batches in order, each part's frame about {@code targetBytes} (a larger batch
     * goes alone) and never more than {@code maxBytes}.
     *
     * @throws IllegalArgumentException naming the batch if one batch alone is longer than a frame may be
     */
    static List<BatchRequest> split(BatchRequest request, long targetBytes, long maxBytes) {
        long budget = Math.min(targetBytes, maxBytes) - REQUEST_OVERHEAD;
        long hardLimit = maxBytes - REQUEST_OVERHEAD;
        List<BatchRequest> parts = new ArrayList<>(1);
        List<BatchRequest.PartitionBatch> part = new ArrayList<>();
        long bytes = 0;
        for (BatchRequest.PartitionBatch b : request.batches()) {
            long size = BATCH_OVERHEAD + (long) b.entries().length();
            if (size > hardLimit) {
                throw new IllegalArgumentException("a batch of partition " + b.partition() + " has " + size
                        + " bytes, more than a frame may carry (" + hardLimit + "; ClientConfig.maxFrameSize,"
                        + " and the node's maxFrameSize): lower StreamerOptions.perPartitionBufferBytes");
            }
            if (bytes + size > budget && !part.isEmpty()) {
                parts.add(new BatchRequest(request.cacheName(), request.receiver(), request.allowOverwrite(),
                        request.skipStore(), part));
                part = new ArrayList<>();
                bytes = 0;
            }
            part.add(b);
            bytes += size;
        }
        if (parts.isEmpty()) {
            return List.of(request);
        }
        parts.add(new BatchRequest(request.cacheName(), request.receiver(), request.allowOverwrite(),
                request.skipStore(), part));
        return parts;
    }
}
