package io.sluice.client.internal;

import io.netty.buffer.ByteBuf;
import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.EntryProcessorException;
import io.sluice.ProcessorRef;
import io.sluice.Receivers;
import io.sluice.affinity.internal.Partitioner;
import io.sluice.binary.BinaryFormatException;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.protocol.internal.BatchOutcome;
import io.sluice.protocol.internal.BatchRequest;
import io.sluice.protocol.internal.Completions;
import io.sluice.protocol.internal.ErrorKind;
import io.sluice.protocol.internal.Frames;
import io.sluice.protocol.internal.NotOwnerException;
import io.sluice.protocol.internal.Op;
import io.sluice.protocol.internal.PartitionBatches;
import io.sluice.protocol.internal.StreamCodec;
import io.sluice.protocol.internal.Wire;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * A cache of remote nodes: keys and values are encoded here, each operation goes to the node that
 * owns the key's partition ({@link Routing}: the streamer's affinity, or a cluster's map; refused requests go
 * again to the new owner through {@link RoutedCall}), and answers are decoded here — fetching the
 * nodes' type metadata first when an answer holds a type this client does not know. Synchronous
 * operations wait for their answer; async ones complete on the common pool, never on a connection's
 * event loop. putAll/removeAll send each node one request of per-partition batches to its batched
 * receiver, as the embedded node applies them.
 *
 * @param <K> key type
 * @param <V> value type
 */
final class RemoteCache<K, V> implements RemoteIndexed<K, V> {

    /** Where async operations complete (never an apply thread or an event loop). */
    private static final Executor ASYNC = Completions.executor();

    private final String name;
    private final int partitions;
    private final Nodes nodes;
    private final Routing routing;
    private final BinaryContext binary;
    private final boolean keepBinary;
    /** Scans may read a partition from one of its backups (the cache has backups and {@code readFromBackup}). */
    private final boolean scanBackups;

    RemoteCache(String name, int partitions, Nodes nodes, Routing routing, BinaryContext binary, boolean keepBinary) {
        this(name, partitions, nodes, routing, binary, keepBinary, false);
    }

    /** @param scanBackups whether scans may read a partition from a backup ({@link CacheConfig#readFromBackup}) */
    RemoteCache(String name, int partitions, Nodes nodes, Routing routing, BinaryContext binary, boolean keepBinary,
                boolean scanBackups) {
        this.scanBackups = scanBackups;
        this.name = name;
        this.partitions = partitions;
        this.nodes = nodes;
        this.routing = routing;
        this.binary = binary;
        this.keepBinary = keepBinary;
    }

    @Override
    public String name() {
        return name;
    }

    // ---- single keys ----

    @Override
    public V get(K key) {
        return decodeOrFetch(nodes.await(getBytes(key)));
    }

    @Override
    public CompletableFuture<V> getAsync(K key) {
        return getBytes(key).thenApplyAsync(this::decodeOrFetch, ASYNC);
    }

    /** The answer's value bytes (with the node that sent them), or null. */
    private CompletableFuture<Owned> getBytes(K key) {
        byte[] k = encode(Objects.requireNonNull(key, "key"));
        return routed("get from", k, node -> nodes.call(node, true, c -> Frames.request(c.alloc(), Op.GET, out -> {
            Wire.writeString(out, name);
            Wire.writeBlob(out, k, 0, k.length);
        }), body -> Wire.readByte(body, "present") == 0 ? null : new Owned(node, Wire.readBlob(body, "value")), name));
    }

    /** A request about one key, to the owner of its partition (again to a new owner when the map changed). */
    private <T> CompletableFuture<T> routed(String what, byte[] key, Function<String, CompletableFuture<T>> send) {
        return routed(what, partitionOf(key), send);
    }

    private <T> CompletableFuture<T> routed(String what, int partition, Function<String, CompletableFuture<T>> send) {
        return RoutedCall.<T>send(routing, nodes, what + " cache '" + name + "'", new int[]{partition}, partitions,
                (node, items) -> send.apply(node).thenApply(Collections::singletonList), null, null)
                .thenApply(answers -> answers.get(0));
    }

