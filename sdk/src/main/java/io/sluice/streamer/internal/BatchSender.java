package io.sluice.streamer.internal;

import io.sluice.ReceiverRef;
import io.sluice.protocol.internal.BatchOutcome;
import io.sluice.protocol.internal.BatchRequest;
import io.sluice.protocol.internal.StreamerTransport;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Sends sealed batches to their owner nodes. Per node: a queue of ready batches and at most
 * {@code perNodeParallelOperations} requests in flight; every ready batch of a node (one per
 * partition) rides in one request.
 *
 * <p>Hand-over has two steps so that callers can keep order without sending under a lock:
 * {@link #enqueue} (cheap; the accumulator calls it under the partition's lock, so a partition's
 * batches enter their node's queue in the order they were sealed) and {@link #drain} (sends; called
 * after the lock is released). There is no sender thread: whichever thread hands over batches or
 * completes a request drains the node's queue, and a work-in-progress counter makes sure only one
 * thread drains a node at a time and that no hand-over is missed (a transport that answers
 * synchronously re-enters here without recursing). Requests to a node therefore leave in queue
 * order, and a partition's batches reach the transport in the order they were sealed.
 *
 * <p>The owner is looked up again when a batch is taken from a queue: after a topology change a
 * queued batch moves to its new owner. A batch no node owns (empty topology) waits in the
 * unroutable queue and fails when it is drained and still has no owner.
 */
final class BatchSender {

    private final String cacheName;
    private final ReceiverRef receiver;
    private final boolean allowOverwrite;
    private final boolean skipStore;
    private final int maxInFlight;
    private final StreamerTransport transport;
    private final PartitionOwners owners;
    private final StreamerCounters counters;
    private final ConcurrentHashMap<String, NodeQueue> nodes = new ConcurrentHashMap<>();
    private final NodeQueue unroutable = new NodeQueue(null);

    BatchSender(String cacheName, ReceiverRef receiver, boolean allowOverwrite, boolean skipStore, int maxInFlight,
                StreamerTransport transport, PartitionOwners owners, StreamerCounters counters) {
        this.cacheName = cacheName;
        this.receiver = receiver;
        this.allowOverwrite = allowOverwrite;
        this.skipStore = skipStore;
        this.maxInFlight = maxInFlight;
        this.transport = transport;
        this.owners = owners;
        this.counters = counters;
    }

    /**
     * Queues a sealed batch for its owner without sending anything, so it may be called under a
     * lock; the caller then calls {@link #drain} on the returned queue.
     */
    NodeQueue enqueue(Batch batch) {
        NodeQueue node = queueOf(batch.partition());
        node.ready.add(batch);
        return node;
    }

    /** Sends what the queue holds, as far as the in-flight bound allows. */
    void drain(NodeQueue node) {
        node.drain();
    }

    /** Queues sealed batches, then drains each node once so a node's batches share a request. */
    void sendAll(List<Batch> batches) {
        List<NodeQueue> touched = new ArrayList<>(4);
        for (Batch batch : batches) {
            NodeQueue node = enqueue(batch);
            if (!touched.contains(node)) {
                touched.add(node);
            }
        }
        for (NodeQueue node : touched) {
            node.drain();
        }
    }

    private NodeQueue queueOf(int partition) {
        String owner = ownerOrNull(partition);
        return owner == null ? unroutable : nodes.computeIfAbsent(owner, NodeQueue::new);
    }

    private String ownerOrNull(int partition) {
        try {
            return owners.owner(partition);
        } catch (RuntimeException noOwner) {
            return null;
        }
    }

    /** One node's ready batches and in-flight requests; the node id is null for the unroutable queue. */
    final class NodeQueue {
        private final String nodeId;
        private final Queue<Batch> ready = new ConcurrentLinkedQueue<>();
        private final AtomicInteger inFlight = new AtomicInteger();
        private final AtomicInteger work = new AtomicInteger();
        // Touched only by the thread that holds the drain (work counter went 0 -> 1).
        private final ArrayDeque<Batch> deferred = new ArrayDeque<>();
        private final BitSet partitionsInRequest = new BitSet();
        private final List<Batch> moved = new ArrayList<>();

        private NodeQueue(String nodeId) {
            this.nodeId = nodeId;
        }

