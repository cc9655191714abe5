package io.sluice.node.internal;

import io.sluice.CacheNotFoundException;
import io.sluice.binary.BinaryFormatException;
import io.sluice.cachestore.internal.CacheStoreBridge;
import io.sluice.cachestore.internal.InPlaceChanges;
import io.sluice.cachestore.internal.StoreChanges;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.binary.internal.ValueValidator;
import io.sluice.protocol.internal.BatchOutcome;
import io.sluice.protocol.internal.BatchRequest;
import io.sluice.protocol.internal.BatchRequest.PartitionBatch;
import io.sluice.protocol.internal.EntryBatch;
import io.sluice.protocol.internal.StreamerTransport;
import io.sluice.receiver.internal.BatchReceiver;
import io.sluice.receiver.internal.ReceiverRegistry;
import io.sluice.pagestore.internal.BatchApplyException;
import io.sluice.pagestore.internal.PartitionStore;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

/**
 * The {@link StreamerTransport} of an embedded node: a request never leaves the JVM. Each of its
 * partition batches is queued to the stripe thread of its partition, applied there by the named
 * receiver, and the request's future completes (on the stripe thread that applied the last batch)
 * with one outcome per batch once all are done. A batch that fails — the receiver threw, the store
 * ran out of memory, the node closed before it ran — gets a failed outcome; the future itself
 * fails only when the whole request cannot be handled (unknown node, cache or receiver, node closed).
 *
 * <p>A cache with a store: a built-in receiver's batch goes to the store as a whole before the
 * receiver applies it (write-through; a store failure fails the batch with nothing of it in memory)
 * and is queued after (write-behind); a custom receiver gets a cache whose operations do the same.
 * A request with {@code skipStore} gets a cache view that leaves the store alone.
 */
public final class EmbeddedTransport implements StreamerTransport {

    /** The node's caches by name (throws CacheNotFoundException, or IllegalStateException once the node closed). */
    private final Function<String, NodeCache<Object, Object>> caches;
    private final StripedExecutor stripes;
    private final ReceiverRegistry receivers;
    private final List<String> nodeIds;
    private final NodeMetrics metrics;
    private final Durability durability;
    /** Checks batches that arrived from the network. */
    private final BinaryContext binary;

    EmbeddedTransport(String nodeId, Function<String, NodeCache<Object, Object>> caches, StripedExecutor stripes,
                      ReceiverRegistry receivers, NodeMetrics metrics, Durability durability, BinaryContext binary) {
        this.caches = caches;
        this.metrics = metrics;
        this.stripes = stripes;
        this.receivers = receivers;
        this.nodeIds = List.of(nodeId);
        this.durability = durability;
        this.binary = binary;
    }

    @Override
    public int partitions(String cacheName) {
        return caches.apply(cacheName).partitions();
    }

    @Override
    public List<String> nodeIds() {
        return nodeIds;
    }

    @Override
    public CompletableFuture<List<BatchOutcome>> send(String nodeId, BatchRequest request) {
        return send(nodeId, request, false);
    }

    /**
     * Sends a request that arrived from the network: before a batch is applied, on its apply thread,
     * its structure and every key and value are checked ({@link #verify}), and a batch that fails the
     * check fails alone, with nothing of it stored.
     */
    public CompletableFuture<List<BatchOutcome>> sendReceived(String nodeId, BatchRequest request) {
        return send(nodeId, request, true);
    }