    /** Requests about many keys: each owner gets its keys' request, answered per key in the keys' order. */
    private <T> CompletableFuture<List<T>> routedKeys(String what, List<byte[]> keys,
                                                      java.util.function.BiFunction<String, List<byte[]>,
                                                              CompletableFuture<List<T>>> send) {
        int[] parts = new int[keys.size()];
        for (int i = 0; i < parts.length; i++) {
            parts[i] = partitionOf(keys.get(i));
        }
        return RoutedCall.send(routing, nodes, what + " cache '" + name + "'", parts, partitions, (node, items) -> {
            List<byte[]> some = new ArrayList<>(items.length);
            for (int i : items) {
                some.add(keys.get(i));
            }
            return send.apply(node, some);
        }, null, null);
    }

    @Override
    public void put(K key, V value) {
        nodes.await(write(key, value, false));
    }

    @Override
    public CompletableFuture<Void> putAsync(K key, V value) {
        return write(key, value, false).thenApplyAsync(changed -> null, ASYNC);
    }

    @Override
    public boolean putIfAbsent(K key, V value) {
        return nodes.await(write(key, value, true));
    }

    private CompletableFuture<Boolean> write(K key, V value, boolean onlyIfAbsent) {
        byte[] k = encode(Objects.requireNonNull(key, "key"));
        byte[] v = encode(Objects.requireNonNull(value, "value"));
        return routed("put to", k, node -> nodes.call(node, true, c -> Frames.request(c.alloc(), Op.PUT, out -> {
            Wire.writeString(out, name);
            out.writeByte(onlyIfAbsent ? 1 : 0);
            Wire.writeBlob(out, k, 0, k.length);
            Wire.writeBlob(out, v, 0, v.length);
        }), body -> Wire.readByte(body, "changed") != 0, name));
    }

    @Override
    public boolean remove(K key) {
        byte[] k = encode(Objects.requireNonNull(key, "key"));
        return nodes.await(routed("remove from", k, node -> nodes.call(node, true,
                c -> Frames.request(c.alloc(), Op.REMOVE, out -> {
                    Wire.writeString(out, name);
                    Wire.writeBlob(out, k, 0, k.length);
                }), body -> Wire.readByte(body, "removed") != 0, name)));
    }

    // ---- many keys ----

