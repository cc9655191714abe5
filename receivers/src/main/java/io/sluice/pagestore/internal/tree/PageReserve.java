package io.sluice.pagestore.internal.tree;

import io.sluice.pagestore.internal.page.FreePages;
import java.util.Arrays;

/**
 * The empty pages a {@link BPlusTree} takes before an insert changes anything (a split per level and a new
 * root), so that an insert never fails half way: allocate before you mutate. Held only while writes go on;
 * given back when a walk ends or the tree empties, so an idle partition holds no empty pages.
 * Under the tree's writer (the partition's write lock).
 */
final class PageReserve {

    private final FreePages freeList;
    /** Empty pages taken (null until the first insert). */
    private long[] pages;
    private int reserved;

    PageReserve(FreePages freeList) {
        this.freeList = freeList;
    }

    /** Whether at least {@code need} pages are held (the usual case: a split used none since the last fill). */
    boolean holds(int need) {
        return reserved >= need;
    }

    /**
     * Takes empty pages until {@code need} are held.
     *
     * @throws io.sluice.DataRegionFullException if the region cannot give them (the pages held stay held)
     */
    void fill(int need) {
        if (pages == null || pages.length < need) {
            pages = pages == null ? new long[need + 1] : Arrays.copyOf(pages, need + 1);
        }
        while (reserved < need) {
            pages[reserved] = freeList.takeEmptyPage();
            reserved++;
        }
    }

    /** One of the pages held, for a split or a new root. */
    long take() {
        if (reserved == 0) {
            throw new IllegalStateException("tree insert without reserveForInsert()");
        }
        return pages[--reserved];
    }

    /** Gives every page held back to the free list. */
    void release() {
        while (reserved > 0) {
            freeList.releaseEmptyPage(pages[--reserved]);
        }
    }
}
