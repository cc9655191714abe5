package io.sluice.node.internal.cluster;

import io.sluice.CacheNotFoundException;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.node.internal.NodeCache;
import io.sluice.node.internal.NodeEngine;
import io.sluice.pagestore.internal.BatchMode;
import io.sluice.pagestore.internal.PartitionStore;
import io.sluice.pagestore.internal.StoreCursor;
import io.sluice.protocol.internal.EntryBatch;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One partition of every cache of this node, as a cluster moves it: its size, entries applied in batches, its
 * entries removed. Writes go straight to the partition stores' {@link PartitionStore#skippingStore() skip-store
 * views}: logged (a restart neither loses moved entries nor brings cleared ones back), but never handed to a cache
 * store, which already has them from the node that took the writes. Callers hold the partition's move lock and
 * serve no writes on it meanwhile. Thread-safe per partition.
 */
final class LocalPartitions {

    /** Entries removed per batch when a partition is cleared. */
    private static final int CLEAR_BATCH = 4096;
    private static final long DURABLE_BOUND_SECONDS = 60;

    private final NodeEngine node;

    LocalPartitions(NodeEngine node) {
        this.node = node;
    }

    /** The cache names now. */
    List<String> caches() {
        return node.cacheNames();
    }

    /** Entries of the partition in every cache. */
    long size(int partition) {
        long size = 0;
        for (String name : node.cacheNames()) {
            PartitionStore store = store(name, partition);
            if (store != null) {
                try {
                    size += store.size();
                } catch (IllegalStateException destroyed) {
                    // the cache went meanwhile: it holds nothing
                }
            }
        }
        return size;
    }

    /** Entries of the cache's partition here (0 if the cache is not here). */
    long size(int partition, String cache) {
        PartitionStore store = store(cache, partition);
        try {
            return store == null ? 0 : store.size();
        } catch (IllegalStateException destroyed) {
            return 0;
        }
    }

    /**
     * Upserts entries (keys and values alternating, as a scan page holds them) into the cache's partition as one
     * batch, logged.
     *
     * @return the entry bytes applied (entry headers, keys, values)
     * @throws CacheNotFoundException if there is no such cache here
     */
    long apply(String cache, int partition, List<byte[]> keysAndValues, GrowableBuffer scratch) {
        PartitionStore store = store(cache, partition);
        if (store == null) {
            throw new CacheNotFoundException(cache);
        }
        scratch.reset();
        for (int i = 0; i < keysAndValues.size(); i += 2) {
            EntryBatch.append(scratch, keysAndValues.get(i), keysAndValues.get(i + 1));
        }
        int count = keysAndValues.size() / 2;
        if (count > 0) {
            store.applyBatch(new EntryBatch(scratch.array(), scratch.position(), count), BatchMode.UPSERT);
        }
        return scratch.position();
    }

    /**
     * Removes every entry of the partition in every cache, in logged batches, and waits until the removals are
     * durable.
     *
     * @return the entries removed
     */
    long clear(int partition) {
        return clear(partition, name -> true);
    }

    /** {@link #clear(int)} of some of the caches only. */
    long clear(int partition, java.util.function.Predicate<String> caches) {
        long removed = 0;
        GrowableBuffer batch = new GrowableBuffer(64 * 1024);
        for (String name : node.cacheNames()) {
            if (!caches.test(name)) {
                continue;
            }
            PartitionStore store = store(name, partition);
            if (store == null) {
                continue;
            }
            try {
                removed += clear(store, batch);
            } catch (IllegalStateException destroyed) {
                // the cache was destroyed meanwhile: nothing left to clear
            }
        }
        awaitDurable();
        return removed;
    }

    private static long clear(PartitionStore store, GrowableBuffer batch) {
        long removed = 0;
        while (true) {
            // Each pass starts over: the keys removed by the last one are gone, so it begins at the next ones.
            StoreCursor cursor = store.cursor();
            batch.reset();
            int count = 0;
            while (count < CLEAR_BATCH && cursor.next()) {
                EntryBatch.append(batch, cursor.key(), null);
                count++;
            }
            if (count == 0) {
                return removed;
            }
            store.applyBatch(new EntryBatch(batch.array(), batch.position(), count), BatchMode.UPSERT);
            removed += count;
        }
    }

    /** Waits until every write made so far is durable per the node's WAL mode (at once without persistence). */
    void awaitDurable() {
        CompletableFuture<Void> durable = new CompletableFuture<>();
        node.whenDurable(error -> {
            if (error == null) {
                durable.complete(null);
            } else {
                durable.completeExceptionally(error);
            }
        });
        try {
            durable.get(DURABLE_BOUND_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the node's log failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("the node's log did not make the writes durable within "
                    + DURABLE_BOUND_SECONDS + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the node's log", e);
        }
    }

    /** Whether the cache is here and kept on its partitions' backups (backups >= 1). */
    boolean replicated(String cache) {
        try {
            return node.nodeCache(cache).config().backups() >= 1;
        } catch (CacheNotFoundException gone) {
            return false;
        }
    }

    /** The skip-store view of the cache's partition, or null if the cache is not here or has fewer partitions. */
    private PartitionStore store(String cache, int partition) {
        NodeCache<Object, Object> c;
        try {
            c = node.nodeCache(cache);
        } catch (CacheNotFoundException gone) {
            return null;
        }
        return partition < c.partitions() ? c.store(partition).skippingStore() : null;
    }
}
