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
import java.util.function.Supplier;
import io.sluice.WriteSyncMode;
import io.sluice.protocol.internal.NotOwnerException;
import io.sluice.protocol.internal.ReplicaCodec;

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

    /** The partitions of the FULL_SYNC write this op thread just ran (see {@link #takeReplicationWait}). */
    private static final ThreadLocal<int[]> REPLICATION_WAIT = new ThreadLocal<>();

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
     * PARTITION_FILE: the partition's file written to be sent, on a cluster member.
     *
     * @throws io.sluice.protocol.internal.MoveRefusedException on a standalone node, or as the member refuses
     */
    io.sluice.node.internal.cluster.OutgoingPartitionFile partitionFile(
            io.sluice.node.internal.cluster.PartitionFileWire.Request r, String peer) {
        if (view instanceof ClusterNode cluster) {
            return cluster.partitionFiles().prepare(r.cache(), r.partition(), r.chunkSize(), r.inSyncOnly(), peer);
        }
        throw new io.sluice.protocol.internal.MoveRefusedException("a standalone node sends no partition files");
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
        boolean fullSync = cache.config().writeSync() == WriteSyncMode.FULL_SYNC;
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
            T result = write.run();
            for (int i = 0; i < n; i++) {
                checkAcknowledge(entered[i]);
            }
            if (fullSync) {
                // Waited for by the caller, off this op thread (takeReplicationWait): op threads are few.
                REPLICATION_WAIT.set(java.util.Arrays.copyOf(entered, n));
            }
            return result;
        } finally {
            for (int i = 0; i < n; i++) {
                view.exit(entered[i]);
            }
        }
    }

    /**
     * The partitions of a FULL_SYNC write this thread just ran through {@link #write}, to wait for before it is
     * acknowledged ({@link #whenReplicated}), or null; cleared by the call.
     */
    int[] takeReplicationWait() {
        int[] partitions = REPLICATION_WAIT.get();
        REPLICATION_WAIT.remove();
        return partitions;
    }

    /**
     * Runs {@code done} once every partition's backups in sync acknowledged what was written so far, with null if
     * each may be acknowledged then ({@link ClusterView#mayAcknowledge}), else with the NOT_OWNER refusal.
     */
    void whenReplicated(int[] partitions, java.util.function.Consumer<RuntimeException> done) {
        java.util.concurrent.atomic.AtomicInteger remaining = new java.util.concurrent.atomic.AtomicInteger(
                partitions.length);
        for (int p : partitions) {
            view.whenReplicated(p, () -> {
                if (remaining.decrementAndGet() == 0) {
                    for (int q : partitions) {
                        if (!view.mayAcknowledge(q)) {
                            done.accept(notAcknowledged(q));
                            return;
                        }
                    }
                    done.accept(null);
                }
            });
        }
    }

    /** @throws NotOwnerException unless a write applied to the partition may be acknowledged now (lease, fencing) */
    private void checkAcknowledge(int partition) {
        if (!view.mayAcknowledge(partition)) {
            throw notAcknowledged(partition);
        }
    }

    private static NotOwnerException notAcknowledged(int partition) {
        return new NotOwnerException("partition " + partition + ": this node may not acknowledge writes to it now"
                + " (its ZooKeeper lease lapsed, or another node leads it at a newer epoch)");
    }

    /** Whether writes may be acknowledged at all now (a cluster member's ZooKeeper lease is valid). */
    boolean leaseValid() {
        return view == null || view.mayAcknowledge(-1);
    }

    /** REPLICATE: a primary's records for this node as a backup. */
    void replicate(ReplicaCodec.Frame frame, java.util.function.Consumer<List<ReplicaCodec.Refusal>> done) {
        if (view == null) {
            throw new IllegalStateException("a standalone node takes no replicated records");
        }
        view.replicate(frame, done);
    }

    /** REPLICA_FOLLOW. @return epoch and ticket */
    long[] followedBy(String member, int partition) {
        if (view == null) {
            throw new IllegalStateException("a standalone node leads no partition");
        }
        return view.followedBy(member, partition);
    }

    /** REPLICA_SYNCED. */
    void syncedBy(String member, int partition, long epoch, long ticket) {
        if (view == null) {
            throw new IllegalStateException("a standalone node leads no partition");
        }
        view.syncedBy(member, partition, epoch, ticket);
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
                                                 Function<BatchRequest, CompletableFuture<List<BatchOutcome>>> apply,
                                                 Supplier<WriteSyncMode> sync) {
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
            return exitWhenDone(admitted, request, apply, sync);
        }
        CompletableFuture<List<BatchOutcome>> applied = admitted.isEmpty()
                ? CompletableFuture.completedFuture(List.of())
                : exitWhenDone(admitted, new BatchRequest(request.cacheName(), request.receiver(),
                request.allowOverwrite(), request.skipStore(), admitted), apply, sync);
        return applied.thenApply(outcomes -> {
            List<BatchOutcome> all = new ArrayList<>(batches.size());
            int next = 0;
            for (BatchOutcome r : refused) {
                all.add(r != null ? r : outcomes.get(next++));
            }
            return all;
        });
    }

    /**
     * Applies the admitted batches; then, for a FULL_SYNC cache, waits until the partitions' backups in sync
     * acknowledged them; then answers each batch as applied only if it may be acknowledged now
     * ({@link ClusterView#mayAcknowledge}: else NOT_OWNER, and the client sends it again), and exits the partitions
     * (so a node giving a partition up waits for its replication too).
     */
    private CompletableFuture<List<BatchOutcome>> exitWhenDone(
            List<BatchRequest.PartitionBatch> entered, BatchRequest request,
            Function<BatchRequest, CompletableFuture<List<BatchOutcome>>> apply, Supplier<WriteSyncMode> sync) {
        CompletableFuture<List<BatchOutcome>> applied;
        try {
            applied = apply.apply(request);
        } catch (RuntimeException e) {
            applied = CompletableFuture.failedFuture(e);
        }
        CompletableFuture<List<BatchOutcome>> replicated = applied.thenCompose(outcomes -> {
            if (sync.get() != WriteSyncMode.FULL_SYNC) {
                return CompletableFuture.completedFuture(outcomes);
            }
            CompletableFuture<List<BatchOutcome>> all = new CompletableFuture<>();
            java.util.concurrent.atomic.AtomicInteger remaining = new java.util.concurrent.atomic.AtomicInteger(
                    entered.size());
            for (BatchRequest.PartitionBatch b : entered) {
                view.whenReplicated(b.partition(), () -> {
                    if (remaining.decrementAndGet() == 0) {
                        all.complete(outcomes);
                    }
                });
            }
            return all;
        }).thenApply(outcomes -> {
            List<BatchOutcome> checked = null;
            for (int i = 0; i < entered.size(); i++) {
                int p = entered.get(i).partition();
                if (!view.mayAcknowledge(p)) {
                    if (checked == null) {
                        checked = new ArrayList<>(outcomes);
                    }
                    NotOwnerException refused = notAcknowledged(p);
                    checked.set(i, BatchOutcome.failure(0, entered.get(i).entries().size(), refused));
                    metrics.error(NodeMetrics.Scope.BATCH, ErrorKind.NOT_OWNER);
                }
            }
            return checked == null ? outcomes : checked;
        });
        return replicated.whenComplete((outcomes, error) -> {
            for (BatchRequest.PartitionBatch b : entered) {
                view.exit(b.partition());
            }
        });
    }
}
