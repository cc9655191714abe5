package io.sluice.node.internal;

import io.sluice.IndexFieldTypeConflictException;
import io.sluice.IndexValueTypeException;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.pagestore.internal.PartitionStore;
import io.sluice.pagestore.internal.index.IndexSpec;
import io.sluice.query.internal.IndexBounds;
import io.sluice.query.internal.IndexEntries;
import io.sluice.query.internal.IndexMerge;
import io.sluice.query.internal.IndexPage;

import java.util.ArrayList;
import java.util.List;

/**
 * Reading a cache's index across partitions: the partitions' entries merged by index key ({@link #open}), a page of
 * them for a remote client ({@link #page}), and the type checks a query passes first ({@link #checkTypes}).
 *
 * <p>Memory: each partition's source holds one page, which starts at {@link #FIRST_PAGE} entries (fewer for a small
 * limit: {@link #firstPage}) and doubles while it is read, up to {@link #MAX_BUFFERED} entries spread over the
 * partitions read (at least {@link #FIRST_PAGE} each).
 */
public final class IndexReads {

    /** Entries a partition's first page asks for (most partitions of a selective query give few). */
    static final int FIRST_PAGE = 16;
    /** Entries buffered at most across the partitions of one query, once every page has grown. */
    static final int MAX_BUFFERED = 65_536;
    /** Entries one partition's page asks for at most. */
    static final int MAX_PAGE = 1024;

    private IndexReads() {
    }

    /**
     * A cache's query (every partition): the index by its fields, the types checked, the entries within the bounds
     * merged in index order, at most {@code limit}.
     *
     * @throws io.sluice.IndexNotFoundException if the cache has no index on the fields
     * @throws IllegalStateException if the index is being built
     */
    static IndexEntries query(CacheCore core, List<String> fields, IndexBounds bounds, long limit) {
        IndexSpec spec = core.indexes().readable(fields);
        PartitionStore[] partitions = new PartitionStore[core.partitions()];
        for (int p = 0; p < partitions.length; p++) {
            partitions[p] = core.store(p);
        }
        applyHeld(partitions);
        checkTypes(core.config().name(), partitions, spec, bounds);
        return open(partitions, spec, bounds, null, limit);
    }

    /**
     * Applies the index changes the partitions hold (after a streamed load, up to a few batches' each), on the
     * common pool's threads and this one: each partition's read would apply its own, one partition after another.
     */
    private static void applyHeld(PartitionStore[] partitions) {
        if (partitions.length > 1) {
            java.util.Arrays.stream(partitions).parallel().forEach(p -> p.index().applyHeld());
        }
    }

    /**
     * A page of a cache's query over some partitions (INDEX_QUERY): up to {@code pageSize} entries after
     * {@code after}, in index order, and whether more follow; the first page (no after) checks the types first.
     *
     * @throws io.sluice.IndexNotFoundException if the cache has no index on the fields
     * @throws IllegalStateException if the index is being built, or the node is closed
     */
    public static IndexPage page(NodeCache<?, ?> cache, List<String> fields, IndexBounds bounds, byte[] after,
                                 int pageSize, int[] partitions) {
        CacheCore core = cache.core();
        core.services().state().ensureOpen();
        IndexSpec spec = core.indexes().readable(fields);
        PartitionStore[] stores = new PartitionStore[partitions.length];
        for (int i = 0; i < partitions.length; i++) {
            stores[i] = core.store(partitions[i]);
        }
        if (after == null) {
            applyHeld(stores);
            checkTypes(core.config().name(), stores, spec, bounds);
        }
        return page(stores, spec, bounds, after, pageSize);
    }

    /**
     * The entries of the partitions within the bounds, merged in index order, after {@code after} (or from the
     * start), at most {@code limit}.
     */
    static IndexEntries open(PartitionStore[] partitions, IndexSpec spec, IndexBounds bounds, byte[] after,
                             long limit) {
        int maxPage = Math.max(FIRST_PAGE, Math.min(MAX_PAGE, MAX_BUFFERED / Math.max(1, partitions.length)));
        int firstPage = firstPage(limit, partitions.length);
        List<IndexEntries> sources = new ArrayList<>(partitions.length);
        for (PartitionStore store : partitions) {
            sources.add(new PartitionIndexEntries(store, spec.id(), bounds, after, firstPage, maxPage, limit));
        }
        return sources.size() == 1 ? sources.get(0) : new IndexMerge(sources);
    }