    private CompletableFuture<List<BatchOutcome>> send(String nodeId, BatchRequest request, boolean untrusted) {
        if (!nodeIds.get(0).equals(nodeId)) {
            return unknownNode(nodeId);
        }
        String receiverName = request.receiver().name();
        if (!receivers.contains(receiverName)) {
            return unknownReceiver(nodeId, receiverName);
        }
        NodeCache<Object, Object> cache;
        try {
            cache = caches.apply(request.cacheName());
        } catch (CacheNotFoundException | IllegalStateException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (request.skipStore()) {
            cache = cache.withSkipStore();
        }
        List<PartitionBatch> batches = request.batches();
        RequestCompletion completion = new RequestCompletion(batches.size(), metrics);
        BinaryContext verifier = untrusted ? binary : null;
        for (int i = 0; i < batches.size(); i++) {
            dispatch(completion, i, cache, receiverName, batches.get(i), verifier);
        }
        return completion.future;
    }

    /*
     * A request's work is per batch: the loop above stays small and this method, called once per batch, is
     * what the JIT compiles hot (a request carries up to one batch per partition; compiled with its loop,
     * the body was compiled into send's code again, late, as one of the largest units of a load). The
     * failures are methods of their own for the same reason: their code is never on the way of a batch.
     */

    /** Queues one partition batch of a request to its stripe thread. */
    private void dispatch(RequestCompletion completion, int index, NodeCache<Object, Object> cache, String receiverName,
                          PartitionBatch batch, BinaryContext verifier) {
        metrics.batchReceived(batch.entries().length());
        int partition = batch.partition();
        if (partition < 0 || partition >= cache.partitions()) {
            outOfRange(completion, index, cache, batch);
            return;
        }
        BatchReceiver receiver = receivers.receiver(receiverName, stripes.stripeOf(partition));
        ApplyTask task = new ApplyTask(completion, index, cache, receiver, batch, verifier);
        try {
            stripes.execute(partition, task);
        } catch (RejectedExecutionException e) {
            task.abandon(e);
        }
    }

    private CompletableFuture<List<BatchOutcome>> unknownNode(String nodeId) {
        return CompletableFuture.failedFuture(new IllegalArgumentException("node '" + nodeId
                + "' is not in this JVM; the embedded node is '" + nodeIds.get(0) + "'"));
    }

    private CompletableFuture<List<BatchOutcome>> unknownReceiver(String nodeId, String receiverName) {
        return CompletableFuture.failedFuture(new IllegalArgumentException("receiver '" + receiverName
                + "' is not registered on node '" + nodeId + "'; it has " + receivers.names()
                + " (register custom receivers with NodeConfig.builder().receiver(name, factory))"));
    }

    private static void outOfRange(RequestCompletion completion, int index, NodeCache<Object, Object> cache,
                                   PartitionBatch batch) {
        completion.complete(index, BatchOutcome.failure(0, batch.entries().size(), new IllegalArgumentException(
                "partition " + batch.partition() + " is out of range: cache '" + cache.name() + "' has "
                        + cache.partitions() + " partitions")));
    }

    /**
     * Collects the outcomes of a request's batches (counting each in the node's metrics); completes the
     * future when the last one arrives.
     */
    private static final class RequestCompletion {
        final CompletableFuture<List<BatchOutcome>> future = new CompletableFuture<>();
        final BatchOutcome[] outcomes;
        final AtomicInteger remaining;
        final NodeMetrics metrics;

        RequestCompletion(int batches, NodeMetrics metrics) {
            this.metrics = metrics;
            this.outcomes = new BatchOutcome[batches];
            this.remaining = new AtomicInteger(batches);
            if (batches == 0) {
                future.complete(List.of());
            }
        }

        void complete(int index, BatchOutcome outcome) {
            metrics.batchDone(outcome);
            outcomes[index] = outcome;
            // The decrement publishes this slot to the thread that sees zero.
            if (remaining.decrementAndGet() == 0) {
                future.complete(Arrays.asList(outcomes));
            }
        }
    }

    /** One partition batch, applied on its stripe thread. */
    private final class ApplyTask implements StripedExecutor.StripeTask {
        private final RequestCompletion completion;
        private final int index;
        private final NodeCache<Object, Object> cache;
        private final BatchReceiver receiver;
        private final PartitionBatch batch;
        /** Set when the batch came from the network: it is checked before it is applied. */
        private final BinaryContext verifier;

        ApplyTask(RequestCompletion completion, int index, NodeCache<Object, Object> cache,
                  BatchReceiver receiver, PartitionBatch batch, BinaryContext verifier) {
            this.completion = completion;
            this.index = index;
            this.cache = cache;
            this.receiver = receiver;
            this.batch = batch;
            this.verifier = verifier;
        }

        @Override
        public void run() {
            long start = System.nanoTime();
            EntryBatch entries = batch.entries();
            int[] offsets = ENTRY_INDEX.get().forBatch(entries.size());
            BatchOutcome outcome;
            try {
                RuntimeException malformed = verifier != null ? verify(batch, verifier, offsets)
                        : structure(batch, offsets);
                if (malformed != null) {
                    completion.complete(index, BatchOutcome.failure(0, entries.size(), malformed));
                    return;
                }
                outcome = apply(receiver, cache, batch);
            } finally {
                entries.releaseIndex(offsets); // the next batch on this thread reuses the array
                metrics.batchApplied(System.nanoTime() - start);
            }
            // The outcome is reported once what the batch wrote is durable per the WAL mode (at once without
            // persistence); meanwhile this thread applies the next batches, which share the same log write. A
            // FULL_ASYNC cache is answered once applied, without waiting for the log (issue 27).
            if (cache.config().writeSync() == io.sluice.WriteSyncMode.FULL_ASYNC) {
                completion.complete(index, outcome);
                return;
            }
            durability.whenDurable(error -> completion.complete(index, error == null ? outcome
                    : BatchOutcome.failure(0, batch.entries().size(), error)));
        }

        @Override
        public void abandon(Throwable reason) {
            completion.complete(index, BatchOutcome.failure(0, batch.entries().size(), reason));
        }
    }

    /**
     * Checks a received batch: entry lengths against the batch, then each key and value as exactly one
     * well-formed value of known types. Allocates nothing per entry.
     *
     * @return null if the batch is sound, else the error naming the partition, the entry and its byte offset
     */
    static RuntimeException verify(PartitionBatch batch, BinaryContext binary) {
        return verify(batch, binary, new int[batch.entries().size()]);
    }

    /** As {@link #verify(PartitionBatch, BinaryContext)}, indexing the batch into the caller's array. */
    static RuntimeException verify(PartitionBatch batch, BinaryContext binary, int[] offsets) {
        EntryBatch entries = batch.entries();
        RuntimeException corrupt = structure(batch, offsets);
        if (corrupt != null) {
            return corrupt;
        }
        byte[] data = entries.data();
        ValueValidator validator = binary.validator();
        for (int i = 0; i < entries.size(); i++) {
            int keyOffset = entries.keyOffset(i);
            try {
                validator.checkWhole(data, keyOffset, entries.keyLength(i));
                if (!entries.isRemoval(i)) {
                    validator.checkWhole(data, entries.valueOffset(i), entries.valueLength(i));
                }
            } catch (BinaryFormatException e) {
                return new BinaryFormatException("batch of partition " + batch.partition() + ", entry " + i
                        + " (byte " + (keyOffset - EntryBatch.ENTRY_HEADER - entries.base()) + " of the batch): "
                        + e.getMessage());
            }
        }
        return null;
    }

    /** Indexes the batch's entries into the array, checking their lengths; null if they are sound. */
    private static RuntimeException structure(PartitionBatch batch, int[] offsets) {
        try {
            batch.entries().checkStructure(offsets);
            return null;
        } catch (EntryBatch.CorruptBatchException e) {
            return new EntryBatch.CorruptBatchException("batch of partition " + batch.partition() + ": "
                    + e.getMessage().replaceFirst("^corrupt batch: ", ""));
        }
    }

    /**
     * The array an apply thread indexes its batches' entries into, one batch after another: a batch's
     * offsets are needed only while it is verified and applied on that thread, so none is allocated per
     * batch (it grows to the largest batch the thread has seen).
     */
    private static final ThreadLocal<EntryIndex> ENTRY_INDEX = ThreadLocal.withInitial(EntryIndex::new);

    private static final class EntryIndex {
        private int[] offsets = new int[1024];

        int[] forBatch(int entries) {
            if (offsets.length < entries) {
                offsets = new int[Math.max(entries, offsets.length * 2)];
            }
            return offsets;
        }
    }

    /**
     * Applies a batch and says what became of it; never throws, so no request is left hanging.
     * With a cache store and a built-in receiver: the store first (write-through), then memory, then
     * the write-behind queue — which also gets a batch that failed part way in memory, so the store
     * never misses what memory has.
     */
    static BatchOutcome apply(BatchReceiver receiver, NodeCache<Object, Object> cache, PartitionBatch batch) {
        EntryBatch entries = batch.entries();
        int size = entries.size();
        int partition = batch.partition();
        CacheStoreBridge storeWriter;
        try {
            storeWriter = cache.core().storeWriter();
        } catch (IllegalStateException awaitingItsStore) {
            return BatchOutcome.failure(0, size, awaitingItsStore);
        }
        if (storeWriter != null && ReceiverRegistry.changesInPlace(receiver)) {
            return applyInPlace(receiver, cache, batch, storeWriter);
        }
        CacheStoreBridge writer = ReceiverRegistry.storeWritesWholeBatch(receiver) ? storeWriter : null;
        if (writer == null) {
            return applyTo(receiver, cache, batch, null);
        }
        // The store and memory get the batch in the same order as the partition's other writes (CacheCore).
        ReentrantLock order = cache.core().writeOrder(partition);
        order.lock();
        try {
            return applyTo(receiver, cache, batch, writer);
        } finally {
            order.unlock();
        }
    }

    /** The store first (with a writer), then memory, then the write-behind queue. */
    private static BatchOutcome applyTo(BatchReceiver receiver, NodeCache<Object, Object> cache, PartitionBatch batch,
                                        CacheStoreBridge writer) {
        EntryBatch entries = batch.entries();
        int size = entries.size();
        int partition = batch.partition();
        PartitionStore store = cache.store(partition);
        StoreChanges changes = null;
        try {
            if (writer != null) {
                changes = writer.changes(partition, entries, store, ReceiverRegistry.insertsOnlyAbsent(receiver));
                writer.beforeMemory(changes);
            }
            int applied = receiver.apply(cache, cache.core().codec(), store, entries);
            if (writer != null) {
                writer.afterMemory(changes);
            }
            return BatchOutcome.success(applied);
        } catch (BatchApplyException e) {
            if (writer != null) {
                try {
                    writer.afterMemory(changes);
                } catch (RuntimeException queueClosed) {
                    e.addSuppressed(queueClosed);
                }
            }
            return BatchOutcome.failure(e.applied(), e.notApplied(), e);
        } catch (Throwable t) {
            return BatchOutcome.failure(0, size, t);
        }
    }

    /**
     * A receiver computing values in place (the transformer) with a cache store: memory first, then the keys it
     * changed reach the store; if the store refuses them, memory is put back and the whole batch fails with the
     * store's error ({@link InPlaceChanges} says why this order).
     */
    private static BatchOutcome applyInPlace(BatchReceiver receiver, NodeCache<Object, Object> cache,
                                             PartitionBatch batch, CacheStoreBridge writer) {
        EntryBatch entries = batch.entries();
        int size = entries.size();
        PartitionStore store = cache.store(batch.partition());
        InPlaceChanges changes = new InPlaceChanges();
        BatchOutcome outcome;
        // Memory, then the store, under the partition's write order (CacheCore): no put lands in between.
        ReentrantLock order = cache.core().writeOrder(batch.partition());
        order.lock();
        try {
            try {
                outcome = BatchOutcome.success(receiver.apply(cache, cache.core().codec(), store, entries, changes));
            } catch (BatchApplyException e) {
                outcome = BatchOutcome.failure(e.applied(), e.notApplied(), e);
            } catch (Throwable t) {
                outcome = BatchOutcome.failure(0, size, t);
            }
            try {
                // Whatever the receiver's outcome, what it changed in memory goes to the store.
                writer.afterInPlace(changes, batch.partition(), store);
            } catch (Throwable storeFailed) {
                return BatchOutcome.failure(0, size, storeFailed);
            }
        } finally {
            order.unlock();
        }
        return outcome;
    }
}
