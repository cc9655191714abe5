package io.sluice.pagestore.internal.freelist;

import io.sluice.pagestore.internal.page.DataPageIO;
import io.sluice.pagestore.internal.page.FreePages;
import io.sluice.pagestore.internal.page.PageCheck;
import io.sluice.pagestore.internal.page.PageHeader;
import io.sluice.pagestore.internal.page.PageMemory;
import java.nio.ByteBuffer;

/**
 * The free list of a data region, shared by all its partitions: data pages bucketed by the room they
 * have for a new row (256 buckets of pageSize/256 bytes), and a reuse bucket of empty pages that any
 * page type can take before new pages are allocated. Thread-safe (one monitor).
 *
 * <p>A writer takes a data page out of its bucket ({@link #takeDataPage}), fills it under the page's
 * write lock, and puts it back once ({@link #putBack}); while taken, no other writer adds rows to it
 * (rows may still be removed from it; {@link #putBack} reads its free space then). The lists link
 * through the pages' own headers ({@link PageHeader} bytes 5-23), so the list costs no heap per page.
 */
public final class FreeList implements FreePages {

    private static final int BUCKETS = 256;
    private static final byte NOT_LISTED = 0;
    private static final byte IN_BUCKET = 1;
    private static final byte IN_REUSE = 2;

    private final PageMemory memory;
    private final int pageSize;
    private final int bucketShift;
    private final long[] heads = new long[BUCKETS];
    private final long[] nonEmpty = new long[BUCKETS / 64];
    private long reuseHead;
    private long reusePages;

    public FreeList(PageMemory memory) {
        this.memory = memory;
        this.pageSize = memory.pageSize();
        this.bucketShift = Integer.numberOfTrailingZeros(pageSize / BUCKETS);
    }

    /** Pages in the reuse bucket. */
    public synchronized long reusePages() {
        return reusePages;
    }

    /**
     * A data page with room for a new row of {@code need} bytes (row header included), taken out of the
     * list until {@link #putBack}: a partly filled page first, then an empty one, then a new one.
     *
     * @throws io.sluice.DataRegionFullException if no page has room and the region cannot grow
     */
    @Override
    public synchronized long takeDataPage(int need) {
        return takeDataPage(need, need);
    }

    /**
     * Like {@link #takeDataPage(int)}, preferring a page with room for {@code want} bytes (a batch about
     * to fill it): else the roomiest with at least a quarter of that, else an empty page.
     */
    @Override
    public synchronized long takeDataPage(int need, int want) {
        int bucket = (need + (1 << bucketShift) - 1) >>> bucketShift;
        int found = -1;
        // The last bucket holds every page with at least its floor of room: it only promises that much.
        if (bucket < BUCKETS) {
            int wanted = Math.min(BUCKETS - 1, Math.max(bucket, (want + (1 << bucketShift) - 1) >>> bucketShift));
            found = nextNonEmpty(wanted);
            if (found < 0) { // a page with a quarter of the wanted room, else an empty one: few pages per batch
                found = previousNonEmpty(wanted - 1, Math.max(bucket, wanted / 4));
            }
        }
        if (found >= 0) {
            long page = heads[found];
            unlink(page, found);
            return page;
        }
        long page = takeEmpty();
        DataPageIO.init(memory.buffer(page), memory.offset(page), pageSize);
        return page;
    }

    /** An empty page (reused or new) for any use; return it with {@link #releaseEmptyPage}. */
    @Override
    public synchronized long takeEmptyPage() {
        return takeEmpty();
    }

    /** Returns a page its user emptied (a fragment or tree page, or a data page without rows). */
    @Override
    public synchronized void releaseEmptyPage(long page) {
        pushReuse(page);
    }

    /** Returns a taken data page to the bucket its free space says (or to reuse if it has no rows). */
    @Override
    public synchronized void putBack(long page) {
        list(page);
    }

    /**
     * Takes a listed data page out of its bucket (to grow a row in it); false if another writer has
     * taken it, whose room must not shrink under it.
     */
    @Override
    public synchronized boolean tryTake(long page) {
        ByteBuffer b = memory.buffer(page);
        int p = memory.offset(page);
        if (b.get(p + PageHeader.FREE_LIST_STATE) != IN_BUCKET) {
            return false;
        }
        unlink(page, b.getShort(p + PageHeader.FREE_LIST_BUCKET));
        return true;
    }

