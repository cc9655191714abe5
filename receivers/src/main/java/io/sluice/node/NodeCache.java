package io.sluice.node;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.affinity.Partitioner;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.binary.internal.ValueCodec;
import io.sluice.store.PartitionStore;
import io.sluice.store.StoreCursor;

import java.util.AbstractMap;
import java.util.Collection;
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
 * @param <K> key type
 * @param <V> value type
 */
public final class NodeCache<K, V> implements Cache<K, V> {

    /** Arrays larger than this are not kept in the per-thread buffer after use. */
    private static final int MAX_RETAINED_BUFFER = 1 << 20;
    private static final ThreadLocal<GrowableBuffer> BUFFER = ThreadLocal.withInitial(() -> new GrowableBuffer(256));

    private final SluiceNode node;
    private final CacheConfig config;
    private final PartitionStore[] stores;
    private final ValueCodec codec;
    private final boolean keepBinary;

    NodeCache(SluiceNode node, CacheConfig config, PartitionStore[] stores, ValueCodec codec, boolean keepBinary) {
        this.node = node;
        this.config = config;
        this.stores = stores;
        this.codec = codec;
        this.keepBinary = keepBinary;
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
    PartitionStore store(int partition) {
        return stores[partition];
    }

    @Override
    public V get(K key) {
        Objects.requireNonNull(key, "key");
        node.ensureOpen();
        GrowableBuffer buf = encodeKey(key);
        byte[] value = storeOf(buf.array(), buf.position()).get(buf.array(), 0, buf.position());
        release(buf);
        return value == null ? null : decode(value);
    }

    @Override
    public Map<K, V> getAll(Set<? extends K> keys) {
        Objects.requireNonNull(keys, "keys");
        Map<K, V> result = new HashMap<>(Math.max(4, keys.size() * 2));
        for (K key : keys) {
            V value = get(key);
            if (value != null) {
                result.put(key, value);
            }
        }
        return result;
    }

    @Override
    public void put(K key, V value) {
        write(key, value, false);
    }

    @Override
    public void putAll(Map<? extends K, ? extends V> entries) {
        Objects.requireNonNull(entries, "entries");
        for (Map.Entry<? extends K, ? extends V> e : entries.entrySet()) {
            put(e.getKey(), e.getValue());
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
            byte[] bytes = buf.array();
            int valueLength = buf.position() - keyLength;
            PartitionStore store = storeOf(bytes, keyLength);
            return onlyIfAbsent
                    ? store.putIfAbsent(bytes, 0, keyLength, bytes, keyLength, valueLength)
                    : store.put(bytes, 0, keyLength, bytes, keyLength, valueLength);
        } finally {
            release(buf);
        }
    }

    @Override
    public boolean remove(K key) {
        Objects.requireNonNull(key, "key");
        node.ensureOpen();
        GrowableBuffer buf = encodeKey(key);
        boolean removed = storeOf(buf.array(), buf.position()).remove(buf.array(), 0, buf.position());
        release(buf);
        return removed;
    }

    @Override
    public void removeAll(Collection<? extends K> keys) {
        Objects.requireNonNull(keys, "keys");
        for (K key : keys) {
            remove(key);
        }
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
        return keepBinary ? (Cache<K, V1>) this : new NodeCache<>(node, config, stores, codec, true);
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
    private static void release(GrowableBuffer buf) {
        if (buf.array().length > MAX_RETAINED_BUFFER) {
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
