package io.sluice.query.internal;

/**
 * One source of entries in index order, read a page at a time after the last index key it returned: a partition's
 * index tree on the node, a node's answers to INDEX_QUERY on the client. Pages start small (most sources of a merge
 * give few entries) and double, up to a maximum, while the source keeps being read; what it holds is one page.
 */
public abstract class PagedIndexEntries implements IndexEntries {

    private final int maxPage;
    private int nextPage;
    /** Entries still wanted in all (the query's limit): no page asks for more. */
    private long wanted;
    private IndexPage page;
    private int at = -1;
    private byte[] after;
    private boolean more = true;

    /**
     * @param after     the index key to start after (a page resumed), or null for the start
     * @param firstPage entries the first page asks for
     * @param maxPage   entries a page asks for at most
     * @param limit     entries wanted in all ({@link Long#MAX_VALUE}: all)
     */
    protected PagedIndexEntries(byte[] after, int firstPage, int maxPage, long limit) {
        this.after = after;
        this.maxPage = Math.max(1, maxPage);
        this.nextPage = Math.max(1, Math.min(firstPage, this.maxPage));
        this.wanted = limit;
    }

    /**
     * Reads up to {@code max} entries after {@code after} (a full index key this source returned, or null for the
     * start). A page with fewer entries and {@code more} set is allowed (the next fetch goes on after its last). The
     * page may be the one the previous fetch returned, cleared and filled again (this source no longer reads it).
     */
    protected abstract IndexPage fetch(byte[] after, int max);

    @Override
    public final boolean next() {
        while (page == null || at + 1 >= page.size()) {
            if (!more || wanted <= 0) {
                return false;
            }
            int max = (int) Math.min(nextPage, wanted);
            IndexPage fetched = fetch(after, max);
            nextPage = Math.min(maxPage, nextPage * 2);
            more = fetched.more() && fetched.size() > 0;
            page = fetched;
            at = -1;
            if (fetched.size() == 0) {
                return false;
            }
            after = fetched.indexKey(fetched.size() - 1); // a copy: the page may be refilled
        }
        at++;
        wanted--;
        return true;
    }

    @Override
    public final byte[] array() {
        return page.array();
    }

    @Override
    public final int indexKeyOffset() {
        return page.indexKeyOffset(at);
    }

    @Override
    public final int indexKeyLength() {
        return page.indexKeyLength(at);
    }

    @Override
    public final int keyLength() {
        return page.keyLength(at);
    }

    @Override
    public final byte[] value() {
        return page.value(at);
    }
}
