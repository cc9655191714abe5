package io.sluice.client.internal;

import io.sluice.IndexQuery;
import io.sluice.SluiceException;
import io.sluice.binary.BinaryFormatException;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.protocol.internal.Frames;
import io.sluice.protocol.internal.IndexQueryWire;
import io.sluice.protocol.internal.NotOwnerException;
import io.sluice.protocol.internal.Op;
import io.sluice.protocol.internal.Wire;
import io.sluice.query.internal.IndexBounds;
import io.sluice.query.internal.IndexEntries;
import io.sluice.query.internal.IndexMerge;
import io.sluice.query.internal.IndexPage;
import io.sluice.query.internal.IndexStreams;
import io.sluice.query.internal.PagedIndexEntries;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A remote cache's field indexes: queries fanned out to the nodes (INDEX_QUERY, paged; in a cluster each member
 * reads the partitions the client's map gives it) and merged by index key ({@link IndexMerge}), and DESTROY_INDEX.
 */
final class RemoteIndexes {

    private final String name;
    private final int partitions;
    private final Nodes nodes;
    private final Routing routing;
    private final BinaryContext binary;
    /** Whether answers' keys and values stay binary objects. */
    private final boolean keepBinary;

    RemoteIndexes(String name, int partitions, Nodes nodes, Routing routing, BinaryContext binary,
                  boolean keepBinary) {
        this.keepBinary = keepBinary;
        this.name = name;
        this.partitions = partitions;
        this.nodes = nodes;
        this.routing = routing;
        this.binary = binary;
    }

    /** Entries an INDEX_QUERY page asks for at first, and at most (pages double while the query is read). */
    private static final int QUERY_FIRST_PAGE = 256;

    /**
     * The query's entries, decoded (keys and values as binary objects with keepBinary): every node is asked for its
     * entries (in a cluster, each member for the partitions the map gives it, naming them), page by page, and the
     * answers are merged by index key.
     */
    Stream<Map.Entry<Object, Object>> query(IndexQuery query) {
        Objects.requireNonNull(query, "query");
        if (query.fields().size() > 255) {
            throw new IllegalArgumentException("an index query names at most 255 fields; got " + query.fields().size());
        }
        IndexBounds bounds = IndexBounds.of(query, binary);
        List<IndexEntries> sources = new ArrayList<>();
        List<String> asked = new ArrayList<>();
        if (routing.clustered()) {
            int[] all = new int[partitions];
            for (int p = 0; p < partitions; p++) {
                all[p] = p;
            }
            Map<String, int[]> owners = owners(all);
            owners.forEach((node, parts) -> sources.add(new MovingPartitions(node, parts, query, bounds)));
            asked.addAll(owners.keySet());
        } else {
            for (String node : nodes.ids()) {
                sources.add(new NodeIndexEntries(node, null, query, bounds, null, query.limit()));
                asked.add(node);
            }
        }
        IndexEntries entries = sources.size() == 1 ? sources.get(0) : new IndexMerge(sources);
        return IndexStreams.open(entries, query.limit(), at -> new AbstractMap.SimpleImmutableEntry<>(
                decodeFrom(asked, at.key(), keepBinary), decodeFrom(asked, at.value(), keepBinary)));
    }

    /**
     * The partitions' owners in the client's map, each with its partitions; a partition without owner is waited for
     * (the map asked again, with backoff) up to the request timeout.
     *
     * @throws io.sluice.NodeUnreachableException if a partition still has no owner then
     */
    private Map<String, int[]> owners(int[] parts) {
        long deadline = System.nanoTime() + routing.requestTimeoutNanos();
        for (int attempt = 1; ; attempt++) {
            Map<String, List<Integer>> owned = new LinkedHashMap<>();
            List<Integer> unowned = new ArrayList<>();
            for (int p : parts) {
                String owner = routing.owner(p, partitions);
                if (owner == null) {
                    unowned.add(p);
                } else {
                    owned.computeIfAbsent(owner, o -> new ArrayList<>()).add(p);
                }
            }
            if (unowned.isEmpty()) {
                Map<String, int[]> owners = new LinkedHashMap<>();
                owned.forEach((node, list) -> owners.put(node, list.stream().mapToInt(Integer::intValue).toArray()));
                return owners;
            }
            if (System.nanoTime() > deadline) {
                throw routing.noOwner("query of cache '" + name + "'", unowned, attempt, null);
            }
            pause(attempt);
            nodes.await(routing.refresh(null));
        }
    }

    private void pause(int attempt) {
        try {
            Thread.sleep(routing.backoffMillis(attempt));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SluiceException("query of cache '" + name + "' interrupted", e);
        }
    }

    /**
     * A cluster member's partitions, read through it; when it answers that it no longer serves some (NOT_OWNER: the
     * map changed, a partition moved) or cannot be reached, the map is asked again and the rest of these partitions
     * is read from their owners now, after the last index key returned (every entry up to it was returned, whichever
     * partition it came from), until the request timeout.
     */
    private final class MovingPartitions implements IndexEntries {
        private final int[] parts;
        private final IndexQuery query;
        private final IndexBounds bounds;
        private IndexEntries current;
        /** The last index key returned, in {@code lastBytes[0, lastLength)} (copied: no allocation per entry). */
        private byte[] lastBytes = new byte[64];
        private int lastLength = -1;
        private long returned;
        private long deadline;
        private int moves;