    /**
     * Entries a partition's first page asks for: {@link #FIRST_PAGE}, or fewer when the limit (a query's, or a
     * remote page's size) is small for the partitions: twice the limit's share of each, at least one; every first
     * page reads its entries' values, so {@code partitions × FIRST_PAGE} of them for a limit of 100 would be read
     * to return 100.
     */
    static int firstPage(long limit, int partitions) {
        long share = (Math.min(limit, FIRST_PAGE * (long) partitions) * 2 + partitions - 1) / Math.max(1, partitions);
        return (int) Math.max(1, Math.min(FIRST_PAGE, share));
    }

    /** Up to {@code pageSize} entries after {@code after} (INDEX_QUERY), and whether more follow. */
    static IndexPage page(PartitionStore[] partitions, IndexSpec spec, IndexBounds bounds, byte[] after,
                          int pageSize) {
        IndexPage page = new IndexPage(pageSize);
        try (IndexEntries entries = open(partitions, spec, bounds, after, pageSize + 1L)) {
            while (entries.next()) {
                if (page.size() == pageSize) {
                    return page.more(true);
                }
                page.add(entries.array(), entries.indexKeyOffset(), entries.indexKeyLength(), entries.keyLength(),
                        entries.value());
            }
        }
        return page.more(false);
    }

    /**
     * Checks the index's first field: the partitions' entries hold it as one type (else
     * {@link IndexFieldTypeConflictException}), and the bounds' values are of that type (else
     * {@link IndexValueTypeException}). Nulls are left out of both checks. Two seeks per partition: the first
     * non-null tag, then any tag after it (index keys only: no entry is read).
     */
    static void checkTypes(String cache, PartitionStore[] partitions, IndexSpec spec, IndexBounds bounds) {
        int tag = -1;
        String field = spec.fields().get(0);
        for (PartitionStore store : partitions) {
            int first = firstTag(store, spec.id(), 1);
            if (first < 0) {
                continue;
            }
            int other = tag >= 0 && tag != first ? tag : firstTag(store, spec.id(), first + 1);
            if (other >= 0) {
                throw new IndexFieldTypeConflictException("entries of cache '" + cache + "' hold field '" + field
                        + "' (the first field of index " + spec.fields() + ") as different types: "
                        + BinaryContext.tagName(Math.min(first, other)) + " and "
                        + BinaryContext.tagName(Math.max(first, other)) + "; an index orders one type, so rewrite the"
                        + " entries of the other");
            }
            tag = first;
        }
        if (tag < 0) {
            return; // nothing indexed: nothing to compare a value with
        }
        checkValue(cache, spec, field, tag, bounds.lower());
        checkValue(cache, spec, field, tag, bounds.upper());
    }

    private static void checkValue(String cache, IndexSpec spec, String field, int tag, byte[] bound) {
        if (bound == null || bound.length == 0 || bound[0] == 0) {
            return;
        }
        int given = bound[0] & 0xFF;
        if (given != tag) {
            throw new IndexValueTypeException("field '" + field + "' of index " + spec.fields() + " of cache '" + cache
                    + "' holds " + BinaryContext.tagName(tag) + " values; the query gave a "
                    + BinaryContext.tagName(given) + " (values compare by their encoding: pass a "
                    + BinaryContext.tagName(tag) + ")");
        }
    }

    /** The tag of the first entry whose first field's tag is at least {@code from}, or -1 if none is. */
    private static int firstTag(PartitionStore store, int indexId, int from) {
        if (from > 0xFF) {
            return -1;
        }
        byte[] first = store.index().firstKey(indexId, new byte[]{(byte) from});
        return first == null ? -1 : first[0] & 0xFF;
    }
}
