package io.sluice.node.internal;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.CacheStoreConfig;
import io.sluice.EntryProcessorException;
import io.sluice.ProcessorRef;
import io.sluice.SluiceException;
import io.sluice.cachestore.internal.CacheStoreBridge;
import io.sluice.cachestore.internal.StoreChanges;
import io.sluice.processor.internal.ProcessorRegistry;
import io.sluice.protocol.internal.EntryBatch;
import io.sluice.protocol.internal.PartitionBatches;
import io.sluice.store.internal.BatchApplyException;
import io.sluice.store.internal.BatchMode;
import io.sluice.affinity.internal.Partitioner;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.binary.internal.ValueCodec;
import io.sluice.store.internal.PartitionStore;
import io.sluice.store.internal.StoreCursor;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * A cache of an embedded node: one {@link PartitionStore} per partition. Keys and values are
 * encoded with the node's codec into a per-thread buffer (the store copies what it keeps), the
 * key's partition is {@link Partitioner#partition} of the encoded key — the same the streamer
 * computes — and the operation goes to that partition's store, whose lock makes it atomic.
 *
 * <p>With a cache store ({@link CacheStoreBridge}) every write first goes through
 * {@link CacheStoreBridge#beforeMemory} (write-through: the store is written, and its failure fails
 * the operation before memory changes) and then {@link CacheStoreBridge#afterMemory} (write-behind:
 * queued); {@code get} and {@code getAll} load a miss from the store with read-through. A
 * {@link #withSkipStore() skip-store view} writes memory only.
 *
 * @param <K> key type
 * @param <V> value type
 */
public final class NodeCache<K, V> implements Cache<K, V> {

    /** Where async operations complete (never an apply thread): the JVM's common pool, as CompletableFuture's own. */
    private static final Executor ASYNC = ForkJoinPool.commonPool();

    private static final ThreadLocal<GrowableBuffer> BUFFER = ThreadLocal.withInitial(() -> new GrowableBuffer(256));

    private final NodeEngine node;
    private final CacheConfig config;
    private final PartitionStore[] stores;
    private final ValueCodec codec;
    private final boolean keepBinary;
    /** The cache store, shared with this cache's views; it may be attached after a restart. */
    private final StoreSlot storeSlot;
    /** A view that leaves the store alone (a streamer's skipStore). */
    private final boolean skipStore;

    NodeCache(NodeEngine node, CacheConfig config, PartitionStore[] stores, ValueCodec codec, boolean keepBinary) {
        this(node, config, stores, codec, keepBinary, new StoreSlot(null), false);
    }

    NodeCache(NodeEngine node, CacheConfig config, PartitionStore[] stores, ValueCodec codec, boolean keepBinary,
              StoreSlot storeSlot, boolean skipStore) {
        this.node = node;
        this.config = config;
        this.stores = stores;
        this.codec = codec;
        this.keepBinary = keepBinary;
        this.storeSlot = storeSlot;
        this.skipStore = skipStore;
    }

    /**
     * Where a cache's store is held, one per cache, shared by its views. A cache recovered from disk gets its
     * store as the node starts ({@link NodeEngine#getOrCreateCache} or the attachment it had), or later if the
     * store could not be opened then.
     */
    static final class StoreSlot {
        private volatile CacheStoreBridge bridge;
        /**
         * Without a bridge: the store the cache was in front of before the restart and is to be put in front of
         * again (the node does not register it, or it failed to open); writes are refused meanwhile.
         */
        private volatile CacheStoreConfig awaited;
        /** Why the awaited store is not attached, for the refusal's message. */
        private volatile String awaitedBecause;

        StoreSlot(CacheStoreBridge bridge) {
            this.bridge = bridge;
        }
    }

    /** The cache store behind this cache, or null. */
    public CacheStoreBridge storeBridge() {
        return storeSlot.bridge;
    }

    /**
     * Puts the store behind this cache, which has none (a cache recovered from disk); it awaits none any more.
     *
     * @throws IllegalStateException if it has one already
     */
    void attachStore(CacheStoreBridge bridge) {
        synchronized (storeSlot) {
            if (storeSlot.bridge != null) {
                throw new IllegalStateException("cache '" + config.name() + "' has a store already: " + storeSlot.bridge);
            }
            storeSlot.bridge = bridge;
            storeSlot.awaited = null;
            storeSlot.awaitedBecause = null;
        }
    }

    /**
     * A cache recovered from disk awaits the store it was in front of: until {@link #attachStore}, writes to it
     * (but a streamer's with skipStore) and read-through misses fail naming the store and the reason.
     */
    void awaitStore(CacheStoreConfig store, String because) {
        synchronized (storeSlot) {
            storeSlot.awaited = store;
            storeSlot.awaitedBecause = because;
        }
    }

    /** The store this cache awaits (recovered, not in front of it yet), or null. */
    CacheStoreConfig awaitedStore() {
        return storeSlot.awaited;
    }

    /** Stops awaiting a store (the cache is declared without one): its writes reach memory only. @return the one awaited */
    CacheStoreConfig forgetAwaitedStore() {
        synchronized (storeSlot) {
            CacheStoreConfig had = storeSlot.awaited;
            storeSlot.awaited = null;
            storeSlot.awaitedBecause = null;
            return had;
        }
    }

    /**
     * The bridge if this view writes to the store, else null.
     *
     * @throws IllegalStateException if the cache awaits its store (and this view does not skip it)
     */
    CacheStoreBridge storeWriter() {
        CacheStoreBridge storeBridge = storeSlot.bridge;
        if (storeBridge == null) {
            if (!skipStore && storeSlot.awaited != null) {
                throw notInFrontOfItsStore("writes are refused");
            }
            return null;
        }
        return !skipStore && storeBridge.writes() ? storeBridge : null;
    }

    /**
     * The bridge that loads a miss, or null.
     *
     * @throws IllegalStateException if the cache awaits a read-through store
     */
    private CacheStoreBridge loader() {
        CacheStoreBridge storeBridge = storeSlot.bridge;
        if (storeBridge == null) {
            CacheStoreConfig awaited = storeSlot.awaited;
            if (awaited != null && awaited.readThrough()) {
                throw notInFrontOfItsStore("a miss cannot be loaded");
            }
            return null;
        }
        return storeBridge.readThrough() ? storeBridge : null;
    }

    private IllegalStateException notInFrontOfItsStore(String consequence) {
        CacheStoreConfig awaited = storeSlot.awaited;
        return new IllegalStateException("cache '" + config.name() + "' is not in front of its store '"
                + (awaited == null ? "?" : awaited.storeName()) + "' (" + storeSlot.awaitedBecause + "): "
                + consequence + " until it is");
    }

    /** Whether this is a view that leaves the store alone ({@link #withSkipStore}). */
    boolean skipsStore() {
        return skipStore;
    }

    /**
     * This cache, writing memory only: what a streamer with {@code skipStore} hands its custom receiver. Its
     * partitions are the {@link PartitionStore#skippingStore() skip-store views}, so the log marks its writes and
     * recovery does not queue them for the store either.
     */
    @SuppressWarnings("unchecked")
    public NodeCache<K, V> withSkipStore() {
        return skipStore || (storeSlot.bridge == null && storeSlot.awaited == null) ? this
                : new NodeCache<>(node, config, PartitionStore.skippingStores(stores), codec, keepBinary, storeSlot,
                        true);
    }

    @Override
    public String name() {
        return config.name();
    }

    /** The config the cache was created with. */
    public CacheConfig config() {
        return config;
    }

    /** Number of partitions. */
    public int partitions() {
        return stores.length;
    }

    /** The codec of the node's binary context. */
    ValueCodec codec() {
        return codec;
    }

    /** The store of a partition (for receivers and the node's transport). */
    public PartitionStore store(int partition) {
        return stores[partition];
    }

    /** The partition of an encoded key (the streamer's and the client's function). */
    public int partitionOf(byte[] key, int offset, int length) {
        return Partitioner.partition(key, offset, length, stores.length);
    }

    @Override
    public V get(K key) {
        Objects.requireNonNull(key, "key");
        node.ensureOpen();
        GrowableBuffer buf = encodeKey(key);
        int keyLength = buf.position();
        PartitionStore store = storeOf(buf.array(), keyLength);
        byte[] value = store.get(buf.array(), 0, keyLength);
        if (value == null) {
            CacheStoreBridge storeBridge;
            try {
                storeBridge = loader();
            } catch (IllegalStateException awaitingItsStore) {
                release(buf);
                throw awaitingItsStore;
            }
            if (storeBridge == null) {
                release(buf); // a plain miss: no key copy
                return null;
            }
            byte[] encodedKey = Arrays.copyOf(buf.array(), keyLength);
            release(buf);
            byte[] loaded = readThrough(store, encodedKey, storeBridge.load(codec.decode(encodedKey, 0, keyLength, true)));
            return loaded == null ? null : decode(loaded);
        }
        release(buf);
        return value == null ? null : decode(value);
    }

    /**
     * The value bytes of an encoded key (a remote GET), a miss loaded from the store with read-through;
     * null if there is none.
     *
     * @throws io.sluice.CacheStoreException if read-through's load failed
     */
    public byte[] getEncoded(byte[] key) {
        PartitionStore store = storeOf(key, key.length);
        byte[] value = store.get(key, 0, key.length);
        if (value == null) {
            CacheStoreBridge storeBridge = loader();
            if (storeBridge != null) {
                return readThrough(store, key, storeBridge.load(codec.decode(key, 0, key.length, true)));
            }
        }
        return value;
    }

    /**
     * The value bytes of encoded keys (a remote GET_ALL), in their order, null for a key with none; with
     * read-through the misses are loaded with one {@link io.sluice.CacheStore#loadAll} call.
     *
     * @throws io.sluice.CacheStoreException if read-through's load failed
     */
    public List<byte[]> getAllEncoded(List<byte[]> keys) {
        List<byte[]> values = new ArrayList<>(keys.size());
        CacheStoreBridge attached = storeSlot.bridge;
        CacheStoreConfig awaited = storeSlot.awaited;
        boolean readThrough = attached != null ? attached.readThrough() : awaited != null && awaited.readThrough();
        // The store's form of each missed key → the indexes asking for it.
        Map<Object, List<Integer>> misses = readThrough ? new LinkedHashMap<>() : null;
        for (int i = 0; i < keys.size(); i++) {
            byte[] key = keys.get(i);
            byte[] value = storeOf(key, key.length).get(key, 0, key.length);
            values.add(value);
            if (value == null && readThrough) {
                misses.computeIfAbsent(codec.decode(key, 0, key.length, true), k -> new ArrayList<>(1)).add(i);
            }
        }
        CacheStoreBridge storeBridge = readThrough && !misses.isEmpty() ? loader() : null;
        if (storeBridge != null) {
            Map<Object, Object> loaded = storeBridge.loadAll(new ArrayList<>(misses.keySet()));
            for (Map.Entry<Object, List<Integer>> miss : misses.entrySet()) {
                byte[] key = keys.get(miss.getValue().get(0));
                byte[] value = readThrough(storeOf(key, key.length), key, loaded.get(miss.getKey()));
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

    @Override
    public Map<K, V> getAll(Set<? extends K> keys) {
        Objects.requireNonNull(keys, "keys");
        List<K> asked = new ArrayList<>(keys.size());
        List<byte[]> encoded = new ArrayList<>(keys.size());
        for (K key : keys) {
            Objects.requireNonNull(key, "key");
            node.ensureOpen();
            GrowableBuffer buf = encodeKey(key);
            asked.add(key);
            encoded.add(Arrays.copyOf(buf.array(), buf.position()));
            release(buf);
        }
        List<byte[]> values = getAllEncoded(encoded);
        Map<K, V> result = new HashMap<>(Math.max(4, keys.size() * 2));
        for (int i = 0; i < asked.size(); i++) {
            if (values.get(i) != null) {
                result.put(asked.get(i), decode(values.get(i)));
            }
        }
        return result;
    }

    @Override
    public void put(K key, V value) {
        write(key, value, false);
    }

    /**
     * Writes each partition's entries as one batch (one sorted pass, one hold of the partition's lock)
     * on the calling thread.
     */
    @Override
    public void putAll(Map<? extends K, ? extends V> entries) {
        Objects.requireNonNull(entries, "entries");
        node.ensureOpen();
        applyBatches(PartitionBatches.ofPuts(entries, codec, stores.length));
    }

    /**
     * Applies each partition's batch on the calling thread. With write-through the whole operation
     * reaches the store first, in calls of the store's maxBatchSize (a putAll of 20 entries is one
     * writeBatch of 20, whatever partitions they fall in).
     */
    private void applyBatches(PartitionBatches batches) {
        CacheStoreBridge writer = storeWriter();
        StoreChanges changes = null;
        if (writer != null) {
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
        } else {
            applyEach(batches);
        }
        node.awaitDurable();
    }

    private void applyEach(PartitionBatches batches) {
        for (int i = 0; i < batches.size(); i++) {
            applyBatch(batches.partition(i), batches.batch(i));
        }
    }

    @Override
    public boolean putIfAbsent(K key, V value) {
        return write(key, value, true);
    }

    /** Encodes key and value into the thread's buffer once and stores them; true if the key was absent. */
    private boolean write(K key, V value, boolean onlyIfAbsent) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        node.ensureOpen();
        GrowableBuffer buf = encodeKey(key);
        try {
            int keyLength = buf.position();
            codec.encode(value, buf);
            boolean result = writeEncoded(buf.array(), 0, keyLength, buf.array(), keyLength,
                    buf.position() - keyLength, onlyIfAbsent);
            node.awaitDurable();
            return result;
        } finally {
            release(buf);
        }
    }

    /**
     * Stores an encoded key and value (a remote PUT): the store first with write-through, the
     * write-behind queue after. Does not wait for durability (the caller does, or answers once durable).
     *
     * @return true if the key was absent (put), or the value was stored (putIfAbsent)
     * @throws io.sluice.CacheStoreException if write-through's store write failed: memory is unchanged
     */
    public boolean writeEncoded(byte[] keyBytes, int keyOffset, int keyLength, byte[] valueBytes, int valueOffset,
                                int valueLength, boolean onlyIfAbsent) {
        int partition = Partitioner.partition(keyBytes, keyOffset, keyLength, stores.length);
        PartitionStore store = stores[partition];
        CacheStoreBridge writer = storeWriter();
        if (writer == null) {
            return onlyIfAbsent
                    ? store.putIfAbsent(keyBytes, keyOffset, keyLength, valueBytes, valueOffset, valueLength)
                    : store.put(keyBytes, keyOffset, keyLength, valueBytes, valueOffset, valueLength);
        }
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
    }

    @Override
    public boolean remove(K key) {
        Objects.requireNonNull(key, "key");
        node.ensureOpen();
        GrowableBuffer buf = encodeKey(key);
        try {
            boolean removed = removeEncoded(buf.array(), 0, buf.position());
            node.awaitDurable();
            return removed;
        } finally {
            release(buf);
        }
    }

    /**
     * Removes an encoded key (a remote REMOVE), from the store first with write-through. Does not wait
     * for durability.
     *
     * @return true if the key was in memory
     * @throws io.sluice.CacheStoreException if write-through's store delete failed: memory is unchanged
     */
    public boolean removeEncoded(byte[] keyBytes, int keyOffset, int keyLength) {
        int partition = Partitioner.partition(keyBytes, keyOffset, keyLength, stores.length);
        CacheStoreBridge writer = storeWriter();
        if (writer == null) {
            return stores[partition].remove(keyBytes, keyOffset, keyLength);
        }
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
    }

    /** Removes each partition's keys as one batch on the calling thread. */
    @Override
    public void removeAll(Collection<? extends K> keys) {
        Objects.requireNonNull(keys, "keys");
        node.ensureOpen();
        applyBatches(PartitionBatches.ofRemovals(keys, codec, stores.length));
    }

    /** Applies one partition's put/remove batch, the store first with write-through (async operations, on the apply thread). */
    private void applyWritingThrough(int partition, EntryBatch batch) {
        CacheStoreBridge writer = storeWriter();
        if (writer == null) {
            applyBatch(partition, batch);
            return;
        }
        StoreChanges changes = writer.changes(partition, batch, stores[partition], false);
        writer.beforeMemory(changes);
        applyBatch(partition, batch);
        writer.afterMemory(changes);
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

    // ---- entry processors ----

    @Override
    public <R> R invoke(K key, ProcessorRef processor) {
        Objects.requireNonNull(key, "key");
        Map<K, R> results = invokeAll(Collections.singleton(key), processor);
        return results.get(key);
    }

    @Override
    public <R> Map<K, R> invokeAll(Set<? extends K> keys, ProcessorRef processor) {
        CompletableFuture<Map<K, R>> future = node.durable(startInvokeAll(keys, processor));
        try {
            return future.join();
        } catch (CompletionException e) {
            throw rethrow(e.getCause());
        }
    }

    @Override
    public <R> CompletableFuture<Map<K, R>> invokeAllAsync(Set<? extends K> keys, ProcessorRef processor) {
        return offApplyThreads(node.durable(startInvokeAll(keys, processor)));
    }

    /**
     * Starts processing the keys: each partition's keys as one task on its apply thread (the
     * processors' instances belong to those threads), or all here when called on an apply thread (a
     * receiver or a processor continuation must not wait for another apply thread).
     */
    private <R> CompletableFuture<Map<K, R>> startInvokeAll(Set<? extends K> keys, ProcessorRef processor) {
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(processor, "processor");
        node.ensureOpen();
        ProcessorRegistry registry = node.processors();
        if (!registry.contains(processor.name())) {
            IllegalArgumentException unknown = registry.unknown(processor.name());
            Map<K, Throwable> failures = new LinkedHashMap<>();
            for (K key : keys) {
                failures.put(key, unknown);
            }
            return failures.isEmpty() ? CompletableFuture.completedFuture(new HashMap<>())
                    : CompletableFuture.failedFuture(new EntryProcessorException(processor.name(), Map.of(), failures));
        }
        // The argument reaches the processor as the node decodes it, in-JVM as over the network.
        GrowableBuffer buf = BUFFER.get();
        buf.reset();
        codec.encode(processor.argument(), buf);
        Object argument = codec.decode(buf.array(), 0, buf.position(), true);
        release(buf);
        InvokeAll<K, R> call = new InvokeAll<>(processor.name(), keys, codec, stores.length, argument);
        StripedExecutor stripes = node.stripes();
        int here = stripes.currentStripe();
        for (int i = 0; i < call.partitions(); i++) {
            int partition = call.partition(i);
            if (here >= 0) {
                call.run(i, stores[partition], registry.processor(processor.name(), here), storeWriter());
                continue;
            }
            int index = i;
            StripedExecutor.StripeTask task = new StripedExecutor.StripeTask() {
                @Override
                public void run() {
                    call.run(index, stores[partition],
                            registry.processor(processor.name(), stripes.stripeOf(partition)), storeWriter());
                }

                @Override
                public void abandon(Throwable reason) {
                    call.fail(index, reason);
                }
            };
            try {
                stripes.execute(partition, task);
            } catch (RejectedExecutionException e) {
                task.abandon(e);
            }
        }
        return call.future();
    }

    // ---- async ----

    @Override
    public CompletableFuture<V> getAsync(K key) {
        Objects.requireNonNull(key, "key");
        return CompletableFuture.supplyAsync(() -> get(key), ASYNC);
    }

    @Override
    public CompletableFuture<Void> putAsync(K key, V value) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        // Encoded now, on the caller's thread: the caller may change its objects once this returns.
        PartitionBatches batches = PartitionBatches.ofPuts(Collections.singletonMap(key, value), codec, stores.length);
        return applyAsync(batches);
    }

    @Override
    public CompletableFuture<Void> putAllAsync(Map<? extends K, ? extends V> entries) {
        Objects.requireNonNull(entries, "entries");
        return applyAsync(PartitionBatches.ofPuts(entries, codec, stores.length));
    }

    @Override
    public CompletableFuture<Void> removeAllAsync(Collection<? extends K> keys) {
        Objects.requireNonNull(keys, "keys");
        return applyAsync(PartitionBatches.ofRemovals(keys, codec, stores.length));
    }

    /** Applies each partition's batch on its apply thread; completes off those threads when all are done. */
    private CompletableFuture<Void> applyAsync(PartitionBatches batches) {
        try {
            node.ensureOpen();
        } catch (IllegalStateException e) {
            return offApplyThreads(CompletableFuture.failedFuture(e));
        }
        int n = batches.size();
        CompletableFuture<Void> done = new CompletableFuture<>();
        AtomicInteger remaining = new AtomicInteger(n);
        if (n == 0) {
            done.complete(null);
        }
        StripedExecutor stripes = node.stripes();
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
                    node.whenDurable(error -> {
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
        return offApplyThreads(done);
    }

    /** The future, completed on the async pool: a continuation never runs on (or blocks) an apply thread. */
    private static <T> CompletableFuture<T> offApplyThreads(CompletableFuture<T> future) {
        CompletableFuture<T> out = new CompletableFuture<>();
        future.whenCompleteAsync((value, error) -> {
            if (error != null) {
                out.completeExceptionally(error instanceof CompletionException && error.getCause() != null
                        ? error.getCause() : error);
            } else {
                out.complete(value);
            }
        }, ASYNC);
        return out;
    }

    private static RuntimeException rethrow(Throwable cause) {
        if (cause instanceof RuntimeException e) {
            return e;
        }
        if (cause instanceof Error e) {
            throw e;
        }
        return new SluiceException("cache operation failed: " + cause, cause);
    }

    @Override
    public long size() {
        node.ensureOpen();
        long size = 0;
        for (PartitionStore store : stores) {
            size += store.size();
        }
        return size;
    }

    @Override
    public Stream<Map.Entry<K, V>> scan() {
        node.ensureOpen();
        // flatMap opens each partition's cursor only when the stream reaches it.
        return IntStream.range(0, stores.length)
                .boxed()
                .flatMap(p -> StreamSupport.stream(new CursorSpliterator(p), false));
    }

    @Override
    @SuppressWarnings("unchecked")
    public <V1> Cache<K, V1> withKeepBinary() {
        return keepBinary ? (Cache<K, V1>) this
                : new NodeCache<>(node, config, stores, codec, true, storeSlot, skipStore);
    }

    private GrowableBuffer encodeKey(K key) {
        GrowableBuffer buf = BUFFER.get();
        buf.reset();
        codec.encode(key, buf);
        return buf;
    }

    private PartitionStore storeOf(byte[] key, int keyLength) {
        return stores[Partitioner.partition(key, 0, keyLength, stores.length)];
    }

    /** Drops a per-thread array that a huge value grew, so one large put does not pin it forever. */
    static void release(GrowableBuffer buf) {
        if (buf.oversized()) {
            BUFFER.remove();
        }
    }

    @SuppressWarnings("unchecked")
    private V decode(byte[] value) {
        return (V) codec.decode(value, 0, value.length, keepBinary);
    }

    /** One partition's entries, decoded as the cursor yields them. */
    private final class CursorSpliterator extends Spliterators.AbstractSpliterator<Map.Entry<K, V>> {
        private final int partition;
        private StoreCursor cursor;

        CursorSpliterator(int partition) {
            super(Long.MAX_VALUE, Spliterator.ORDERED | Spliterator.NONNULL | Spliterator.DISTINCT);
            this.partition = partition;
        }

        @Override
        @SuppressWarnings("unchecked")
        public boolean tryAdvance(Consumer<? super Map.Entry<K, V>> action) {
            if (cursor == null) {
                node.ensureOpen();
                cursor = stores[partition].cursor();
            }
            if (!cursor.next()) {
                return false;
            }
            byte[] key = cursor.key();
            K k = (K) codec.decode(key, 0, key.length, keepBinary);
            action.accept(new AbstractMap.SimpleImmutableEntry<>(k, decode(cursor.value())));
            return true;
        }
    }

    @Override
    public String toString() {
        return "NodeCache{name=" + config.name() + ", partitions=" + stores.length
                + (keepBinary ? ", keepBinary" : "") + '}';
    }
}
