package io.sluice.node.internal;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.EntryProcessorException;
import io.sluice.IndexQuery;
import io.sluice.ProcessorRef;
import io.sluice.SluiceException;
import io.sluice.affinity.internal.Partitioner;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.binary.internal.ValueCodec;
import io.sluice.cachestore.internal.CacheStoreBridge;
import io.sluice.cachestore.internal.StoreSlot;
import io.sluice.processor.internal.ProcessorRegistry;
import io.sluice.protocol.internal.Completions;
import io.sluice.protocol.internal.PartitionBatches;
import io.sluice.pagestore.internal.PartitionStore;
import io.sluice.pagestore.internal.StoreCursor;
import io.sluice.query.internal.IndexBounds;
import io.sluice.query.internal.IndexEntries;
import io.sluice.query.internal.IndexStreams;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * A cache of an embedded node, typed: a thin facade over its bytes-level {@link CacheCore}. Keys and values are
 * encoded with the node's codec into a per-thread buffer (the store copies what it keeps), the key's partition is
 * {@link Partitioner#partition} of the encoded key — the same the streamer computes — and the core does the rest;
 * values are decoded on the way out. Blocking writes wait until durable; async calls and {@code invoke} run on the
 * apply threads and complete off them.
 *
 * @param <K> key type
 * @param <V> value type
 */
public final class NodeCache<K, V> implements Cache<K, V> {

    /** Where async operations complete (never an apply thread or an event loop). */
    private static final Executor ASYNC = Completions.executor();

    private static final ThreadLocal<GrowableBuffer> BUFFER = ThreadLocal.withInitial(() -> new GrowableBuffer(256));

    private final CacheCore core;
    private final CacheServices services;
    private final ValueCodec codec;
    private final boolean keepBinary;

    NodeCache(CacheServices services, CacheConfig config, PartitionStore[] stores, ValueCodec codec,
              boolean keepBinary, StoreSlot storeSlot, CacheIndexes indexes) {
        this(new CacheCore(services, config, stores, codec, storeSlot, indexes), keepBinary);
    }

    private NodeCache(CacheCore core, boolean keepBinary) {
        this.core = core;
        this.services = core.services();
        this.codec = core.codec();
        this.keepBinary = keepBinary;
    }

    /** The bytes-level core (the transport and the node's own parts work on it). */
    CacheCore core() {
        return core;
    }

    /** Where the cache's store attachment is held. */
    StoreSlot storeSlot() {
        return core.storeSlot();
    }

    /** The cache store behind this cache, or null. */
    public CacheStoreBridge storeBridge() {
        return core.storeSlot().bridge();
    }

    /**
     * This cache, writing memory only: what a streamer with {@code skipStore} hands its custom receiver. Its
     * partitions are the {@link PartitionStore#skippingStore() skip-store views}, so the log marks its writes and
     * recovery does not queue them for the store either.
     */
    public NodeCache<K, V> withSkipStore() {
        CacheCore skipping = core.withSkipStore();
        return skipping == core ? this : new NodeCache<>(skipping, keepBinary);
    }

    @Override
    public String name() {
        return core.config().name();
    }

    /** The config the cache was created with. */
    public CacheConfig config() {
        return core.config();
    }

    /** Number of partitions. */
    public int partitions() {
        return core.partitions();
    }

    /** The store of a partition (for receivers and the node's transport). */
    public PartitionStore store(int partition) {
        return core.store(partition);
    }

    /** The partition of an encoded key (the streamer's and the client's function). */
    public int partitionOf(byte[] key, int offset, int length) {
        return core.partitionOf(key, offset, length);
    }

    // ---- the bytes API for the server (a remote GET, GET_ALL, PUT, REMOVE); none waits for durability ----

    /**
     * The value bytes of an encoded key, a miss loaded from the store with read-through; null if there is none.
     *
     * @throws io.sluice.CacheStoreException if read-through's load failed
     */
    public byte[] getEncoded(byte[] key) {
        return core.get(key, key.length);
    }

    /** {@link CacheCore#getAll}: the values of encoded keys, in their order. */
    public List<byte[]> getAllEncoded(List<byte[]> keys) {
        return core.getAll(keys);
    }

    /** {@link CacheCore#write}: stores an encoded key and value. */
    public boolean writeEncoded(byte[] keyBytes, int keyOffset, int keyLength, byte[] valueBytes, int valueOffset,
                                int valueLength, boolean onlyIfAbsent) {
        return core.write(keyBytes, keyOffset, keyLength, valueBytes, valueOffset, valueLength, onlyIfAbsent);
    }

    /** {@link CacheCore#remove}: removes an encoded key. */
    public boolean removeEncoded(byte[] keyBytes, int keyOffset, int keyLength) {
        return core.remove(keyBytes, keyOffset, keyLength);
    }

    // ---- typed operations ----

    @Override
    public V get(K key) {
        Objects.requireNonNull(key, "key");
        services.state().ensureOpen();
        GrowableBuffer buf = encodeKey(key);
        byte[] value;
        try {
            value = core.get(buf.array(), buf.position());
        } finally {
            release(buf);
        }
        return value == null ? null : decode(value);
    }

    @Override
    public Map<K, V> getAll(Set<? extends K> keys) {
        Objects.requireNonNull(keys, "keys");
        List<K> asked = new ArrayList<>(keys.size());
        List<byte[]> encoded = new ArrayList<>(keys.size());
        for (K key : keys) {
            Objects.requireNonNull(key, "key");
            services.state().ensureOpen();
            GrowableBuffer buf = encodeKey(key);
            asked.add(key);
            encoded.add(Arrays.copyOf(buf.array(), buf.position()));
            release(buf);
        }
        List<byte[]> values = core.getAll(encoded);
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

    @Override
    public boolean putIfAbsent(K key, V value) {
        return write(key, value, true);
    }

    /** Encodes key and value into the thread's buffer once and stores them; true if the key was absent. */
    private boolean write(K key, V value, boolean onlyIfAbsent) {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
        services.state().ensureOpen();
        GrowableBuffer buf = encodeKey(key);
        try {
            int keyLength = buf.position();
            codec.encode(value, buf);
            boolean result = core.write(buf.array(), 0, keyLength, buf.array(), keyLength,
                    buf.position() - keyLength, onlyIfAbsent);
            services.durability().awaitDurable();
            return result;
        } finally {
            release(buf);
        }
    }

    /**
     * Writes each partition's entries as one batch (one sorted pass, one hold of the partition's lock)
     * on the calling thread.
     */
    @Override
    public void putAll(Map<? extends K, ? extends V> entries) {
        Objects.requireNonNull(entries, "entries");
        services.state().ensureOpen();
        core.applyBatches(PartitionBatches.ofPuts(entries, codec, core.partitions()));
    }

    @Override
    public boolean remove(K key) {
        Objects.requireNonNull(key, "key");
        services.state().ensureOpen();
        GrowableBuffer buf = encodeKey(key);
        try {
            boolean removed = core.remove(buf.array(), 0, buf.position());
            services.durability().awaitDurable();
            return removed;
        } finally {
            release(buf);
        }
    }

    /** Removes each partition's keys as one batch on the calling thread. */
    @Override
    public void removeAll(Collection<? extends K> keys) {
        Objects.requireNonNull(keys, "keys");
        services.state().ensureOpen();
        core.applyBatches(PartitionBatches.ofRemovals(keys, codec, core.partitions()));
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
        CompletableFuture<Map<K, R>> future = services.durability().durable(startInvokeAll(keys, processor));
        try {
            return future.join();
        } catch (CompletionException e) {
            throw rethrow(e.getCause());
        }
    }

    @Override
    public <R> CompletableFuture<Map<K, R>> invokeAllAsync(Set<? extends K> keys, ProcessorRef processor) {
        return offApplyThreads(services.durability().durable(startInvokeAll(keys, processor)));
    }

    /**
     * Starts processing the keys: each partition's keys as one task on its apply thread (the
     * processors' instances belong to those threads), or all here when called on an apply thread (a
     * receiver or a processor continuation must not wait for another apply thread).
     */
    private <R> CompletableFuture<Map<K, R>> startInvokeAll(Set<? extends K> keys, ProcessorRef processor) {
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(processor, "processor");
        services.state().ensureOpen();
        ProcessorRegistry registry = services.processors();
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
        InvokeAll<K, R> call = new InvokeAll<>(processor.name(), keys, codec, core.partitions(), argument);
        StripedExecutor stripes = services.stripes();
        int here = stripes.currentStripe();
        for (int i = 0; i < call.partitions(); i++) {
            int partition = call.partition(i);
            if (here >= 0) {
                call.run(i, core.store(partition), registry.processor(processor.name(), here), core.storeWriter(),
                        core.writeOrder(partition));
                continue;
            }
            int index = i;
            StripedExecutor.StripeTask task = new StripedExecutor.StripeTask() {
                @Override
                public void run() {
                    call.run(index, core.store(partition),
                            registry.processor(processor.name(), stripes.stripeOf(partition)), core.storeWriter(),
                            core.writeOrder(partition));
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
        return applyAsync(PartitionBatches.ofPuts(Collections.singletonMap(key, value), codec, core.partitions()));
    }

    @Override
    public CompletableFuture<Void> putAllAsync(Map<? extends K, ? extends V> entries) {
        Objects.requireNonNull(entries, "entries");
        return applyAsync(PartitionBatches.ofPuts(entries, codec, core.partitions()));
    }

    @Override
    public CompletableFuture<Void> removeAllAsync(Collection<? extends K> keys) {
        Objects.requireNonNull(keys, "keys");
        return applyAsync(PartitionBatches.ofRemovals(keys, codec, core.partitions()));
    }

    /** Applies each partition's batch on its apply thread; completes off those threads when all are done. */
    private CompletableFuture<Void> applyAsync(PartitionBatches batches) {
        try {
            services.state().ensureOpen();
        } catch (IllegalStateException e) {
            return offApplyThreads(CompletableFuture.failedFuture(e));
        }
        return offApplyThreads(core.applyAsync(batches));
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
        services.state().ensureOpen();
        return core.size();
    }

    @Override
    public Stream<Map.Entry<K, V>> scan() {
        services.state().ensureOpen();
        return StreamSupport.stream(new CursorSpliterator(), false);
    }

    @Override
    @SuppressWarnings("unchecked")
    public Stream<Map.Entry<K, V>> query(IndexQuery query) {
        Objects.requireNonNull(query, "query");
        services.state().ensureOpen();
        IndexEntries entries = IndexReads.query(core, query.fields(), IndexBounds.of(query, codec), query.limit());
        return IndexStreams.open(entries, query.limit(), at -> {
            byte[] key = at.key(); // copied: a decoded key may keep its bytes (a binary object does)
            return new AbstractMap.SimpleImmutableEntry<>((K) codec.decode(key, 0, key.length, keepBinary),
                    decode(at.value()));
        });
    }

    @Override
    public boolean createIndex(String... fields) {
        services.state().ensureOpen();
        return core.indexes().create(fields);
    }

    @Override
    public boolean destroyIndex(String... fields) {
        services.state().ensureOpen();
        return core.indexes().destroy(List.of(fields));
    }

    @Override
    @SuppressWarnings("unchecked")
    public <V1> Cache<K, V1> withKeepBinary() {
        return keepBinary ? (Cache<K, V1>) this : new NodeCache<>(core, true);
    }

    private GrowableBuffer encodeKey(K key) {
        GrowableBuffer buf = BUFFER.get();
        buf.reset();
        codec.encode(key, buf);
        return buf;
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

    /**
     * The partitions' entries, one partition after another, decoded as each partition's cursor yields them (a
     * partition's cursor is opened when the stream reaches it; one spliterator for all, not a stream per partition,
     * which {@code flatMap} would buffer whole when the stream is read through its iterator).
     */
    private final class CursorSpliterator extends Spliterators.AbstractSpliterator<Map.Entry<K, V>> {
        private int partition = -1;
        private StoreCursor cursor;

        CursorSpliterator() {
            super(Long.MAX_VALUE, Spliterator.ORDERED | Spliterator.NONNULL | Spliterator.DISTINCT);
        }

        @Override
        @SuppressWarnings("unchecked")
        public boolean tryAdvance(Consumer<? super Map.Entry<K, V>> action) {
            while (cursor == null || !cursor.next()) {
                if (partition + 1 >= core.partitions()) {
                    cursor = null;
                    return false;
                }
                services.state().ensureOpen();
                cursor = core.store(++partition).cursor();
            }
            byte[] key = cursor.key();
            K k = (K) codec.decode(key, 0, key.length, keepBinary);
            action.accept(new AbstractMap.SimpleImmutableEntry<>(k, decode(cursor.value())));
            return true;
        }
    }

    @Override
    public String toString() {
        return "NodeCache{name=" + name() + ", partitions=" + core.partitions()
                + (keepBinary ? ", keepBinary" : "") + '}';
    }
}
