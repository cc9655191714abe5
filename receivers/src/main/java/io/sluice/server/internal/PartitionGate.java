package io.sluice.server.internal;

import io.sluice.affinity.internal.Partitioner;
import io.sluice.CacheConfig;
import io.sluice.node.internal.NodeCache;
import io.sluice.node.internal.NodeEngine;
import io.sluice.node.internal.NodeMetrics;
import io.sluice.node.internal.cluster.ClusterNode;
import io.sluice.node.internal.cluster.ClusterView;
import io.sluice.protocol.internal.BatchOutcome;
import io.sluice.protocol.internal.BatchRequest;
import io.sluice.protocol.internal.ClusterMap;
import io.sluice.protocol.internal.ErrorKind;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Which requests a cluster member serves, as its {@link ClusterView} says: reads pass {@link ClusterView#checkServes},
 * writes run between {@link ClusterView#enter} and {@link ClusterView#exit} (so a node giving a partition up waits
 * for them), and a request for a partition the node does not serve fails with
 * {@link io.sluice.protocol.internal.NotOwnerException} (error kind NOT_OWNER). A key's partition is computed as the
 * client computes it ({@link Partitioner} over the cache's partition count). On a {@link ClusterNode} caches are
 * created and destroyed through the cluster's catalogue (every member gets the change) and imported types are
 * shared with the cluster. A standalone node has no view: every check passes, nothing is entered, caches are the
 * node's own.
 */
final class PartitionGate {

    /** A write run inside the gate. */
    @FunctionalInterface
    interface Write<T> {
        T run() throws Exception;
    }

    /** Null on a standalone node. */
    private final ClusterView view;
    /** Counts refused batches (refused requests are counted as any failed request). */
    private final NodeMetrics metrics;

    PartitionGate(ClusterView view, NodeMetrics metrics) {
        this.view = view;
        this.metrics = metrics;
    }

    boolean clustered() {
        return view != null;
    }

    /** The map clients route by; only on a cluster member. */
    ClusterMap map() {
        return view.map();
    }

    String statusJson() {
        return view.statusJson();
    }

    /**
     * CREATE_CACHE: through the cluster's catalogue on a cluster member, else on this node.
     *
     * @return the cache's partition count
     */
    int createCache(NodeEngine node, CacheConfig config, boolean ifAbsent) {
        if (view != null && view instanceof ClusterNode cluster) {
            return cluster.createCache(config, ifAbsent).partitions();
        }
        if (ifAbsent) {
            node.getOrCreateCache(config);
        } else {
            node.createCache(config);
        }
        return node.nodeCache(config.name()).partitions();
    }

    /**
     * A cache a request names: on a cluster member, created here first if the cluster's catalogue has it and this
     * node has not applied that change yet (a client may use it through another member right after creating it).
     *
     * @throws io.sluice.CacheNotFoundException if neither this node nor the cluster has it
     */
    NodeCache<Object, Object> cache(NodeEngine node, String name) {
        if (view != null && view instanceof ClusterNode cluster) {
            return cluster.cache(name);
        }
        return node.nodeCache(name);
    }

    /** DESTROY_CACHE: through the cluster's catalogue on a cluster member, else on this node. */
    boolean destroyCache(NodeEngine node, String name) {
        if (view != null && view instanceof ClusterNode cluster) {
            return cluster.destroyCache(name);
        }
        return node.destroyCache(name);
    }

    /** After PUT_TYPES: a cluster member shares the types it learned (in the background). */
    void typesImported() {
        if (view != null && view instanceof ClusterNode cluster) {
            cluster.typesImported();
        }
    }

    static int partitionOf(NodeCache<?, ?> cache, byte[] key) {
        return Partitioner.partition(key, 0, key.length, cache.partitions());
    }

    /** Passes if the node serves the key's partition (for reads). */
    void checkKey(NodeCache<?, ?> cache, byte[] key) {
        if (view != null) {
            view.checkServes(partitionOf(cache, key));
        }
    }

    /** Passes if the node serves every key's partition (GET_ALL). */
    void checkKeys(NodeCache<?, ?> cache, List<byte[]> keys) {
        if (view != null) {
            for (byte[] key : keys) {
                view.checkServes(partitionOf(cache, key));
            }
        }
    }

    /** Passes if the node serves the partition (SCAN, SIZE of named partitions). */
    void checkPartition(int partition) {
        if (view != null) {
            view.checkServes(partition);
        }
    }

    /**
     * Passes if the node may answer a SCAN of the cache's partition: it serves it, or the cache has backups and the
     * node is one of the partition's backups ({@link ClusterView#checkServesOrBacks}: a {@code readFromBackup}
     * client scans there).
     */
    void checkScan(NodeCache<?, ?> cache, int partition) {
        if (view != null) {
            if (cache.config().backups() > 0) {
                view.checkServesOrBacks(partition);
            } else {
                view.checkServes(partition);
            }
        }
    }

    /** True if the node serves the partition now (a standalone node serves all). */
    boolean serves(int partition) {
        return view == null || view.serves(partition);
    }

    /**
     * Runs a write of these keys with each of their partitions entered; none is entered (and the write does not
     * run) unless the node serves them all.
     */
    <T> T write(NodeCache<?, ?> cache, List<byte[]> keys, Write<T> write) throws Exception {
        if (view == null) {
            return write.run();
        }
        int[] entered = new int[keys.size()];
        int n = 0;
        try {
            for (byte[] key : keys) {
                int p = partitionOf(cache, key);
                if (!contains(entered, n, p)) {
                    view.enter(p);
                    entered[n++] = p;
                }
            }
            return write.run();
        } finally {
            for (int i = 0; i < n; i++) {
                view.exit(entered[i]);
            }
        }
    }

    private static boolean contains(int[] values, int n, int value) {
        for (int i = 0; i < n; i++) {
            if (values[i] == value) {
                return true;
            }
        }
        return false;
    }

    /**
     * Applies a STREAM request's batches of partitions the node serves, each partition entered until the request's
     * batches are applied (and durable); a batch of a partition it does not serve gets a failed outcome with the
     * view's error (NOT_OWNER) while the others are applied. Outcomes come back in the request's order.
     *
     * @param apply applies a request (the node's transport)
     */
    CompletableFuture<List<BatchOutcome>> stream(BatchRequest request,
                                                 Function<BatchRequest, CompletableFuture<List<BatchOutcome>>> apply) {
        if (view == null) {
            return apply.apply(request);
        }
        List<BatchRequest.PartitionBatch> batches = request.batches();
        BatchOutcome[] refused = new BatchOutcome[batches.size()];
        List<BatchRequest.PartitionBatch> admitted = new ArrayList<>(batches.size());
        for (int i = 0; i < batches.size(); i++) {
            BatchRequest.PartitionBatch b = batches.get(i);
            try {
                view.enter(b.partition());
                admitted.add(b);
            } catch (RuntimeException notServed) {
                refused[i] = BatchOutcome.failure(0, b.entries().size(), notServed);
                metrics.error(NodeMetrics.Scope.BATCH, ErrorKind.of(notServed));
            }
        }
        if (admitted.size() == batches.size()) {
            return exitWhenDone(admitted, request, apply);
        }
        CompletableFuture<List<BatchOutcome>> applied = admitted.isEmpty()
                ? CompletableFuture.completedFuture(List.of())
                : exitWhenDone(admitted, new BatchRequest(request.cacheName(), request.receiver(),
                request.allowOverwrite(), request.skipStore(), admitted), apply);
        return applied.thenApply(outcomes -> {
            List<BatchOutcome> all = new ArrayList<>(batches.size());
            int next = 0;
            for (BatchOutcome r : refused) {
                all.add(r != null ? r : outcomes.get(next++));
            }
            return all;
        });
    }

    private CompletableFuture<List<BatchOutcome>> exitWhenDone(
            List<BatchRequest.PartitionBatch> entered, BatchRequest request,
            Function<BatchRequest, CompletableFuture<List<BatchOutcome>>> apply) {
        CompletableFuture<List<BatchOutcome>> applied;
        try {
            applied = apply.apply(request);
        } catch (RuntimeException e) {
            applied = CompletableFuture.failedFuture(e);
        }
        return applied.whenComplete((outcomes, error) -> {
            for (BatchRequest.PartitionBatch b : entered) {
                view.exit(b.partition());
            }
        });
    }
}