    /**
     * A row was removed from (or shrank in) a data page: moves the page to the bucket it now belongs to.
     * A page some writer has taken stays with that writer, whose {@link #putBack} sees the new space.
     */
    @Override
    public synchronized void rowRemoved(long page) {
        ByteBuffer b = memory.buffer(page);
        int p = memory.offset(page);
        byte state = b.get(p + PageHeader.FREE_LIST_STATE);
        if (state == IN_BUCKET) {
            unlink(page, b.getShort(p + PageHeader.FREE_LIST_BUCKET));
            list(page);
        }
    }

    private void list(long page) {
        ByteBuffer b = memory.buffer(page);
        int p = memory.offset(page);
        int live;
        int space;
        // Lock order is free list, then page: no one calls the free list while holding a page lock.
        memory.readLock(page); // a writer of another partition may be removing a row right now
        try {
            live = DataPageIO.liveRows(b, p);
            space = DataPageIO.spaceForNewRow(b, p);
        } finally {
            memory.readUnlock(page);
        }
        if (live == 0) {
            pushReuse(page);
            return;
        }
        int bucket = Math.min(BUCKETS - 1, space >>> bucketShift);
        long head = heads[bucket];
        b.put(p + PageHeader.FREE_LIST_STATE, IN_BUCKET);
        b.putShort(p + PageHeader.FREE_LIST_BUCKET, (short) bucket);
        b.putLong(p + PageHeader.FREE_LIST_NEXT, head);
        b.putLong(p + PageHeader.FREE_LIST_PREV, PageMemory.NULL_PAGE);
        if (head != PageMemory.NULL_PAGE) {
            memory.buffer(head).putLong(memory.offset(head) + PageHeader.FREE_LIST_PREV, page);
        }
        heads[bucket] = page;
        nonEmpty[bucket >>> 6] |= 1L << bucket;
    }

    private void unlink(long page, int bucket) {
        ByteBuffer b = memory.buffer(page);
        int p = memory.offset(page);
        long next = b.getLong(p + PageHeader.FREE_LIST_NEXT);
        long prev = b.getLong(p + PageHeader.FREE_LIST_PREV);
        if (prev != PageMemory.NULL_PAGE) {
            memory.buffer(prev).putLong(memory.offset(prev) + PageHeader.FREE_LIST_NEXT, next);
        } else {
            heads[bucket] = next;
            if (next == PageMemory.NULL_PAGE) {
                nonEmpty[bucket >>> 6] &= ~(1L << bucket);
            }
        }
        if (next != PageMemory.NULL_PAGE) {
            memory.buffer(next).putLong(memory.offset(next) + PageHeader.FREE_LIST_PREV, prev);
        }
        b.put(p + PageHeader.FREE_LIST_STATE, NOT_LISTED);
    }

    private int nextNonEmpty(int bucket) {
        for (int w = bucket >>> 6; w < nonEmpty.length; w++) {
            long bits = nonEmpty[w];
            if (w == bucket >>> 6) {
                bits &= -1L << bucket;
            }
            if (bits != 0) {
                return (w << 6) + Long.numberOfTrailingZeros(bits);
            }
        }
        return -1;
    }

    /** The highest non-empty bucket in [low, from], or -1. */
    private int previousNonEmpty(int from, int low) {
        if (from < low) {
            return -1;
        }
        for (int w = from >>> 6; w >= low >>> 6; w--) { // a word of 64 buckets at a time
            long bits = nonEmpty[w];
            if (w == from >>> 6) {
                bits &= -1L >>> (63 - (from & 63)); // buckets <= from
            }
            if (bits != 0) {
                int b = (w << 6) + 63 - Long.numberOfLeadingZeros(bits);
                return b >= low ? b : -1;
            }
        }
        return -1;
    }

    private long takeEmpty() {
        long page = reuseHead;
        if (page != PageMemory.NULL_PAGE) {
            ByteBuffer b = memory.buffer(page);
            int p = memory.offset(page);
            reuseHead = b.getLong(p + PageHeader.FREE_LIST_NEXT);
            reusePages--;
            b.put(p + PageHeader.FREE_LIST_STATE, NOT_LISTED);
            return page;
        }
        return memory.allocatePage();
    }

    private void pushReuse(long page) {
        ByteBuffer b = memory.buffer(page);
        int p = memory.offset(page);
        PageHeader.type(b, p, PageHeader.TYPE_FREE);
        b.put(p + PageHeader.FREE_LIST_STATE, IN_REUSE);
        b.putLong(p + PageHeader.FREE_LIST_NEXT, reuseHead);
        reuseHead = page;
        reusePages++;
    }

