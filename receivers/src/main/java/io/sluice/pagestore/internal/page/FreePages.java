package io.sluice.pagestore.internal.page;

/**
 * Where rows and trees take the pages they write and give them back: the region's free list
 * ({@code freelist.FreeList}, the one implementation). Declared here, below the free list, so that the
 * page layer does not depend on it (the free list reads and links pages through their headers).
 * Thread-safe: any writer may call it.
 */
public interface FreePages {

    /**
     * A data page with room for a new row of {@code need} bytes (row header included), taken out of the
     * list until {@link #putBack}: a partly filled page first, then an empty one, then a new one.
     *
     * @throws io.sluice.DataRegionFullException if no page has room and the region cannot grow
     */
    long takeDataPage(int need);

    /**
     * Like {@link #takeDataPage(int)}, preferring a page with room for {@code want} bytes (a batch about
     * to fill it): else the roomiest with at least a quarter of that, else an empty page.
     */
    long takeDataPage(int need, int want);

    /**
     * An empty page (reused or new) for any use; return it with {@link #releaseEmptyPage}.
     *
     * @throws io.sluice.DataRegionFullException if none is left and the region cannot grow
     */
    long takeEmptyPage();

    /** Returns a page its user emptied (a fragment or tree page, or a data page without rows). */
    void releaseEmptyPage(long page);

    /** Returns a taken data page to the list, where its free space says. */
    void putBack(long page);

    /**
     * Takes a listed data page out of the list (to grow a row in it); false if another writer has
     * taken it, whose room must not shrink under it.
     */
    boolean tryTake(long page);

    /** A row was removed from (or shrank in) a data page: the page is listed where its room now says. */
    void rowRemoved(long page);
}
