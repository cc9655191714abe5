package io.sluice.node.internal;

import io.sluice.CacheConfig;
import io.sluice.affinity.internal.Partitioner;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.binary.internal.ValueCodec;
import io.sluice.cachestore.internal.CacheStoreBridge;
import io.sluice.cachestore.internal.StoreChanges;
import io.sluice.cachestore.internal.StoreSlot;
import io.sluice.protocol.internal.EntryBatch;
import io.sluice.protocol.internal.PartitionBatches;
import io.sluice.pagestore.internal.BatchApplyException;
import io.sluice.pagestore.internal.BatchMode;
import io.sluice.pagestore.internal.PartitionStore;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A cache's bytes-level core: encoded keys and values against its partition stores, with the cache store in
 * front ({@link StoreSlot}): write-through before memory, write-behind queued after, read-through on a miss. What
 * the typed {@link NodeCache} encodes into and decodes out of, and what the server calls with the bytes it
 * received. A partition's lock makes each single-key operation atomic. Thread-safe.
 *
 * <p>With a cache store every write first goes through {@link CacheStoreBridge#beforeMemory} (write-through: the
 * store is written, and its failure fails the operation before memory changes) and then
 * {@link CacheStoreBridge#afterMemory} (write-behind: queued). A skip-store core writes memory only.
 *
 * <p>Writes that reach the store are ordered per partition ({@link #writeOrder}): each holds its partition's
 * order lock from its memory decision (is the key absent?) through its store write to its memory write, so two
 * racing writes of one key reach the store and memory in the same order and both end up holding the same value
 * (before, two racing putIfAbsent of one key could both find it absent, both write the database, and memory kept
 * the one the database did not). The lock is taken before the partition's own lock, several in ascending
 * partition order. Entry processors and the transformer change memory first and the store after (with undo,
 * {@link io.sluice.cachestore.internal.InPlaceChanges}), holding it across both (a put racing them would otherwise
 * land between their memory change and their store write: memory kept the put, the store the in-place value).
 * Custom receivers never hold it while they run, so a processor a receiver invokes takes it without a lock-order
 * inversion (a transformer runs holding its own partition's, and is not given the cache to call back into).
 */
final class CacheCore {

    private final CacheServices services;
    /** The config, shared with this cache's views: its options may change (a replayed or new OPTIONS record). */
    private final AtomicReference<CacheConfig> config;
    private final PartitionStore[] stores;
    private final ValueCodec codec;
    /** The cache store, shared with this cache's views; it may be attached after a restart. */
    private final StoreSlot storeSlot;
    /** A view that leaves the store alone (a streamer's skipStore). */
    private final boolean skipStore;
    /** One lock per partition, shared by the cache's views: see the class comment. */
    private final ReentrantLock[] writeOrder;
    /** The cache's field indexes, shared by its views. */
    private final CacheIndexes indexes;

    CacheCore(CacheServices services, CacheConfig config, PartitionStore[] stores, ValueCodec codec,
              StoreSlot storeSlot, CacheIndexes indexes) {
        this(services, new AtomicReference<>(config), stores, codec, storeSlot, false, newLocks(stores.length),
                indexes);
    }

    private CacheCore(CacheServices services, AtomicReference<CacheConfig> config, PartitionStore[] stores,
                      ValueCodec codec, StoreSlot storeSlot, boolean skipStore, ReentrantLock[] writeOrder,
                      CacheIndexes indexes) {
        this.indexes = indexes;
        this.writeOrder = writeOrder;
        this.services = services;
        this.config = config;
        this.stores = stores;
        this.codec = codec;
        this.storeSlot = storeSlot;
        this.skipStore = skipStore;
    }

    /** This core, writing memory only (itself if it does already, or the cache has no store). */
    CacheCore withSkipStore() {
        // The partitions' skip-store views: the log marks their writes, so recovery does not queue them either.
        return skipStore || storeSlot.empty() ? this
                : new CacheCore(services, config, PartitionStore.skippingStores(stores), codec, storeSlot, true,
                        writeOrder, indexes);
    }

    private static ReentrantLock[] newLocks(int partitions) {
        ReentrantLock[] locks = new ReentrantLock[partitions];
        for (int p = 0; p < partitions; p++) {
            locks[p] = new ReentrantLock();
        }
        return locks;
    }

    /**
     * The lock that orders a partition's writes to the store with their memory writes (see the class comment):
     * whoever writes a partition's changes to the store and to memory holds it across both.
     */
    ReentrantLock writeOrder(int partition) {
        return writeOrder[partition];
    }

    CacheServices services() {
        return services;
    }

    /** The cache's config, with the options it has now (indexes may have been added or dropped since it was made). */
    CacheConfig config() {
        return config.get();
    }

    /** The cache's field indexes. */
    CacheIndexes indexes() {
        return indexes;
    }

    /** Gives the cache (and its views) new options: same name, partitions and store. */
    void changeConfig(CacheConfig changed) {
        CacheConfig old = config.get();
        if (!changed.name().equals(old.name()) || changed.partitions() != old.partitions()) {
            throw new IllegalArgumentException("cache '" + old.name() + "' with " + old.partitions()
                    + " partitions cannot become " + changed);
        }
        config.set(changed);
    }

    ValueCodec codec() {
        return codec;
    }

    StoreSlot storeSlot() {
        return storeSlot;
    }

    int partitions() {
        return stores.length;
    }

    PartitionStore store(int partition) {
        return stores[partition];
    }

    int partitionOf(byte[] key, int offset, int length) {
        return Partitioner.partition(key, offset, length, stores.length);
    }

    /**
     * The bridge if this core writes to the store, else null.
     *
     * @throws IllegalStateException if the cache awaits its store (and this core does not skip it)
     */
    CacheStoreBridge storeWriter() {
        return storeSlot.writer(skipStore);
    }

    /**
     * The value bytes of the key in {@code key[0, keyLength)}, a miss loaded from the store with read-through;
     * null if there is none. The key's array may be a scratch buffer: it is copied before the store is called.
     *
     * @throws io.sluice.CacheStoreException if read-through's load failed
     * @throws IllegalStateException if the cache awaits a read-through store
     */
    byte[] get(byte[] key, int keyLength) {
        PartitionStore store = stores[partitionOf(key, 0, keyLength)];
        byte[] value = store.get(key, 0, keyLength);
        if (value != null) {
            return value;
        }
        CacheStoreBridge loader = storeSlot.loader();
        if (loader == null) {
            return null; // a plain miss: no key copy
        }
        byte[] encodedKey = Arrays.copyOf(key, keyLength); // the store's code may reuse a scratch array meanwhile
        return readThrough(store, encodedKey, loader.load(codec.decode(encodedKey, 0, keyLength, true)));
    }

    /**
     * The value bytes of encoded keys, in their order, null for a key with none; with read-through the misses are
     * loaded with one {@link io.sluice.CacheStore#loadAll} call.
     *
     * @throws io.sluice.CacheStoreException if read-through's load failed
     */
    List<byte[]> getAll(List<byte[]> keys) {
        List<byte[]> values = new ArrayList<>(keys.size());
        boolean readThrough = storeSlot.readThrough();
        // The store's form of each missed key → the indexes asking for it.
        Map<Object, List<Integer>> misses = readThrough ? new LinkedHashMap<>() : null;
        for (int i = 0; i < keys.size(); i++) {
            byte[] key = keys.get(i);
            byte[] value = stores[partitionOf(key, 0, key.length)].get(key, 0, key.length);
            values.add(value);
            if (value == null && readThrough) {
                misses.computeIfAbsent(codec.decode(key, 0, key.length, true), k -> new ArrayList<>(1)).add(i);
            }
        }
        CacheStoreBridge loader = readThrough && !misses.isEmpty() ? storeSlot.loader() : null;
        if (loader != null) {
            Map<Object, Object> loaded = loader.loadAll(new ArrayList<>(misses.keySet()));
            for (Map.Entry<Object, List<Integer>> miss : misses.entrySet()) {
                byte[] key = keys.get(miss.getValue().get(0));
                byte[] value = readThrough(stores[partitionOf(key, 0, key.length)], key, loaded.get(miss.getKey()));
                for (int i : miss.getValue()) {
                    values.set(i, value);
                }
            }
        }
        return values;
    }

    /**
     * Keeps a value loaded from the store in memory unless a write got there first, and returns what
     * memory then holds (null if the store had nothing).
     */
    private byte[] readThrough(PartitionStore store, byte[] encodedKey, Object loaded) {
        if (loaded == null) {
            return null;
        }
        GrowableBuffer entry = new GrowableBuffer(encodedKey.length + 128);
        entry.putBytes(encodedKey);
        codec.encode(loaded, entry);
        store.putIfAbsent(entry.array(), 0, encodedKey.length, entry.array(), encodedKey.length,
                entry.position() - encodedKey.length);
        return store.get(encodedKey, 0, encodedKey.length);
    }

    /**
     * Stores an encoded key and value: the store first with write-through, the write-behind queue after. Does not
     * wait for durability.
     *
     * @return true if the key was absent (put), or the value was stored (putIfAbsent)
     * @throws io.sluice.CacheStoreException if write-through's store write failed: memory is unchanged
     */
    boolean write(byte[] keyBytes, int keyOffset, int keyLength, byte[] valueBytes, int valueOffset,
                  int valueLength, boolean onlyIfAbsent) {
        int partition = partitionOf(keyBytes, keyOffset, keyLength);
        PartitionStore store = stores[partition];
        CacheStoreBridge writer = storeWriter();
        if (writer == null) {
            return onlyIfAbsent
                    ? store.putIfAbsent(keyBytes, keyOffset, keyLength, valueBytes, valueOffset, valueLength)
                    : store.put(keyBytes, keyOffset, keyLength, valueBytes, valueOffset, valueLength);
        }
        ReentrantLock order = writeOrder[partition];
        order.lock();
        try {
            if (onlyIfAbsent && store.get(keyBytes, keyOffset, keyLength) != null) {
                return false; // present: neither memory nor the store changes
            }
            StoreChanges changes = writer.newChanges();
            changes.add(partition, keyBytes, keyOffset, keyLength, valueBytes, valueOffset, valueLength);
            writer.beforeMemory(changes);
            writer.beginWrite();
            try {
                boolean result = onlyIfAbsent
                        ? store.putIfAbsent(keyBytes, keyOffset, keyLength, valueBytes, valueOffset, valueLength)
                        : store.put(keyBytes, keyOffset, keyLength, valueBytes, valueOffset, valueLength);
                if (result || !onlyIfAbsent) {
                    writer.afterMemory(changes);
                }
                return result;
            } finally {
                writer.endWrite();
            }
        } finally {
            order.unlock();
        }
    }

    /**
     * Removes an encoded key, from the store first with write-through. Does not wait for durability.
     *
     * @return true if the key was in memory
     * @throws io.sluice.CacheStoreException if write-through's store delete failed: memory is unchanged
     */
    boolean remove(byte[] keyBytes, int keyOffset, int keyLength) {
        int partition = partitionOf(keyBytes, keyOffset, keyLength);
        CacheStoreBridge writer = storeWriter();
        if (writer == null) {
            return stores[partition].remove(keyBytes, keyOffset, keyLength);
        }
        ReentrantLock order = writeOrder[partition];
        order.lock();
        try {
            StoreChanges changes = writer.newChanges();
            changes.add(partition, keyBytes, keyOffset, keyLength, keyBytes, 0, 0, true);
            writer.beforeMemory(changes);
            writer.beginWrite();
            try {
                boolean removed = stores[partition].remove(keyBytes, keyOffset, keyLength);
                writer.afterMemory(changes);
                return removed;
            } finally {
                writer.endWrite();
            }
        } finally {
            order.unlock();
        }
    }

    /**
     * Applies each partition's batch on the calling thread, then waits until durable. With write-through the whole
     * operation reaches the store first, in calls of the store's maxBatchSize (a putAll of 20 entries is one
     * writeBatch of 20, whatever partitions they fall in).
     */
    void applyBatches(PartitionBatches batches) {
        CacheStoreBridge writer = storeWriter();
        StoreChanges changes = null;
        if (writer != null) {
            int[] partitions = lockInOrder(batches);
            try {
                changes = writer.newChanges();
                for (int i = 0; i < batches.size(); i++) {
                    EntryBatch batch = batches.batch(i);
                    for (int e = 0; e < batch.size(); e++) {
                        changes.add(batches.partition(i), batch, e);
                    }
                }
                writer.beforeMemory(changes);
                writer.beginWrite();
                try {
                    applyEach(batches);
                } finally {
                    try {
                        // Queued whole even if memory failed part way: the store never misses what memory has.
                        writer.afterMemory(changes);
                    } finally {
                        writer.endWrite();
                    }
                }
            } finally {
                for (int p : partitions) {
                    writeOrder[p].unlock();
                }
            }
        } else {
            applyEach(batches);
        }
        services.durability().awaitDurable();
    }

    /** Takes the order locks of the batches' partitions in ascending order. @return the partitions locked */
    private int[] lockInOrder(PartitionBatches batches) {
        int[] partitions = new int[batches.size()];
        for (int i = 0; i < partitions.length; i++) {
            partitions[i] = batches.partition(i);
        }
        Arrays.sort(partitions);
        int locked = 0;
        try {
            for (int i = 0; i < partitions.length; i++) {
                if (i == 0 || partitions[i] != partitions[i - 1]) {
                    writeOrder[partitions[i]].lock();
                    partitions[locked++] = partitions[i];
                }
            }
        } catch (RuntimeException | Error e) {
            for (int i = 0; i < locked; i++) {
                writeOrder[partitions[i]].unlock();
            }
            throw e;
        }
        return Arrays.copyOf(partitions, locked);
    }

    private void applyEach(PartitionBatches batches) {
        for (int i = 0; i < batches.size(); i++) {
            applyBatch(batches.partition(i), batches.batch(i));
        }
    }

    /** Applies one partition's put/remove batch, the store first with write-through (async operations, on the apply thread). */
    private void applyWritingThrough(int partition, EntryBatch batch) {
        CacheStoreBridge writer = storeWriter();
        if (writer == null) {
            applyBatch(partition, batch);
            return;
        }
        ReentrantLock order = writeOrder[partition];
        order.lock();
        try {
            StoreChanges changes = writer.changes(partition, batch, stores[partition], false);
            writer.beforeMemory(changes);
            applyBatch(partition, batch);
            writer.afterMemory(changes);
        } finally {
            order.unlock();
        }
    }

    /** Applies a put/remove batch to a partition; a region that fills up fails it with the region's error. */
    private void applyBatch(int partition, EntryBatch batch) {
        try {
            stores[partition].applyBatch(batch, BatchMode.UPSERT);
        } catch (BatchApplyException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw e;
        }
    }

    /**
     * Applies each partition's batch on its apply thread; the future completes (on an apply thread or the log's
     * writer) when all are applied and durable, or with the first failure.
     */
    CompletableFuture<Void> applyAsync(PartitionBatches batches) {
        int n = batches.size();
        CompletableFuture<Void> done = new CompletableFuture<>();
        AtomicInteger remaining = new AtomicInteger(n);
        if (n == 0) {
            done.complete(null);
        }
        StripedExecutor stripes = services.stripes();
        for (int i = 0; i < n; i++) {
            int partition = batches.partition(i);
            EntryBatch batch = batches.batch(i);
            StripedExecutor.StripeTask task = new StripedExecutor.StripeTask() {
                @Override
                public void run() {
                    try {
                        applyWritingThrough(partition, batch);
                    } catch (Throwable t) {
                        done.completeExceptionally(t);
                        return;
                    }
                    services.durability().whenDurable(error -> {
                        if (error != null) {
                            done.completeExceptionally(error);
                        } else if (remaining.decrementAndGet() == 0) {
                            done.complete(null);
                        }
                    });
                }

                @Override
                public void abandon(Throwable reason) {
                    done.completeExceptionally(reason);
                }
            };
            try {
                stripes.execute(partition, task);
            } catch (RejectedExecutionException e) {
                task.abandon(e);
            }
        }
        return done;
    }

    /** Entries in memory, all partitions. */
    long size() {
        long size = 0;
        for (PartitionStore store : stores) {
            size += store.size();
        }
        return size;
    }
}
