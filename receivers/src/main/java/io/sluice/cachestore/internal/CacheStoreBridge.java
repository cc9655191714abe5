package io.sluice.cachestore.internal;

import io.sluice.CacheStore;
import io.sluice.CacheStoreConfig;
import io.sluice.CacheStoreConfig.WriteMode;
import io.sluice.CacheStoreContext;
import io.sluice.CacheStoreException;
import io.sluice.binary.Binary;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.binary.internal.ValueCodec;
import io.sluice.protocol.internal.EntryBatch;
import io.sluice.pagestore.internal.PartitionStore;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;

/**
 * A cache's link to its {@link CacheStore}. Every write path of the node calls it the same way:
 * {@link #changes} to decode the operation's entries once, {@link #beforeMemory} before they are
 * applied in memory (write-through writes the store here; its failure fails the operation, nothing
 * of which is then applied), and {@link #afterMemory} once they are (write-behind queues them here).
 * Read-through: {@link #load}/{@link #loadAll} on a miss. Thread-safe, as the store must be.
 */
public final class CacheStoreBridge implements AutoCloseable {

    private final String cacheName;
    private final CacheStoreConfig config;
    private final CacheStore<Object, Object> store;
    private final ValueCodec codec;
    private final String label;
    /** Null unless the mode is write-behind. */
    private final WriteBehindQueue behind;
    /**
     * Write-behind: held shared by an application thread's write from its memory change to its queueing, so that
     * {@link #awaitWritesInFlight} can wait for every such write to have queued (apply threads are waited for
     * another way: the node passes a barrier through them).
     */
    private final ReentrantReadWriteLock inFlight = new ReentrantReadWriteLock();

    private CacheStoreBridge(String cacheName, CacheStoreConfig config, CacheStore<Object, Object> store,
                             ValueCodec codec, int partitions) {
        this.cacheName = cacheName;
        this.config = config;
        this.store = store;
        this.codec = codec;
        this.label = "store '" + config.storeName() + "' of cache '" + cacheName + "'";
        this.behind = config.writeMode() == WriteMode.WRITE_BEHIND
                ? new WriteBehindQueue(label, store, config, partitions) : null;
    }

    /**
     * Makes the cache's store with its factory, opens it and (write-behind) starts its flusher.
     *
     * @throws IllegalArgumentException if no store of that name is registered
     * @throws IllegalStateException if the factory or the store's {@code open} failed
     */
    @SuppressWarnings("unchecked")
    public static CacheStoreBridge open(String cacheName, CacheStoreConfig config,
                                        Map<String, ? extends Supplier<? extends CacheStore<?, ?>>> factories,
                                        ValueCodec codec, int partitions) {
        Supplier<? extends CacheStore<?, ?>> factory = factories.get(config.storeName());
        if (factory == null) {
            throw new IllegalArgumentException("cache '" + cacheName + "' names store '" + config.storeName()
                    + "', which is not registered on this node; it has " + new TreeSet<>(factories.keySet())
                    + " (register stores with NodeConfig.builder().store(name, factory))");
        }
        CacheStore<Object, Object> store;
        try {
            store = (CacheStore<Object, Object>) factory.get();
        } catch (RuntimeException e) {
            throw new IllegalStateException("the factory of store '" + config.storeName() + "' threw: " + e, e);
        }
        Objects.requireNonNull(store, () -> "the factory of store '" + config.storeName() + "' returned null");
        try {
            store.open(new Context(cacheName, codec));
        } catch (Exception e) {
            closeQuietly(store, e);
            throw new IllegalStateException("store '" + config.storeName() + "' of cache '" + cacheName
                    + "' failed to open: " + e, e);
        }
        return new CacheStoreBridge(cacheName, config, store, codec, partitions);
    }

    private static void closeQuietly(CacheStore<?, ?> store, Exception failure) {
        try {
            store.close();
        } catch (Exception e) {
            failure.addSuppressed(e);
        }
    }

    public CacheStoreConfig config() {
        return config;
    }

    /** Whether writes go to the store (write-through or write-behind). */
    public boolean writes() {
        return config.writeMode() != WriteMode.NONE;
    }

    /** Whether a miss loads from the store. */
    public boolean readThrough() {
        return config.readThrough();
    }

    /** An empty set of changes, to add an operation's entries to. */
    public StoreChanges newChanges() {
        return new StoreChanges(codec);
    }

    /**
     * The changes of a partition's batch, coalesced by key.
     *
     * @param onlyAbsent keep only keys absent from the partition now (an insert-if-absent batch leaves
     *                   present keys as they are, so the store must too)
     */
    public StoreChanges changes(int partition, EntryBatch batch, PartitionStore memory, boolean onlyAbsent) {
        StoreChanges changes = newChanges();
        byte[] data = batch.data();
        for (int i = 0; i < batch.size(); i++) {
            if (onlyAbsent && memory.get(data, batch.keyOffset(i), batch.keyLength(i)) != null) {
                continue;
            }
            changes.add(partition, batch, i);
        }
        return changes;
    }