    @Override
    public Map<K, V> getAll(Set<? extends K> keys) {
        Objects.requireNonNull(keys, "keys");
        List<K> order = new ArrayList<>(keys.size());
        List<byte[]> encoded = new ArrayList<>(keys.size());
        for (K key : keys) {
            order.add(key);
            encoded.add(encode(Objects.requireNonNull(key, "key")));
        }
        List<Owned> values = nodes.await(routedKeys("getAll from", encoded, (node, some) -> nodes.call(node, true,
                c -> Frames.request(c.alloc(), Op.GET_ALL, out -> {
                    Wire.writeString(out, name);
                    out.writeInt(some.size());
                    for (byte[] k : some) {
                        Wire.writeBlob(out, k, 0, k.length);
                    }
                }), body -> {
                    int n = Wire.readCount(body, 1, "value");
                    List<Owned> vs = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        vs.add(Wire.readByte(body, "present") == 0 ? null : new Owned(node, Wire.readBlob(body, "value")));
                    }
                    return vs;
                }, name)));
        Map<K, V> result = new HashMap<>();
        for (int i = 0; i < values.size(); i++) {
            if (values.get(i) != null) {
                result.put(order.get(i), decodeOrFetch(values.get(i)));
            }
        }
        return result;
    }

    @Override
    public void putAll(Map<? extends K, ? extends V> entries) {
        Objects.requireNonNull(entries, "entries");
        nodes.await(writeAll(PartitionBatches.ofPuts(entries, binary, partitions)));
    }

    @Override
    public CompletableFuture<Void> putAllAsync(Map<? extends K, ? extends V> entries) {
        Objects.requireNonNull(entries, "entries");
        return writeAll(PartitionBatches.ofPuts(entries, binary, partitions)).thenApplyAsync(v -> v, ASYNC);
    }

    @Override
    public void removeAll(Collection<? extends K> keys) {
        Objects.requireNonNull(keys, "keys");
        nodes.await(writeAll(PartitionBatches.ofRemovals(keys, binary, partitions)));
    }

    @Override
    public CompletableFuture<Void> removeAllAsync(Collection<? extends K> keys) {
        Objects.requireNonNull(keys, "keys");
        return writeAll(PartitionBatches.ofRemovals(keys, binary, partitions)).thenApplyAsync(v -> v, ASYNC);
    }

    /**
     * Each owner's partition batches as one request to its batched receiver (a batch refused with NOT_OWNER goes
     * again to the new owner); fails with the first batch's error.
     */
    private CompletableFuture<Void> writeAll(PartitionBatches batches) {
        int[] parts = new int[batches.size()];
        for (int i = 0; i < parts.length; i++) {
            parts[i] = batches.partition(i);
        }
        return RoutedCall.send(routing, nodes, "writing to cache '" + name + "'", parts, partitions, (node, items) -> {
            List<BatchRequest.PartitionBatch> some = new ArrayList<>(items.length);
            for (int i : items) {
                some.add(new BatchRequest.PartitionBatch(batches.partition(i), batches.batch(i)));
            }
            BatchRequest request = new BatchRequest(name, Receivers.batched(), true, false, some);
            return nodes.call(node, true, c -> StreamCodec.encodeRequest(c.alloc(), 0, request),
                    body -> StreamCodec.decodeResponse(body, name), name);
        }, outcome -> outcome.error() instanceof NotOwnerException, null).thenApply(outcomes -> {
            for (BatchOutcome outcome : outcomes) {
                if (!outcome.succeeded()) {
                    throw Nodes.unwrap(outcome.error());
                }
            }
            return null;
        });
    }

    @Override
    public long size() {
        if (routing.clustered()) {
            return clusterSize();
        }
        long size = 0;
        for (String node : nodes.ids()) {
            size += nodes.await(nodes.call(node, false, c -> Frames.request(c.alloc(), Op.SIZE,
                    out -> Wire.writeString(out, name)), body -> Wire.readLong(body, "size"), name));
        }
        return size;
    }

    /**
     * Each owner counts the partitions the map gives it (SIZE naming them: it answers NOT_OWNER unless it serves
     * them all), so a partition is counted once even while the map changes.
     */
    private long clusterSize() {
        int[] all = IntStream.range(0, partitions).toArray();
        List<Long> counts = nodes.await(RoutedCall.send(routing, nodes, "size of cache '" + name + "'", all, partitions,
                (node, items) -> nodes.call(node, false, c -> Frames.request(c.alloc(), Op.SIZE, out -> {
                    Wire.writeString(out, name);
                    out.writeInt(items.length);
                    for (int i : items) {
                        out.writeInt(all[i]);
                    }
                }), body -> {
                    Long[] perItem = new Long[items.length];
                    Arrays.fill(perItem, 0L);
                    perItem[0] = Wire.readLong(body, "size"); // the group's count, carried by its first item
                    return Arrays.asList(perItem);
                }, name), null, null));
        long size = 0;
        for (Long c : counts) {
            size += c;
        }
        return size;
    }

    @Override
    public Stream<Map.Entry<K, V>> scan() {
        ScanAhead<K, V> ahead = new ScanAhead<>(partitions,
                p -> new PartitionScan<>(this, p, nodes, routing, scanBackups));
        return IntStream.range(0, partitions).boxed().flatMap(p -> StreamSupport.stream(ahead.scan(p), false));
    }

    @Override
    public RemoteIndexes indexes() {
        return new RemoteIndexes(name, partitions, nodes, routing, binary, keepBinary);
    }

    // ---- entry processors ----

    @Override
    public <R> R invoke(K key, ProcessorRef processor) {
        Map<K, R> results = invokeAll(java.util.Collections.singleton(key), processor);
        return results.get(key);
    }

    @Override
    public <R> Map<K, R> invokeAll(Set<? extends K> keys, ProcessorRef processor) {
        return nodes.await(this.<R>startInvokeAll(keys, processor).thenApply(list -> finish(list, processor.name())));
    }

    @Override
    public <R> CompletableFuture<Map<K, R>> invokeAllAsync(Set<? extends K> keys, ProcessorRef processor) {
        CompletableFuture<Map<K, R>> started;
        try {
            started = this.<R>startInvokeAll(keys, processor).thenApplyAsync(list -> finish(list, processor.name()), ASYNC);
        } catch (RuntimeException e) {
            started = CompletableFuture.failedFuture(e);
        }
        return started;
    }

    /** The answers to an INVOKE_ALL: per key (in the keys' order), its result's bytes or its failure. */
    private record Invoked<K>(List<K> keys, List<Owned> answers) {
    }

    private <R> CompletableFuture<Invoked<K>> startInvokeAll(Set<? extends K> keys, ProcessorRef processor) {
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(processor, "processor");
        byte[] argument = encode(processor.argument());
        List<K> order = new ArrayList<>(keys.size());
        List<byte[]> encoded = new ArrayList<>(keys.size());
        for (K key : keys) {
            order.add(key);
            encoded.add(encode(Objects.requireNonNull(key, "key")));
        }
        return routedKeys("invokeAll on", encoded, (node, some) -> nodes.call(node, true,
                c -> Frames.request(c.alloc(), Op.INVOKE_ALL, out -> {
                    Wire.writeString(out, name);
                    Wire.writeString(out, processor.name());
                    Wire.writeBlob(out, argument, 0, argument.length);
                    out.writeInt(some.size());
                    for (byte[] k : some) {
                        Wire.writeBlob(out, k, 0, k.length);
                    }
                }), body -> readInvoked(node, body), name)).thenApply(answers -> new Invoked<>(order, answers));
    }

    /** Per key its result's bytes, or (as {@link Owned#failure}) its failure. */
    private List<Owned> readInvoked(String node, ByteBuf body) {
        int n = Wire.readCount(body, 1, "result");
        List<Owned> answers = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            if (Wire.readByte(body, "status") == 0) {
                answers.add(new Owned(node, Wire.readBlob(body, "result")));
            } else {
                ErrorKind kind = ErrorKind.of(Wire.readByte(body, "error kind"));
                answers.add(new Owned(node, null, kind.toException(Wire.readString(body, "error message"), name)));
            }
        }
        return answers;
    }

    /** Decodes the results (off the event loop: an unknown type is fetched from the node). */
    @SuppressWarnings("unchecked")
    private <R> Map<K, R> finish(Invoked<K> answer, String processor) {
        Map<K, R> results = new HashMap<>();
        Map<K, Throwable> failures = new LinkedHashMap<>();
        for (int i = 0; i < answer.keys().size(); i++) {
            Owned a = answer.answers().get(i);
            if (a.failure() != null) {
                failures.put(answer.keys().get(i), a.failure());
            } else {
                results.put(answer.keys().get(i), (R) decodeAny(a, true));
            }
        }
        if (!failures.isEmpty()) {
            throw new EntryProcessorException(processor, results, failures);
        }
        return results;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <V1> Cache<K, V1> withKeepBinary() {
        return keepBinary ? (Cache<K, V1>) this
                : new RemoteCache<>(name, partitions, nodes, routing, binary, true, scanBackups);
    }

    // ---- encoding ----

    private byte[] encode(Object value) {
        GrowableBuffer buf = new GrowableBuffer(64);
        binary.encode(value, buf);
        return buf.toByteArray();
    }

    private int partitionOf(byte[] key) {
        return Partitioner.partition(key, 0, key.length, partitions);
    }

    /** Bytes from a node (for an entry processor's key that failed: its failure instead). */
    private record Owned(String node, byte[] bytes, RuntimeException failure) {
        Owned(String node, byte[] bytes) {
            this(node, bytes, null);
        }
    }

    @SuppressWarnings("unchecked")
    private V decodeOrFetch(Owned owned) {
        return owned == null ? null : (V) decodeAny(owned, keepBinary);
    }

    /** Decodes, fetching the node's type metadata once if the bytes hold a type or schema unknown here. */
    private Object decodeAny(Owned owned, boolean asBinary) {
        byte[] b = owned.bytes();
        try {
            return binary.decode(b, 0, b.length, asBinary);
        } catch (BinaryFormatException e) {
            if (e.getMessage() == null || !e.getMessage().contains("unknown ")) {
                throw e;
            }
            nodes.fetchTypes(owned.node());
            return binary.decode(b, 0, b.length, asBinary);
        }
    }

    /** The cache's partition count. */
    int partitionCount() {
        return partitions;
    }

    /** Decodes bytes a node sent (fetching its type metadata once if they hold a type unknown here). */
    Object decode(String node, byte[] bytes) {
        return decodeAny(new Owned(node, bytes), keepBinary);
    }

    @Override
    public String toString() {
        return "RemoteCache{name=" + name + ", partitions=" + partitions + (keepBinary ? ", keepBinary" : "") + '}';
    }
}
