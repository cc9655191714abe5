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

    RemoteIndexes(String name, int partitions, Nodes nodes, Routing routing, BinaryContext binary) {
        this.name = name;
        this.partitions = partitions;
        this.nodes = nodes;
        this.routing = routing;
        this.binary = binary;
    }

    /** Entries an INDEX_QUERY page asks for at first, and at most (pages double while the query is read). */
    private static final int QUERY_FIRST_PAGE = 256;

    /**
     * Every node is asked for its entries (in a cluster, each member for the partitions the map gives it, naming
     * them), page by page, and the answers are merged by index key.
     */
    /** The query's entries, decoded (keys and values as binary objects with keepBinary). */
    Stream<Map.Entry<Object, Object>> query(IndexQuery query, boolean keepBinary) {
        Objects.requireNonNull(query, "query");
        if (query.fields().size() > 255) {
            throw new IllegalArgumentException("an index query names at most 255 fields; got " + query.fields().size());
        }
        IndexBounds bounds = IndexBounds.of(query, binary);
        Map<String, int[]> members = queryMembers();
        List<NodeIndexEntries> sources = new ArrayList<>(members.size());
        for (Map.Entry<String, int[]> m : members.entrySet()) {
            sources.add(new NodeIndexEntries(m.getKey(), m.getValue(), query, bounds));
        }
        IndexEntries entries = sources.size() == 1 ? sources.get(0) : new IndexMerge(sources);
        List<String> asked = List.copyOf(members.keySet());
        return IndexStreams.open(entries, query.limit(), at -> new AbstractMap.SimpleImmutableEntry<>(
                decodeFrom(asked, at.key(), keepBinary), decodeFrom(asked, at.value(), keepBinary)));
    }

    /**
     * The nodes a query asks and the partitions each reads: standalone, every node and all it has (null); in a
     * cluster, each member the partitions the map gives it.
     *
     * @throws NodeUnreachableException if a partition has no owner, even after the map was asked again
     */
    private Map<String, int[]> queryMembers() {
        Map<String, int[]> members = new LinkedHashMap<>();
        if (!routing.clustered()) {
            for (String node : nodes.ids()) {
                members.put(node, null);
            }
            return members;
        }
        for (int attempt = 0; ; attempt++) {
            Map<String, List<Integer>> owned = new LinkedHashMap<>();
            List<Integer> unowned = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                String owner = routing.owner(p, partitions);
                if (owner == null) {
                    unowned.add(p);
                } else {
                    owned.computeIfAbsent(owner, o -> new ArrayList<>()).add(p);
                }
            }
            if (unowned.isEmpty()) {
                owned.forEach((node, list) -> members.put(node, list.stream().mapToInt(Integer::intValue).toArray()));
                return members;
            }
            if (attempt == 1) {
                throw routing.noOwner("query of cache '" + name + "'", unowned, 2, null);
            }
            nodes.await(routing.refresh(null));
        }
    }

    /** One node's answers to a query, page by page (INDEX_QUERY with the last index key seen). */
    private final class NodeIndexEntries extends PagedIndexEntries {
        private final String node;
        private final int[] nodePartitions;
        private final IndexQuery query;
        private final IndexBounds bounds;

        NodeIndexEntries(String node, int[] nodePartitions, IndexQuery query, IndexBounds bounds) {
            super(null, QUERY_FIRST_PAGE, IndexQueryWire.MAX_PAGE, query.limit());
            this.node = node;
            this.nodePartitions = nodePartitions;
            this.query = query;
            this.bounds = bounds;
        }

        @Override
        protected IndexPage fetch(byte[] after, int max) {
            IndexQueryWire.Request request = new IndexQueryWire.Request(name, query.fields(), bounds, after, max,
                    nodePartitions);
            try {
                return nodes.await(nodes.call(node, true, c -> Frames.request(c.alloc(), Op.INDEX_QUERY,
                        out -> IndexQueryWire.writeRequest(out, request)), IndexQueryWire::readPage, name));
            } catch (NotOwnerException moved) {
                throw new SluiceException("query of cache '" + name + "': node '" + node + "' no longer serves some of"
                        + " its partitions (the cluster's map changed during the query); run the query again", moved);
            }
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