    /**
     * Checks the lists against the pages (for a store consistency check, while no writer runs): every page
     * in the reuse bucket is a free page marked so and used by nothing else, and their number is the one
     * counted; every page in a bucket is a data page marked as in that bucket, with live rows, consistent
     * bookkeeping, and the room for a new row the bucket promises; no list runs in a cycle.
     */
    public synchronized void check(PageCheck check) {
        long seen = 0;
        for (long page = reuseHead; page != PageMemory.NULL_PAGE; seen++) {
            String at = "free list, reuse bucket, entry " + seen;
            if (seen > reusePages) {
                check.problem(at + ": the reuse bucket holds more pages than the " + reusePages + " it counts");
                break;
            }
            if (!check.claim(page, PageCheck.FREE, at)) { // also a cycle: the page was seen before
                break;
            }
            ByteBuffer b = memory.buffer(page);
            int p = memory.offset(page);
            if (PageHeader.type(b, p) != PageHeader.TYPE_FREE || b.get(p + PageHeader.FREE_LIST_STATE) != IN_REUSE) {
                check.problem(at + ": page " + page + " has type " + PageHeader.type(b, p) + " and list state "
                        + b.get(p + PageHeader.FREE_LIST_STATE) + ", not a free page in the reuse bucket");
            }
            page = b.getLong(p + PageHeader.FREE_LIST_NEXT);
        }
        if (seen != reusePages && seen <= reusePages) {
            check.problem("free list, reuse bucket: it counts " + reusePages + " pages but links " + seen);
        }
        java.util.Set<Long> listed = new java.util.HashSet<>();
        for (int bucket = 0; bucket < BUCKETS; bucket++) {
            boolean marked = (nonEmpty[bucket >>> 6] & 1L << bucket) != 0;
            if (marked != (heads[bucket] != PageMemory.NULL_PAGE)) {
                check.problem("free list, bucket " + bucket + ": its non-empty bit is " + marked + " but its head is page "
                        + heads[bucket]);
            }
            long prev = PageMemory.NULL_PAGE;
            int i = 0;
            for (long page = heads[bucket]; page != PageMemory.NULL_PAGE; i++) {
                String at = "free list, bucket " + bucket + ", entry " + i + ", page " + page;
                if (!check.valid(page)) {
                    check.problem(at + ": not an allocated page");
                    break;
                }
                if (!listed.add(page)) {
                    check.problem(at + ": the page is listed twice (a cycle, or in two buckets)");
                    break;
                }
                ByteBuffer b = memory.buffer(page);
                int p = memory.offset(page);
                if (PageHeader.type(b, p) != PageHeader.TYPE_DATA) {
                    check.problem(at + ": type " + PageHeader.type(b, p) + ", not a data page");
                    break;
                }
                if (!check.claim(page, PageCheck.DATA, at)) {
                    break;
                }
                if (b.get(p + PageHeader.FREE_LIST_STATE) != IN_BUCKET || b.getShort(p + PageHeader.FREE_LIST_BUCKET) != bucket
                        || b.getLong(p + PageHeader.FREE_LIST_PREV) != prev) {
                    check.problem(at + ": its header says list state " + b.get(p + PageHeader.FREE_LIST_STATE)
                            + ", bucket " + b.getShort(p + PageHeader.FREE_LIST_BUCKET) + ", previous page "
                            + b.getLong(p + PageHeader.FREE_LIST_PREV) + " (expected 1, " + bucket + ", " + prev + ")");
                }
                String wrong = check.dataPageProblem(page);
                if (wrong != null) {
                    check.problem(at + ": " + wrong);
                } else {
                    int space = DataPageIO.spaceForNewRow(b, p);
                    int claims = Math.min(BUCKETS - 1, space >>> bucketShift);
                    if (DataPageIO.liveRows(b, p) == 0) {
                        check.problem(at + ": an empty data page in a bucket (it belongs in the reuse bucket)");
                    } else if (claims != bucket) {
                        check.problem(at + ": it has room for " + space + " bytes, which is bucket " + claims
                                + ", not the bucket it is in");
                    }
                }
                prev = page;
                page = b.getLong(p + PageHeader.FREE_LIST_NEXT);
            }
        }
    }
}
