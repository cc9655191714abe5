package io.sluice.node.internal;

import io.sluice.EntryProcessorException;
import io.sluice.affinity.internal.Partitioner;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.binary.internal.ValueCodec;
import io.sluice.cachestore.internal.CacheStoreBridge;
import io.sluice.cachestore.internal.InPlaceChanges;
import io.sluice.processor.internal.Invocation;
import io.sluice.processor.internal.StoredEntryProcessor;
import io.sluice.pagestore.internal.PartitionStore;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One {@code invokeAll}: the keys grouped by partition (encoded once), each group run as one
 * {@link Invocation} on its partition's apply thread, and the outcomes gathered into one future —
 * the results, or an {@link EntryProcessorException} naming the keys that failed next to the results
 * of those that did not.
 *
 * @param <K> key type
 * @param <R> result type
 */
final class InvokeAll<K, R> {

    private final String processor;
    private final Object argument;
    private final List<Group<K>> groups = new ArrayList<>();
    private final AtomicInteger remaining;
    private final CompletableFuture<Map<K, R>> future = new CompletableFuture<>();

    InvokeAll(String processor, Set<? extends K> keys, ValueCodec codec, int partitionCount, Object argument) {
        this.processor = processor;
        this.argument = argument;
        Map<Integer, Group<K>> byPartition = new HashMap<>();
        GrowableBuffer buf = new GrowableBuffer(64);
        for (K key : keys) {
            Objects.requireNonNull(key, "key");
            buf.reset();
            codec.encode(key, buf);
            byte[] encoded = buf.toByteArray();
            int partition = Partitioner.partition(encoded, 0, encoded.length, partitionCount);
            byPartition.computeIfAbsent(partition, p -> {
                Group<K> g = new Group<>(p);
                groups.add(g);
                return g;
            }).add(key, encoded);
        }
        this.remaining = new AtomicInteger(groups.size());
        if (groups.isEmpty()) {
            future.complete(new HashMap<>());
        }
    }

    int partitions() {
        return groups.size();
    }

    int partition(int group) {
        return groups.get(group).partition;
    }

    CompletableFuture<Map<K, R>> future() {
        return future;
    }

    /**
     * Runs a group on the calling (apply) thread. With a cache store ({@code writer} not null) the keys it
     * changed reach the store after memory; if the store refuses them, memory is put back and each changed
     * key fails with the store's error (its result is dropped).
     */
    void run(int group, PartitionStore store, StoredEntryProcessor processor, CacheStoreBridge writer,
             ReentrantLock writeOrder) {
        Group<K> g = groups.get(group);
        if (writer == null) {
            Invocation.run(store, processor, g, g, null);
            finished();
            return;
        }
        // Memory and then the store under the partition's write order (CacheCore): a put racing this group
        // cannot land between its memory change and its store write, so both end up holding the same value.
        InPlaceChanges changes = new InPlaceChanges();
        writeOrder.lock();
        try {
            Invocation.run(store, processor, g, g, changes);
            try {
                writer.afterInPlace(changes, g.partition, store);
            } catch (RuntimeException storeFailed) {
                for (int i = 0; i < changes.size(); i++) {
                    g.failed(changes.index(i), storeFailed);
                }
            }
        } finally {
            writeOrder.unlock();
        }
        finished();
    }

    /** The group will not run (the node closed): every key of it fails with the reason. */
    void fail(int group, Throwable reason) {
        Group<K> g = groups.get(group);
        for (int i = 0; i < g.size(); i++) {
            g.failed(i, reason);
        }
        finished();
    }

    @SuppressWarnings("unchecked")
    private void finished() {
        if (remaining.decrementAndGet() != 0) {
            return;
        }
        Map<K, R> results = new HashMap<>();
        Map<K, Throwable> failures = new LinkedHashMap<>();
        for (Group<K> g : groups) {
            for (int i = 0; i < g.size(); i++) {
                if (g.failures[i] != null) {
                    failures.put(g.keys.get(i), g.failures[i]);
                } else {
                    results.put(g.keys.get(i), (R) g.results[i]);
                }
            }
        }
        if (failures.isEmpty()) {
            future.complete(results);
        } else {
            future.completeExceptionally(new EntryProcessorException(processor, results, failures));
        }
    }

    /** One partition's keys and what became of each; written by the one thread that runs it. */
    private final class Group<T> implements Invocation.Keys, Invocation.Outcomes {
        final int partition;
        final List<T> keys = new ArrayList<>();
        final List<byte[]> encoded = new ArrayList<>();
        Object[] results;
        Throwable[] failures;

        Group(int partition) {
            this.partition = partition;
        }

        void add(T key, byte[] bytes) {
            keys.add(key);
            encoded.add(bytes);
        }

        @Override
        public int size() {
            return keys.size();
        }

        @Override
        public byte[] array(int i) {
            return encoded.get(i);
        }

        @Override
        public int offset(int i) {
            return 0;
        }

        @Override
        public int length(int i) {
            return encoded.get(i).length;
        }

        @Override
        public Object argument(int i) {
            return argument;
        }

        @Override
        public void succeeded(int i, Object result) {
            outcomes();
            results[i] = result;
        }

        @Override
        public void failed(int i, Throwable cause) {
            outcomes();
            failures[i] = cause;
        }

        private void outcomes() {
            if (results == null) {
                results = new Object[keys.size()];
                failures = new Throwable[keys.size()];
            }
        }
    }
}
