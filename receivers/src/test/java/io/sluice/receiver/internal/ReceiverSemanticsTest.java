package io.sluice.receiver.internal;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.ReceiverRef;
import io.sluice.Receivers;
import io.sluice.affinity.internal.Partitioner;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.binary.internal.ValueCodec;
import io.sluice.node.NodeConfig;
import io.sluice.node.internal.NodeEngine;
import io.sluice.protocol.internal.BatchOutcome;
import io.sluice.protocol.internal.BatchRequest;
import io.sluice.protocol.internal.BatchRequest.PartitionBatch;
import io.sluice.protocol.internal.EntryBatch;
import io.sluice.pagestore.internal.BatchApplyException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What each receiver does to a partition, driven through the node's transport with hand-made
 * batches so the entries of a batch and their order are exactly the test's.
 */
@Timeout(60)
class ReceiverSemanticsTest {

    private static final String CACHE = "orders";

    /** Entries a custom receiver saw, by call. */
    private final List<List<Map.Entry<Object, Object>>> received = new CopyOnWriteArrayList<>();
    private final Map<String, Thread> receiverThreads = new ConcurrentHashMap<>();

    private NodeEngine node;
    private Cache<Long, String> cache;

    private void start(int partitions) {
        node = new NodeEngine(NodeConfig.builder()
                .dataRegionInitialSize(4L << 20)
                .dataRegionMaxSize(256L << 20)
                .applyThreads(2)
                .receiver("upper", () -> (cache, entries) -> {
                    received.add(new ArrayList<>(entries));
                    receiverThreads.put(Thread.currentThread().getName(), Thread.currentThread());
                    for (Map.Entry<Object, Object> e : entries) {
                        if (e.getValue() == null) {
                            cache.remove(e.getKey());
                        } else {
                            cache.put(e.getKey(), ((String) e.getValue()).toUpperCase());
                        }
                    }
                })
                .receiver("failing", () -> (cache, entries) -> {
                    throw new IllegalStateException("receiver rejected " + entries.size() + " entries");
                })
                .build());
        cache = node.createCache(CacheConfig.named(CACHE).withPartitions(partitions));
    }

    @AfterEach
    void stop() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void isolatedKeepsExistingValues() throws Exception {
        start(8);
        cache.put(1L, "old");

        List<BatchOutcome> outcomes = send(Receivers.isolated(), entry(1L, "new"), entry(2L, "two"));

        assertAllSucceeded(outcomes, 2);
        assertThat(cache.get(1L)).isEqualTo("old");
        assertThat(cache.get(2L)).isEqualTo("two");
    }

    @Test
    void aPutAfterAnIsolatedLoadWins() throws Exception {
        start(8);
        send(Receivers.isolated(), entry(1L, "loaded"));

        cache.put(1L, "put");
        send(Receivers.isolated(), entry(1L, "loaded again"));

        assertThat(cache.get(1L)).isEqualTo("put");
    }

    @Test
    void isolatedLoadsEveryKeyOfAPartitionInOnePass() throws Exception {
        start(1);
        List<Map.Entry<Long, String>> entries = new ArrayList<>();
        for (long k = 999; k >= 0; k--) {
            entries.add(entry(k, "v" + k));
        }

        List<BatchOutcome> outcomes = send(Receivers.isolated(), entries);

        assertAllSucceeded(outcomes, 1000);
        assertThat(cache.size()).isEqualTo(1000);
        assertThat(scanKeys()).as("keys in order within the partition").isSorted().hasSize(1000);
        assertThat(cache.get(500L)).isEqualTo("v500");
    }

    @Test
    void individualOverwritesAndRemoves() throws Exception {
        start(8);
        cache.put(1L, "old");
        cache.put(3L, "doomed");

        List<BatchOutcome> outcomes = send(Receivers.individual(), entry(1L, "new"), entry(2L, "two"), removal(3L));

        assertAllSucceeded(outcomes, 3);
        assertThat(cache.get(1L)).isEqualTo("new");
        assertThat(cache.get(2L)).isEqualTo("two");
        assertThat(cache.get(3L)).isNull();
        assertThat(cache.size()).isEqualTo(2);
    }

