package io.sluice.streamer;

import io.sluice.CacheNotFoundException;
import io.sluice.affinity.internal.Partitioner;
import io.sluice.affinity.internal.RendezvousAffinity;
import io.sluice.binary.internal.ValueCodec;
import io.sluice.protocol.internal.BatchOutcome;
import io.sluice.protocol.internal.BatchRequest;
import io.sluice.protocol.internal.EntryBatch;
import io.sluice.protocol.internal.StreamerTransport;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * An in-JVM transport for the streamer's tests. It records every request, decodes and counts every
 * entry it receives, checks that each batch went to its partition's owner, counts requests
 * outstanding per node, and completes requests immediately (on the sending thread), on an executor,
 * or when the test says so; with outcomes the test chooses.
 */
class TestTransport implements StreamerTransport {

    /** One request as received. */
    record Sent(String nodeId, BatchRequest request, CompletableFuture<List<BatchOutcome>> response) {
        int entries() {
            return request.batches().stream().mapToInt(b -> b.entries().size()).sum();
        }
    }

    private final ValueCodec codec;
    private final Set<String> caches = ConcurrentHashMap.newKeySet();
    private final int partitions;
    private volatile List<String> nodes;
    private volatile boolean manual;
    private volatile Executor completer;
    private volatile Function<BatchRequest.PartitionBatch, BatchOutcome> outcomes =
            batch -> BatchOutcome.success(batch.entries().size());
    private volatile Throwable requestFailure;

    final List<Sent> requests = new CopyOnWriteArrayList<>();
    final ConcurrentLinkedQueue<Sent> pending = new ConcurrentLinkedQueue<>();
    final Map<Object, AtomicInteger> received = new ConcurrentHashMap<>();
    final AtomicInteger removals = new AtomicInteger();
    final AtomicInteger receivedEntries = new AtomicInteger();
    private final Map<String, AtomicInteger> outstanding = new ConcurrentHashMap<>();
    final AtomicInteger maxOutstandingPerNode = new AtomicInteger();
    final AtomicReference<String> misrouted = new AtomicReference<>();

    TestTransport(int partitions, String... nodes) {
        this(new TestCodec(), partitions, nodes);
    }

    /** A transport decoding what it receives with this codec. */
    TestTransport(ValueCodec codec, int partitions, String... nodes) {
        this.codec = codec;
        this.partitions = partitions;
        this.nodes = List.of(nodes);
        caches.add("c");
    }

    /** Requests wait until {@link #completePending()} or {@link #completeOne()}. */
    TestTransport manual() {
        this.manual = true;
        return this;
    }

    /** Requests from now on complete as they are sent; those waiting complete now. */
    TestTransport automatic() {
        this.manual = false;
        completePending();
        return this;
    }

    /** Requests complete on this executor. */
    TestTransport completingOn(Executor executor) {
        this.completer = executor;
        return this;
    }

    TestTransport outcomes(Function<BatchRequest.PartitionBatch, BatchOutcome> outcomes) {
        this.outcomes = outcomes;
        return this;
    }

    /** Every request fails as a whole with this cause. */
    TestTransport failRequestsWith(Throwable cause) {
        this.requestFailure = cause;
        return this;
    }

    void nodes(String... ids) {
        this.nodes = List.of(ids);
    }

    private static BatchRequest copyOf(BatchRequest r) {
        List<BatchRequest.PartitionBatch> batches = new java.util.ArrayList<>(r.batches().size());
        for (BatchRequest.PartitionBatch b : r.batches()) {
            EntryBatch e = b.entries();
            byte[] data = java.util.Arrays.copyOfRange(e.data(), e.base(), e.base() + e.length());
            batches.add(new BatchRequest.PartitionBatch(b.partition(), new EntryBatch(data, e.length(), e.size())));
        }
        return new BatchRequest(r.cacheName(), r.receiver(), r.allowOverwrite(), r.skipStore(), batches);
    }

    @Override
    public int partitions(String cacheName) {
        if (!caches.contains(cacheName)) {
            throw new CacheNotFoundException(cacheName);
        }
        return partitions;
    }