        private void drain() {
            if (work.getAndIncrement() != 0) {
                return; // the thread draining now will see our work and loop again
            }
            int missed = 1;
            List<Batch> toMove = null;
            do {
                if (nodeId == null) {
                    drainUnroutable();
                } else {
                    while (inFlight.get() < maxInFlight) {
                        List<Batch> batches = nextRequest();
                        if (batches == null) {
                            break;
                        }
                        inFlight.incrementAndGet();
                        dispatch(batches);
                    }
                }
                if (!moved.isEmpty()) {
                    // Taken out while this thread still holds the drain; sent to their queues after it lets go.
                    if (toMove == null) {
                        toMove = new ArrayList<>();
                    }
                    toMove.addAll(moved);
                    moved.clear();
                }
                missed = work.addAndGet(-missed);
            } while (missed != 0);
            if (toMove != null) {
                sendAll(toMove);
            }
        }

        private void drainUnroutable() {
            Batch batch;
            while ((batch = ready.poll()) != null) {
                if (batch.isDone()) {
                    continue;
                }
                try {
                    owners.owner(batch.partition());
                    moved.add(batch); // an owner appeared meanwhile
                } catch (RuntimeException noOwner) {
                    batch.fail(noOwner);
                }
            }
        }

        /** Up to one batch per partition, oldest first; a second batch of a partition waits for the next request. */
        private List<Batch> nextRequest() {
            List<Batch> batches = null;
            int deferredBefore = deferred.size();
            for (int i = 0; i < deferredBefore; i++) {
                batches = take(deferred.poll(), batches);
            }
            Batch batch;
            while ((batch = ready.poll()) != null) {
                batches = take(batch, batches);
            }
            partitionsInRequest.clear();
            return batches;
        }

        private List<Batch> take(Batch batch, List<Batch> batches) {
            if (batch.isDone()) {
                return batches; // cancelled by close(true) before it could be sent
            }
            int partition = batch.partition();
            if (partitionsInRequest.get(partition)) {
                deferred.add(batch);
                return batches;
            }
            if (!nodeId.equals(ownerOrNull(partition))) {
                moved.add(batch); // the topology changed while the batch waited here
                return batches;
            }
            partitionsInRequest.set(partition);
            if (batches == null) {
                batches = new ArrayList<>();
            }
            batches.add(batch);
            return batches;
        }

        private void dispatch(List<Batch> batches) {
            List<BatchRequest.PartitionBatch> parts = new ArrayList<>(batches.size());
            for (Batch batch : batches) {
                parts.add(new BatchRequest.PartitionBatch(batch.partition(), batch.entries()));
            }
            BatchRequest request = new BatchRequest(cacheName, receiver, allowOverwrite, skipStore, parts);
            counters.batchesSent.add(batches.size());
            CompletableFuture<List<BatchOutcome>> response;
            try {
                response = transport.send(nodeId, request);
                if (response == null) {
                    throw new IllegalStateException("the transport returned no response future for node " + nodeId);
                }
            } catch (RuntimeException e) {
                response = CompletableFuture.failedFuture(e);
            }
            response.whenComplete((outcomes, error) -> completed(batches, outcomes, error));
        }

        private void completed(List<Batch> batches, List<BatchOutcome> outcomes, Throwable error) {
            try {
                if (error != null) {
                    Throwable cause = unwrap(error);
                    for (Batch batch : batches) {
                        batch.fail(cause);
                    }
                } else if (outcomes == null || outcomes.size() != batches.size()) {
                    IllegalStateException mismatch = new IllegalStateException("node " + nodeId + " answered "
                            + (outcomes == null ? "nothing" : outcomes.size() + " outcomes") + " to a request of "
                            + batches.size() + " batches");
                    for (Batch batch : batches) {
                        batch.fail(mismatch);
                    }
                } else {
                    for (int i = 0; i < batches.size(); i++) {
                        BatchOutcome outcome = outcomes.get(i);
                        if (outcome == null) {
                            batches.get(i).fail(new IllegalStateException("node " + nodeId
                                    + " answered no outcome for partition " + batches.get(i).partition()));
                        } else {
                            batches.get(i).complete(outcome);
                        }
                    }
                }
            } finally {
                inFlight.decrementAndGet();
                drain();
            }
        }
    }

    private static Throwable unwrap(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
