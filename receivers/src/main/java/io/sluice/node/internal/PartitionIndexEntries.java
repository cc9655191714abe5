package io.sluice.node.internal;

import io.sluice.pagestore.internal.PartitionStore;
import io.sluice.query.internal.IndexBounds;
import io.sluice.query.internal.IndexPage;
import io.sluice.query.internal.PagedIndexEntries;

/** One partition's entries of an index within bounds, read a page at a time (each page under the read lock once). */
final class PartitionIndexEntries extends PagedIndexEntries {

    private final PartitionStore store;
    private final int indexId;
    private final IndexBounds bounds;

    PartitionIndexEntries(PartitionStore store, int indexId, IndexBounds bounds, byte[] after, int firstPage,
                          int maxPage, long limit) {
        super(after, firstPage, maxPage, limit);
        this.store = store;
        this.indexId = indexId;
        this.bounds = bounds;
    }

    @Override
    protected IndexPage fetch(byte[] after, int max) {
        IndexPage page = new IndexPage(max);
        store.indexScan(indexId, bounds.lower(), bounds.lowerInclusive(), bounds.upper(), bounds.upperInclusive(),
                after, (indexKey, key, value) -> {
                    page.add(indexKey, key, value);
                    return page.size() < max;
                });
        return page.more(page.size() >= max);
    }
}