    @Override
    public List<String> nodeIds() {
        return nodes;
    }

    @Override
    public CompletableFuture<List<BatchOutcome>> send(String nodeId, BatchRequest sentRequest) {
        // Kept as a node keeps what it applied: copied. The streamer reuses a batch's array once it succeeded.
        BatchRequest request = copyOf(sentRequest);
        int now = outstanding.computeIfAbsent(nodeId, n -> new AtomicInteger()).incrementAndGet();
        maxOutstandingPerNode.accumulateAndGet(now, Math::max);
        record(nodeId, request);
        Sent sent = new Sent(nodeId, request, new CompletableFuture<>());
        requests.add(sent);
        if (manual) {
            pending.add(sent);
        } else if (completer != null) {
            completer.execute(() -> complete(sent));
        } else {
            complete(sent);
        }
        return sent.response();
    }

    /** Completes every request waiting now; returns how many. */
    int completePending() {
        int n = 0;
        Sent sent;
        while ((sent = pending.poll()) != null) {
            complete(sent);
            n++;
        }
        return n;
    }

    /** Completes the oldest waiting request, if any. */
    boolean completeOne() {
        Sent sent = pending.poll();
        if (sent == null) {
            return false;
        }
        complete(sent);
        return true;
    }

    int outstanding(String nodeId) {
        AtomicInteger n = outstanding.get(nodeId);
        return n == null ? 0 : n.get();
    }

    private void complete(Sent sent) {
        outstanding.get(sent.nodeId()).decrementAndGet();
        Throwable failure = requestFailure;
        if (failure != null) {
            sent.response().completeExceptionally(failure);
            return;
        }
        List<BatchOutcome> result = new ArrayList<>();
        for (BatchRequest.PartitionBatch batch : sent.request().batches()) {
            result.add(outcomes.apply(batch));
        }
        sent.response().complete(result);
    }

    /** Decodes and counts every entry; checks partition and owner of each batch. */
    private void record(String nodeId, BatchRequest request) {
        List<String> topology = nodes;
        Set<Integer> seen = ConcurrentHashMap.newKeySet();
        for (BatchRequest.PartitionBatch batch : request.batches()) {
            if (!seen.add(batch.partition())) {
                misrouted.compareAndSet(null, "partition " + batch.partition() + " twice in one request");
            }
            if (!RendezvousAffinity.owner(batch.partition(), topology).equals(nodeId)) {
                misrouted.compareAndSet(null, "partition " + batch.partition() + " sent to " + nodeId);
            }
            EntryBatch entries = batch.entries();
            for (int i = 0; i < entries.size(); i++) {
                byte[] data = entries.data();
                int keyPartition = Partitioner.partition(data, entries.keyOffset(i), entries.keyLength(i), partitions);
                if (keyPartition != batch.partition()) {
                    misrouted.compareAndSet(null, "key of partition " + keyPartition + " in batch of "
                            + batch.partition());
                }
                Object key = codec.decode(data, entries.keyOffset(i), entries.keyLength(i), true);
                received.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
                receivedEntries.incrementAndGet();
                if (entries.isRemoval(i)) {
                    removals.incrementAndGet();
                }
            }
        }
    }

    /** The value sent last for a key (null for a removal): a key is in one partition, so in one batch per request. */
    Object lastValue(Object key) {
        for (int r = requests.size() - 1; r >= 0; r--) {
            for (BatchRequest.PartitionBatch batch : requests.get(r).request().batches()) {
                EntryBatch entries = batch.entries();
                for (int i = entries.size() - 1; i >= 0; i--) {
                    Object k = codec.decode(entries.data(), entries.keyOffset(i), entries.keyLength(i), true);
                    if (java.util.Objects.deepEquals(k, key)) {
                        return entries.isRemoval(i) ? null
                                : codec.decode(entries.data(), entries.valueOffset(i), entries.valueLength(i), true);
                    }
                }
            }
        }
        throw new AssertionError("key " + key + " was never sent");
    }
}