    @Test
    void individualAppliesEntriesInBatchOrder() throws Exception {
        start(1);

        send(Receivers.individual(), entry(1L, "a"), entry(1L, "b"), removal(2L), entry(2L, "c"));

        assertThat(cache.get(1L)).isEqualTo("b");
        assertThat(cache.get(2L)).isEqualTo("c");
    }

    @Test
    void batchedOverwritesAndRemoves() throws Exception {
        start(8);
        cache.put(1L, "old");
        cache.put(3L, "doomed");

        List<BatchOutcome> outcomes = send(Receivers.batched(), entry(1L, "new"), entry(2L, "two"), removal(3L));

        assertAllSucceeded(outcomes, 3);
        assertThat(cache.get(1L)).isEqualTo("new");
        assertThat(cache.get(2L)).isEqualTo("two");
        assertThat(cache.get(3L)).isNull();
    }

    @Test
    void batchedSortsUnsortedInputAndTheLastDuplicateWins() throws Exception {
        start(1);
        cache.put(500L, "old");
        List<Map.Entry<Long, String>> entries = new ArrayList<>();
        for (long k = 999; k >= 0; k -= 3) {
            entries.add(entry(k, "v" + k));
        }
        for (long k = 0; k < 1000; k += 7) {
            entries.add(entry(k, "w" + k));
        }
        entries.add(entry(500L, "last"));

        send(Receivers.batched(), entries);

        assertThat(scanKeys()).isSorted().doesNotHaveDuplicates();
        for (long k = 0; k < 1000; k++) {
            String expected = k == 500 ? "last" : k % 7 == 0 ? "w" + k : (999 - k) % 3 == 0 ? "v" + k : null;
            assertThat(cache.get(k)).as("key %d", k).isEqualTo(expected);
        }
    }

    @Test
    void customReceiverGetsDecodedEntriesOnTheStripeThread() throws Exception {
        start(8);
        cache.put(3L, "doomed");

        List<BatchOutcome> outcomes = send(Receivers.named("upper"), entry(1L, "one"), entry(2L, "two"), removal(3L));

        assertAllSucceeded(outcomes, 3);
        assertThat(cache.get(1L)).isEqualTo("ONE");
        assertThat(cache.get(2L)).isEqualTo("TWO");
        assertThat(cache.get(3L)).isNull();
        List<Map.Entry<Object, Object>> all = received.stream().flatMap(List::stream).collect(Collectors.toList());
        assertThat(all).containsExactlyInAnyOrder(
                new AbstractMap.SimpleImmutableEntry<>(1L, "one"),
                new AbstractMap.SimpleImmutableEntry<>(2L, "two"),
                new AbstractMap.SimpleImmutableEntry<>(3L, null));
        assertThat(receiverThreads.keySet()).allMatch(name -> name.startsWith("sluice-apply-"));
    }

    @Test
    void aThrowingReceiverFailsItsBatchWithTheCause() throws Exception {
        start(1);

        List<BatchOutcome> outcomes = send(Receivers.named("failing"), entry(1L, "one"), entry(2L, "two"));

        assertThat(outcomes).hasSize(1);
        BatchOutcome outcome = outcomes.get(0);
        assertThat(outcome.succeeded()).isFalse();
        assertThat(outcome.applied()).isZero();
        assertThat(outcome.failed()).isEqualTo(2);
        assertThat(outcome.error()).isInstanceOf(IllegalStateException.class).hasMessage("receiver rejected 2 entries");

        // The stripe survives: the next batch of the partition applies.
        assertAllSucceeded(send(Receivers.isolated(), entry(1L, "one")), 1);
        assertThat(cache.get(1L)).isEqualTo("one");
    }

    @Test
    void aFullRegionFailsAnIndividualBatchWithItsCounts() throws Exception {
        assertFullRegionFailsTheBatchWithItsCounts(Receivers.individual());
    }

    @Test
    void aFullRegionFailsAnIsolatedBatchWithTheStoresCounts() throws Exception {
        assertFullRegionFailsTheBatchWithItsCounts(Receivers.isolated());
    }