    /**
     * Before the changes are applied in memory: write-through writes them to the store.
     *
     * @throws CacheStoreException if the store failed: apply nothing; the store may hold the calls
     *         (of {@code maxBatchSize} entries) made before the failing one
     */
    public void beforeMemory(StoreChanges changes) {
        if (config.writeMode() == WriteMode.WRITE_THROUGH && !changes.isEmpty()) {
            StoreWrites.write(store, label, changes);
        }
    }

    /** Write-behind: a write's memory change and queueing begin (see {@link #awaitWritesInFlight}); pair with {@link #endWrite}. */
    public void beginWrite() {
        if (behind != null) {
            inFlight.readLock().lock();
        }
    }

    /** Write-behind: the write begun by {@link #beginWrite} has queued its changes (or failed). */
    public void endWrite() {
        if (behind != null) {
            inFlight.readLock().unlock();
        }
    }

    /** Write-behind: waits until every write between {@link #beginWrite} and {@link #endWrite} now has ended. */
    public void awaitWritesInFlight() {
        inFlight.writeLock().lock();
        inFlight.writeLock().unlock();
    }

    /**
     * After the changes are applied in memory: write-behind queues them, blocking while the queue is
     * full (the writer's push-back).
     *
     * @throws IllegalStateException if the queue is closed
     */
    public void afterMemory(StoreChanges changes) {
        if (behind != null && !changes.isEmpty()) {
            behind.enqueue(changes);
        }
    }

    /**
     * After an in-place invocation changed memory (entry processors, the transformer receiver): write-through
     * writes its changes to the store and, if the store refuses them, puts memory back
     * ({@link InPlaceChanges#undo}); write-behind queues them.
     *
     * @throws CacheStoreException if the store refused the changes; memory is put back (a failure to put it
     *         back is suppressed in it)
     * @throws IllegalStateException if the write-behind queue is closed
     */
    public void afterInPlace(InPlaceChanges changes, int partition, PartitionStore memory) {
        if (changes.isEmpty()) {
            return;
        }
        StoreChanges storeChanges = changes.changes(this, partition);
        try {
            beforeMemory(storeChanges); // write-through's store write, here after memory (see InPlaceChanges)
        } catch (RuntimeException refused) {
            try {
                changes.undo(memory);
            } catch (RuntimeException undoFailed) {
                refused.addSuppressed(undoFailed);
            }
            throw refused;
        }
        afterMemory(storeChanges);
    }

    /**
     * The store's value for a key, or null.
     *
     * @throws CacheStoreException naming the key if the store failed
     */
    public Object load(Object key) {
        try {
            return store.load(key);
        } catch (CacheStoreException e) {
            throw e;
        } catch (Exception e) {
            throw new CacheStoreException("load from " + label, List.of(key), e);
        }
    }

    /** The store's values for the keys that have one. @throws CacheStoreException naming the keys */
    public Map<Object, Object> loadAll(Collection<Object> keys) {
        try {
            return store.loadAll(keys);
        } catch (CacheStoreException e) {
            throw e;
        } catch (Exception e) {
            throw new CacheStoreException("loadAll from " + label, new ArrayList<>(keys), e);
        }
    }

    /** The write-behind queue, or null in the other modes. */
    public WriteBehindQueue writeBehind() {
        return behind;
    }

    /**
     * Drains write-behind (every queued change is written or reported), then closes the store.
     *
     * @throws CacheStoreException if the store's close failed
     */
    @Override
    public void close() {
        try {
            if (behind != null) {
                behind.close();
            }
        } finally {
            try {
                store.close();
            } catch (Exception e) {
                throw new CacheStoreException("close of " + label, List.of(), e);
            }
        }
    }

    @Override
    public String toString() {
        return "CacheStoreBridge{cache=" + cacheName + ", " + config + '}';
    }

    /** What the store learns of the node: the cache and the node's encoding. */
    private record Context(String cacheName, ValueCodec codec) implements CacheStoreContext {
        @Override
        public byte[] toBytes(Object value) {
            GrowableBuffer buf = new GrowableBuffer(128);
            codec.encode(value, buf);
            return buf.toByteArray();
        }

        @Override
        public Object fromBytes(byte[] bytes) {
            return codec.decode(bytes, 0, bytes.length, true);
        }

        @Override
        public Binary binary() {
            if (codec instanceof Binary binary) {
                return binary;
            }
            throw new UnsupportedOperationException("the node's codec " + codec + " has no binary objects");
        }
    }
}
