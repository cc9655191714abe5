package io.sluice.node.internal;

import io.sluice.pagestore.internal.PartitionStore;
import io.sluice.query.internal.IndexBounds;
import io.sluice.query.internal.IndexPage;
import io.sluice.query.internal.PagedIndexEntries;

/**
 * One partition's entries of an index within bounds, read a page at a time (each page under the read lock once),
 * into one page object reused from page to page.
 */
final class PartitionIndexEntries extends PagedIndexEntries {

    private final PartitionStore store;
    private final int indexId;
    private final IndexBounds bounds;
    private IndexPage page;

    PartitionIndexEntries(PartitionStore store, int indexId, IndexBounds bounds, byte[] after, int firstPage,
                          int maxPage, long limit) {
        super(after, firstPage, maxPage, limit);
        this.store = store;
        this.indexId = indexId;
        this.bounds = bounds;
    }

    @Override
    protected IndexPage fetch(byte[] after, int max) {
        if (page == null) {
            page = new IndexPage(max);
        }
        page.clear();
        boolean full = store.index().page(indexId, bounds.lower(), bounds.lowerInclusive(), bounds.upper(),
                bounds.upperInclusive(), after, max, page);
        return page.more(full);
    }
}