    private void assertFullRegionFailsTheBatchWithItsCounts(ReceiverRef receiver) throws Exception {
        node = new NodeEngine(NodeConfig.builder()
                .dataRegionInitialSize(0)
                .dataRegionMaxSize(64 * 4096)
                .applyThreads(1)
                .build());
        Cache<Long, String> small = node.createCache(CacheConfig.named(CACHE).withPartitions(1));
        String big = "x".repeat(3000);
        List<Map.Entry<Long, String>> entries = new ArrayList<>();
        for (long k = 0; k < 200; k++) {
            entries.add(entry(k, big));
        }

        List<BatchOutcome> outcomes = send(receiver, entries);

        BatchOutcome outcome = outcomes.get(0);
        assertThat(outcome.succeeded()).isFalse();
        assertThat(outcome.error()).isInstanceOf(BatchApplyException.class)
                .hasMessageContaining("data region is full");
        BatchApplyException cause = (BatchApplyException) outcome.error();
        assertThat(outcome.applied()).isEqualTo(cause.applied()).isEqualTo((int) small.size());
        assertThat(outcome.failed()).isEqualTo(cause.notApplied()).isPositive();
        assertThat(outcome.applied() + outcome.failed()).isEqualTo(200);
    }

    // ---- helpers

    private static Map.Entry<Long, String> entry(long key, String value) {
        return new AbstractMap.SimpleImmutableEntry<>(key, value);
    }

    private static Map.Entry<Long, String> removal(long key) {
        return new AbstractMap.SimpleImmutableEntry<>(key, null);
    }

    @SafeVarargs
    private List<BatchOutcome> send(ReceiverRef receiver, Map.Entry<Long, String>... entries) throws Exception {
        List<Map.Entry<Long, String>> list = new ArrayList<>(entries.length);
        for (Map.Entry<Long, String> e : entries) {
            list.add(e);
        }
        return send(receiver, list);
    }

    /** One request: one batch per partition, entries in the order given. */
    private List<BatchOutcome> send(ReceiverRef receiver, List<Map.Entry<Long, String>> entries) throws Exception {
        ValueCodec codec = (ValueCodec) node.binary();
        int partitions = node.transport().partitions(CACHE);
        Map<Integer, GrowableBuffer> buffers = new LinkedHashMap<>();
        Map<Integer, Integer> counts = new LinkedHashMap<>();
        GrowableBuffer key = new GrowableBuffer(64);
        GrowableBuffer value = new GrowableBuffer(64);
        for (Map.Entry<Long, String> e : entries) {
            key.reset();
            codec.encode(e.getKey(), key);
            int partition = Partitioner.partition(key.array(), 0, key.position(), partitions);
            GrowableBuffer out = buffers.computeIfAbsent(partition, p -> new GrowableBuffer(1024));
            if (e.getValue() == null) {
                EntryBatch.append(out, key.toByteArray(), null);
            } else {
                value.reset();
                codec.encode(e.getValue(), value);
                EntryBatch.append(out, key.toByteArray(), value.toByteArray());
            }
            counts.merge(partition, 1, Integer::sum);
        }
        List<PartitionBatch> batches = new ArrayList<>();
        buffers.forEach((p, out) -> batches.add(new PartitionBatch(p, new EntryBatch(out.array(), out.position(),
                counts.get(p)))));
        BatchRequest request = new BatchRequest(CACHE, receiver, false, false, batches);
        return node.transport().send(node.id(), request).get(30, TimeUnit.SECONDS);
    }

    private static void assertAllSucceeded(List<BatchOutcome> outcomes, int entries) {
        assertThat(outcomes).allSatisfy(o -> assertThat(o.error()).isNull());
        assertThat(outcomes.stream().mapToInt(BatchOutcome::applied).sum()).isEqualTo(entries);
    }

    private List<Long> scanKeys() {
        try (Stream<Map.Entry<Long, String>> stream = cache.scan()) {
            return stream.map(Map.Entry::getKey).collect(Collectors.toList());
        }
    }
}
