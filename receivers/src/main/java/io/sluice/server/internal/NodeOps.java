package io.sluice.server.internal;

import io.netty.buffer.ByteBuf;
import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.protocol.internal.CacheCreateWire;
import io.sluice.protocol.internal.CacheOptionsWire;
import io.sluice.EntryProcessorException;
import io.sluice.ProcessorRef;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.node.internal.IndexReads;
import io.sluice.node.internal.NodeCache;
import io.sluice.node.internal.NodeEngine;
import io.sluice.protocol.internal.ClusterMap;
import io.sluice.protocol.internal.ErrorKind;
import io.sluice.protocol.internal.IndexQueryWire;
import io.sluice.query.internal.IndexPage;
import io.sluice.protocol.internal.Op;
import io.sluice.protocol.internal.Wire;
import io.sluice.pagestore.internal.StoreCursor;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The node's side of every operation but STREAM: decodes a request body on the event loop (copying
 * the few bytes it needs, so the frame can be released at once) into a {@link Call} that runs off it
 * and writes the response body. Keys and values from the network are checked before they are used.
 * Bodies are laid out in {@code docs/protocol.md}.
 */
final class NodeOps {

    /** Entries a SCAN page may hold at most, whatever the client asks. */
    static final int MAX_SCAN_PAGE = 4096;

    /** A decoded request: runs against the node and returns the writer of its response body. */
    @FunctionalInterface
    interface Call {
        Consumer<ByteBuf> run() throws Exception;
    }

    private final NodeEngine node;
    private final BinaryContext binary;
    private final PartitionGate gate;

    NodeOps(NodeEngine node, PartitionGate gate) {
        this.node = node;
        this.binary = node.binaryContext();
        this.gate = gate;
    }