        MovingPartitions(String node, int[] parts, IndexQuery query, IndexBounds bounds) {
            this.parts = parts;
            this.query = query;
            this.bounds = bounds;
            this.current = new NodeIndexEntries(node, parts, query, bounds, null, query.limit());
        }

        @Override
        public boolean next() {
            while (true) {
                try {
                    if (!current.next()) {
                        return false;
                    }
                    remember(current);
                    returned++;
                    deadline = 0; // a read succeeded: a later move gets a fresh timeout
                    return true;
                } catch (NotOwnerException | io.sluice.NodeUnreachableException moved) {
                    moves++;
                    if (deadline == 0) {
                        deadline = System.nanoTime() + routing.requestTimeoutNanos();
                    } else if (System.nanoTime() > deadline) {
                        throw new SluiceException("query of cache '" + name + "': partitions kept moving or their"
                                + " nodes stayed unreachable for " + routing.requestTimeoutNanos() / 1_000_000
                                + " ms (ClientConfig.requestTimeout; " + moves + " moves)", moved);
                    } else {
                        pause(moves);
                    }
                    nodes.await(routing.refresh(null));
                    List<IndexEntries> sources = new ArrayList<>();
                    byte[] last = lastLength < 0 ? null : Arrays.copyOf(lastBytes, lastLength);
                    owners(parts).forEach((node, some) -> sources.add(new NodeIndexEntries(node, some, query,
                            bounds, last, query.limit() - returned)));
                    current = sources.size() == 1 ? sources.get(0) : new IndexMerge(sources);
                }
            }
        }

        private void remember(IndexEntries at) {
            int n = at.indexKeyLength();
            if (n > lastBytes.length) {
                lastBytes = new byte[Math.max(n, 2 * lastBytes.length)];
            }
            System.arraycopy(at.array(), at.indexKeyOffset(), lastBytes, 0, n);
            lastLength = n;
        }

        @Override
        public byte[] array() {
            return current.array();
        }

        @Override
        public int indexKeyOffset() {
            return current.indexKeyOffset();
        }

        @Override
        public int indexKeyLength() {
            return current.indexKeyLength();
        }

        @Override
        public int keyLength() {
            return current.keyLength();
        }

        @Override
        public byte[] value() {
            return current.value();
        }
    }

    /** One node's answers to a query, page by page (INDEX_QUERY with the last index key seen). */
    private final class NodeIndexEntries extends PagedIndexEntries {
        private final String node;
        private final int[] nodePartitions;
        private final IndexQuery query;
        private final IndexBounds bounds;

        NodeIndexEntries(String node, int[] nodePartitions, IndexQuery query, IndexBounds bounds, byte[] after,
                         long limit) {
            super(after, QUERY_FIRST_PAGE, IndexQueryWire.MAX_PAGE, limit);
            this.node = node;
            this.nodePartitions = nodePartitions;
            this.query = query;
            this.bounds = bounds;
        }

        @Override
        protected IndexPage fetch(byte[] after, int max) {
            IndexQueryWire.Request request = new IndexQueryWire.Request(name, query.fields(), bounds, after, max,
                    nodePartitions);
            return nodes.await(nodes.call(node, true, c -> Frames.request(c.alloc(), Op.INDEX_QUERY,
                    out -> IndexQueryWire.writeRequest(out, request)), IndexQueryWire::readPage, name));
        }
    }

    /** Decodes bytes from one of the nodes, fetching their type metadata if the bytes hold a type unknown here. */
    private Object decodeFrom(List<String> asked, byte[] bytes, boolean asBinary) {
        try {
            return binary.decode(bytes, 0, bytes.length, asBinary);
        } catch (BinaryFormatException e) {
            if (e.getMessage() == null || !e.getMessage().contains("unknown ")) {
                throw e;
            }
            for (String node : asked) {
                nodes.fetchTypes(node);
            }
            return binary.decode(bytes, 0, bytes.length, asBinary);
        }
    }

    /**
     * CREATE_INDEX or DESTROY_INDEX, sent to every node (standalone nodes each hold their part of the cache; a
     * cluster member refuses both).
     *
     * @return whether any node changed
     */
    boolean changeIndex(Op op, String... fields) {
        Objects.requireNonNull(fields, "fields");
        List<String> list = List.of(fields);
        if (list.isEmpty() || list.size() > 255) {
            throw new IllegalArgumentException("an index has 1 to 255 fields; got " + list.size());
        }
        List<String> targets = routing.clustered() ? routing.anyNodes() : nodes.ids();
        boolean changed = false;
        for (String node : targets) {
            changed |= nodes.await(nodes.call(node, false, c -> Frames.request(c.alloc(), op,
                    out -> IndexQueryWire.writeFields(out, name, list)), body -> Wire.readByte(body, "changed") != 0,
                    name));
        }
        return changed;
    }
}