    /** @throws Wire.MalformedFrameException if the body does not follow the op's layout */
    Call decode(Op op, ByteBuf in) {
        Call call = switch (op) {
            case CACHE_PARTITIONS -> {
                String cache = Wire.readString(in, "cache name");
                yield () -> {
                    NodeCache<Object, Object> c = gate.cache(node, cache);
                    int n = c.partitions();
                    CacheOptionsWire.Options options = CacheOptionsWire.Options.of(c.config());
                    return out -> {
                        out.writeInt(n);
                        if (!options.isDefault()) {
                            CacheOptionsWire.write(out, options); // a tail: a client of before reads only the count
                        }
                    };
                };
            }
            case CREATE_CACHE -> {
                String cache = Wire.readString(in, "cache name");
                int partitions = Wire.readInt(in, "partitions");
                CacheCreateWire.Tail tail = CacheCreateWire.readTail(in);
                boolean ifAbsent = tail.ifAbsent();
                yield () -> {
                    CacheConfig config = tail.applyTo(CacheConfig.named(cache).withPartitions(partitions));
                    int n = gate.createCache(node, config, ifAbsent); // a cluster member: cluster-wide
                    return out -> out.writeInt(n);
                };
            }
            case DESTROY_CACHE -> {
                String cache = Wire.readString(in, "cache name");
                yield () -> {
                    boolean existed = gate.destroyCache(node, cache);
                    return out -> out.writeByte(existed ? 1 : 0);
                };
            }
            case GET -> {
                String cache = Wire.readString(in, "cache name");
                byte[] key = key(in);
                yield () -> {
                    NodeCache<Object, Object> c = gate.cache(node, cache);
                    gate.checkKey(c, key);
                    byte[] value = c.getEncoded(key);
                    return out -> {
                        out.writeByte(value == null ? 0 : 1);
                        if (value != null) {
                            Wire.writeBlob(out, value, 0, value.length);
                        }
                    };
                };
            }
            case PUT -> {
                String cache = Wire.readString(in, "cache name");
                boolean onlyIfAbsent = Wire.readByte(in, "if absent") != 0;
                byte[] key = key(in);
                byte[] value = value(in);
                yield () -> {
                    // Through the cache: write-through and write-behind see a remote put as an embedded one.
                    NodeCache<Object, Object> c = gate.cache(node, cache);
                    boolean changed = gate.write(c, List.of(key), () -> c.writeEncoded(key, 0, key.length,
                            value, 0, value.length, onlyIfAbsent));
                    return out -> out.writeByte(changed ? 1 : 0);
                };
            }
            case REMOVE -> {
                String cache = Wire.readString(in, "cache name");
                byte[] key = key(in);
                yield () -> {
                    NodeCache<Object, Object> c = gate.cache(node, cache);
                    boolean removed = gate.write(c, List.of(key), () -> c.removeEncoded(key, 0, key.length));
                    return out -> out.writeByte(removed ? 1 : 0);
                };
            }
            case SIZE -> {
                String cache = Wire.readString(in, "cache name");
                int[] partitions = in.isReadable() ? partitions(in) : null;
                yield () -> {
                    long size = size(gate.cache(node, cache), partitions);
                    return out -> out.writeLong(size);
                };
            }
            case GET_ALL -> {
                String cache = Wire.readString(in, "cache name");
                int n = Wire.readCount(in, 5, "key");
                List<byte[]> keys = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    keys.add(key(in));
                }
                yield () -> {
                    // With read-through, the misses are loaded with one loadAll.
                    NodeCache<Object, Object> c = gate.cache(node, cache);
                    gate.checkKeys(c, keys);
                    List<byte[]> values = c.getAllEncoded(keys);
                    return out -> {
                        out.writeInt(values.size());
                        for (byte[] v : values) {
                            out.writeByte(v == null ? 0 : 1);
                            if (v != null) {
                                Wire.writeBlob(out, v, 0, v.length);
                            }
                        }
                    };
                };
            }
            case SCAN, PARTITION_SCAN -> {
                String cache = Wire.readString(in, "cache name");
                int partition = Wire.readInt(in, "partition");
                byte[] after = Wire.readByte(in, "has after") != 0 ? key(in) : null;
                int max = Math.max(1, Math.min(MAX_SCAN_PAGE, Wire.readInt(in, "page size")));
                // PARTITION_SCAN is served whether or not the node owns the partition: a node taking it over reads it.
                boolean owned = op == Op.SCAN;
                yield () -> {
                    if (owned) {
                        gate.checkScan(gate.cache(node, cache), partition);
                    }
                    return scan(cache, partition, after, max);
                };
            }
            case CLUSTER_MAP -> () -> {
                if (!gate.clustered()) {
                    return ClusterMap::writeStandalone;
                }
                ClusterMap map = gate.map();
                return map::write;
            };
            case NODE_STATUS -> () -> {
                String status = gate.clustered() ? gate.statusJson() : standaloneStatus();
                if (status.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 0xFFFF) {
                    // Checked here, to say what is too long (the protocol string's writer would only say it fails).
                    throw new IllegalStateException("the node's status is longer than a protocol string (65,535"
                            + " UTF-8 bytes)");
                }
                return out -> Wire.writeString(out, status);
            };
            case TOPOLOGY -> () -> {
                String id = node.id();
                return out -> {
                    out.writeInt(1);
                    Wire.writeString(out, id);
                    Wire.writeString(out, "");
                };
            };
            case GET_TYPES -> () -> {
                byte[] types = binary.exportTypes();
                return out -> Wire.writeBlob(out, types, 0, types.length);
            };
            case CACHE_NAMES -> () -> {
                List<String> names = node.cacheNames();
                return out -> io.sluice.protocol.internal.CacheNamesCodec.write(out, names);
            };
            case INVOKE_ALL -> invokeAll(in);
            case INDEX_QUERY -> {
                IndexQueryWire.Request request = IndexQueryWire.readRequest(in);
                yield () -> {
                    NodeCache<Object, Object> c = gate.cache(node, request.cache());
                    IndexPage page = IndexReads.page(c, request.fields(), request.bounds(), request.after(),
                            request.pageSize(), queriedPartitions(c, request.partitions()));
                    return out -> IndexQueryWire.writePage(out, page);
                };
            }
            case CREATE_INDEX, DESTROY_INDEX -> {
                String cache = Wire.readString(in, "cache name");
                int n = Wire.readByte(in, "field count");
                String[] fields = new String[n];
                for (int i = 0; i < n; i++) {
                    fields[i] = Wire.readString(in, "field");
                }
                yield () -> {
                    if (gate.clustered()) {
                        throw new IllegalStateException("cache '" + cache + "' is a cluster's: its indexes are"
                                + " declared when it is created (CacheConfig.index), not changed afterwards");
                    }
                    NodeCache<Object, Object> c = gate.cache(node, cache);
                    boolean changed = op == Op.CREATE_INDEX ? c.createIndex(fields) : c.destroyIndex(fields);
                    return out -> out.writeByte(changed ? 1 : 0);
                };
            }
            case REPLICA_FOLLOW -> {
                String member = Wire.readString(in, "member id");
                int partition = Wire.readInt(in, "partition");
                yield () -> {
                    long[] following = gate.followedBy(member, partition);
                    return out -> out.writeLong(following[0]).writeLong(following[1]);
                };
            }
            case REPLICA_SYNCED -> {
                String member = Wire.readString(in, "member id");
                int partition = Wire.readInt(in, "partition");
                long epoch = Wire.readLong(in, "epoch");
                long ticket = Wire.readLong(in, "ticket");
                yield () -> {
                    gate.syncedBy(member, partition, epoch, ticket);
                    return out -> { };
                };
            }
            default -> throw new Wire.MalformedFrameException("op " + op + " is not served here");
        };
        if (in.isReadable()) {
            throw new Wire.MalformedFrameException(op + " request has " + in.readableBytes() + " bytes after its body");
        }
        return call;
    }

    /** PUT_TYPES, run on the event loop so that the requests behind it on the connection find the types. */
    Call putTypes(ByteBuf in) {
        byte[] types = Wire.readBlob(in, "type metadata");
        binary.importTypes(types);
        gate.typesImported();
        return () -> out -> { };
    }

    private Call invokeAll(ByteBuf in) {
        String cache = Wire.readString(in, "cache name");
        String processor = Wire.readString(in, "processor name");
        byte[] argument = value(in);
        int n = Wire.readCount(in, 5, "key");
        List<byte[]> keys = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            keys.add(key(in));
        }
        return () -> {
            NodeCache<Object, Object> nc = gate.cache(node, cache);
            return gate.write(nc, keys, () -> invokeAll(nc, processor, argument, keys));
        };
    }

    /** Runs the processor over the keys (inside the gate: the node serves every key's partition). */
    private Consumer<ByteBuf> invokeAll(NodeCache<Object, Object> nc, String processor, byte[] argument,
                                        List<byte[]> keys) {
        int n = keys.size();
        Cache<Object, Object> c = nc.withKeepBinary();
        List<Object> decoded = new ArrayList<>(n);
        for (byte[] key : keys) {
            decoded.add(binary.decode(key, 0, key.length, true));
        }
        Set<Object> unique = new LinkedHashSet<>(decoded);
        Object arg = binary.decode(argument, 0, argument.length, true);
        Map<Object, Object> results;
        Map<Object, Throwable> failures = Map.of();
        try {
            results = c.invokeAll(unique, new ProcessorRef(processor, arg));
        } catch (EntryProcessorException e) {
            results = e.results();
            failures = e.failures();
        }
        Map<Object, Object> okResults = results;
        Map<Object, Throwable> failed = failures;
        return out -> {
            GrowableBuffer encoded = new GrowableBuffer(64);
            out.writeInt(decoded.size());
            for (Object key : decoded) {
                Throwable t = failed.get(key);
                if (t != null) {
                    out.writeByte(1).writeByte(ErrorKind.of(t).code);
                    Wire.writeString(out, io.sluice.protocol.internal.StreamCodec.truncate(ErrorKind.messageOf(t)));
                    continue;
                }
                encoded.reset();
                try {
                    binary.encode(okResults.get(key), encoded);
                } catch (RuntimeException unsendable) {
                    // The processor ran and what it wrote stands; only its result cannot travel: the key fails
                    // with the reason, and the answer still goes.
                    out.writeByte(1).writeByte(ErrorKind.of(unsendable).code);
                    Wire.writeString(out, io.sluice.protocol.internal.StreamCodec.truncate("its result cannot be"
                            + " sent to the client: " + ErrorKind.messageOf(unsendable)));
                    continue;
                }
                out.writeByte(0);
                Wire.writeBlob(out, encoded.array(), 0, encoded.position());
            }
        };
    }

    /** SIZE: the named partitions (each must be served), or every partition this node serves. */
    private long size(NodeCache<Object, Object> cache, int[] partitions) {
        if (partitions == null && !gate.clustered()) {
            return cache.size();
        }
        long size = 0;
        if (partitions == null) {
            for (int p = 0; p < cache.partitions(); p++) {
                if (gate.serves(p)) {
                    size += cache.store(p).size();
                }
            }
            return size;
        }
        for (int p : partitions) {
            checkRange(cache, p);
            gate.checkPartition(p);
            size += cache.store(p).size();
        }
        return size;
    }

    /** INDEX_QUERY's partitions: those named (each must be served), or every partition this node serves. */
    private int[] queriedPartitions(NodeCache<Object, Object> cache, int[] named) {
        if (named != null) {
            for (int p : named) {
                checkRange(cache, p);
                gate.checkPartition(p);
            }
            return named;
        }
        int[] served = new int[cache.partitions()];
        int n = 0;
        for (int p = 0; p < served.length; p++) {
            if (gate.serves(p)) {
                served[n++] = p;
            }
        }
        return java.util.Arrays.copyOf(served, n);
    }

    private static int[] partitions(ByteBuf in) {
        int n = Wire.readCount(in, 4, "partition");
        int[] partitions = new int[n];
        for (int i = 0; i < n; i++) {
            partitions[i] = in.readInt();
        }
        return partitions;
    }

    private static void checkRange(NodeCache<?, ?> c, int partition) {
        if (partition < 0 || partition >= c.partitions()) {
            throw new IllegalArgumentException("partition " + partition + " is out of range: cache '" + c.name()
                    + "' has " + c.partitions() + " partitions");
        }
    }

    /**
     * NODE_STATUS of a standalone node: its id, the entries of client batches it applied (its load, for the status
     * page) and its caches' sizes.
     */
    private String standaloneStatus() {
        StringBuilder json = new StringBuilder("{\"mode\":\"standalone\",\"node\":");
        io.micrometer.core.instrument.Counter applied = node.metrics().registry()
                .find(io.sluice.node.internal.NodeMetrics.ENTRIES_APPLIED).counter();
        quote(json, node.id()).append(",\"entriesApplied\":").append(applied == null ? -1 : (long) applied.count())
                .append(",\"caches\":{");
        boolean first = true;
        for (String name : node.cacheNames()) {
            long size;
            try {
                size = node.nodeCache(name).size();
            } catch (RuntimeException destroyedMeanwhile) {
                continue;
            }
            json.append(first ? "" : ",");
            quote(json, name).append(':').append(size);
            first = false;
        }
        return json.append("}}").toString();
    }

    private static StringBuilder quote(StringBuilder json, String s) {
        json.append('"');
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch == '"' || ch == '\\') {
                json.append('\\').append(ch);
            } else if (ch < 0x20) {
                json.append(String.format("\\u%04x", (int) ch));
            } else {
                json.append(ch);
            }
        }
        return json.append('"');
    }

    private Consumer<ByteBuf> scan(String cache, int partition, byte[] after, int max) {
        NodeCache<Object, Object> c = gate.cache(node, cache);
        checkRange(c, partition);
        StoreCursor cursor = after == null ? c.store(partition).cursor() : c.store(partition).cursorAfter(after);
        List<byte[]> page = new ArrayList<>();
        boolean more = false;
        while (cursor.next()) {
            if (page.size() == 2 * max) {
                more = true;
                break;
            }
            page.add(cursor.key());
            page.add(cursor.value());
        }
        boolean hasMore = more;
        return out -> {
            out.writeInt(page.size() / 2);
            for (byte[] b : page) {
                Wire.writeBlob(out, b, 0, b.length);
            }
            out.writeByte(hasMore ? 1 : 0);
        };
    }

    /** A key from the network: one well-formed value (checked now, so a bad one fails its request alone). */
    private byte[] key(ByteBuf in) {
        byte[] key = Wire.readBlob(in, "key");
        binary.checkValue(key, 0, key.length);
        return key;
    }

    private byte[] value(ByteBuf in) {
        byte[] value = Wire.readBlob(in, "value");
        binary.checkValue(value, 0, value.length);
        return value;
    }
}
