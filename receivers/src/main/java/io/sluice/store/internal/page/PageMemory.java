package io.sluice.store.internal.page;

import io.sluice.DataRegionFullException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Off-heap page memory: direct buffers taken in chunks of up to 64 MiB (never past the region's
 * maximum size), cut into fixed pages. A page id is the page's global index (chunk = id >>> chunkShift,
 * page within chunk = id & chunkMask); id 0 is never handed out and means "no page".
 *
 * <p>Every page has a lock word (see {@link #readLock}): readers share a page, one writer holds it
 * alone. The words live on the heap, 4 bytes per page, one array per chunk: a plain CAS on an
 * {@link AtomicIntegerArray} is cheaper than one through a view of the direct buffer. Multi-byte
 * values are big-endian (the buffers' default order), so that key prefixes compare as unsigned longs.
 *
 * <p>New pages only come from here; freed pages are kept for reuse by the free list.
 */
public final class PageMemory implements AutoCloseable {

    /** The "no page" id. */
    public static final long NULL_PAGE = 0;

    private static final long MAX_CHUNK_BYTES = 64L << 20;
    private static final int WRITER = 0x8000_0000;
    private static final int WRITER_WAITING = 0x4000_0000;
    private static final int READERS = 0x3FFF_FFFF;

    private final int pageSize;
    private final int pageShift;
    private final int chunkShift;
    private final long chunkMask;
    private final long maxPages;
    private final long maxSize;
    private final ByteBuffer[] chunks;
    private final AtomicIntegerArray[] locks;
    private long nextPage = 1; // guarded by this
    /**
     * First page of the chunk the JVM last refused to allocate (direct memory limit), or -1. Pages from
     * there on fail at once instead of each paying the JDK's collect-and-retry of a refused allocation.
     */
    private long refusedFrom = -1; // guarded by this
    private volatile long allocated;

    public PageMemory(int pageSize, long initialSize, long maxSize) {
        this.pageSize = pageSize;
        this.pageShift = Integer.numberOfTrailingZeros(pageSize);
        this.maxSize = maxSize;
        this.maxPages = maxSize / pageSize;
        long pagesPerChunk = MAX_CHUNK_BYTES / pageSize;
        this.chunkShift = Long.numberOfTrailingZeros(pagesPerChunk);
        this.chunkMask = pagesPerChunk - 1;
        long chunkCount = (maxPages + pagesPerChunk) / pagesPerChunk; // + 1 page: id 0 is never used
        if (chunkCount > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("data region maxSize " + maxSize + " needs " + chunkCount + " chunks");
        }
        this.chunks = new ByteBuffer[(int) chunkCount];
        this.locks = new AtomicIntegerArray[(int) chunkCount];
        long initialPages = Math.min(maxPages, initialSize / pageSize);
        for (long c = 0; c <= initialPages >>> chunkShift && initialPages > 0; c++) {
            chunk(c << chunkShift);
        }
    }

    public int pageSize() {
        return pageSize;
    }

    /** Pages handed out so far (in use or kept for reuse). */
    public long allocatedPages() {
        return allocated;
    }

    /** The most pages this memory may hand out. */
    public long maxPages() {
        return maxPages;
    }

    /**
     * A never-used page, zero-filled.
     *
     * @throws DataRegionFullException if the region's maximum size is reached, or the JVM refuses more
     *                                 direct memory
     */
    public synchronized long allocatePage() {
        if (nextPage > maxPages) {
            throw new DataRegionFullException(maxSize, pageSize);
        }
        if (refusedFrom >= 0 && nextPage >= refusedFrom) {
            throw directMemoryRefused();
        }
        long id = nextPage;
        chunk(id);
        nextPage = id + 1;
        allocated = id;
        return id;
    }

    /** The buffer holding the page; use it with {@link #offset(long)} and absolute accessors. */
    public ByteBuffer buffer(long pageId) {
        return chunks[(int) (pageId >>> chunkShift)];
    }

    /** The page's first byte within {@link #buffer(long)}. */
    public int offset(long pageId) {
        return (int) (pageId & chunkMask) << pageShift;
    }

    private ByteBuffer chunk(long pageId) {
        int c = (int) (pageId >>> chunkShift);
        ByteBuffer chunk = chunks[c];
        if (chunk == null) {
            long first = (long) c << chunkShift;
            long pages = Math.min(chunkMask + 1, maxPages + 1 - first);
            try {
                chunk = ByteBuffer.allocateDirect((int) (pages << pageShift));
            } catch (OutOfMemoryError e) {
                // -XX:MaxDirectMemorySize is smaller than the region: refuse cleanly, now and for later pages.
                refusedFrom = first;
                throw directMemoryRefused();
            }
            locks[c] = new AtomicIntegerArray((int) pages);
            chunks[c] = chunk;
        }
        return chunk;
    }

    private DataRegionFullException directMemoryRefused() {
        return new DataRegionFullException("data region is full: the JVM refused more direct memory after "
                + (refusedFrom - 1) * pageSize + " bytes of the region's " + maxSize + " bytes maximum; raise "
                + "-XX:MaxDirectMemorySize to at least NodeConfig.dataRegionMaxSize (" + maxSize + " bytes), "
                + "or lower that maximum");
    }

    // ---- per-page read/write lock ----
    // bit 31: a writer holds the page; bit 30: a writer waits (new readers hold back); bits 0-29: readers.

    public void readLock(long pageId) {
        AtomicIntegerArray words = locks[(int) (pageId >>> chunkShift)];
        int at = (int) (pageId & chunkMask);
        for (int spins = 0; ; spins++) {
            int s = words.get(at);
            if ((s & (WRITER | WRITER_WAITING)) == 0 && words.compareAndSet(at, s, s + 1)) {
                return;
            }
            backOff(spins);
        }
    }

    public void readUnlock(long pageId) {
        locks[(int) (pageId >>> chunkShift)].getAndDecrement((int) (pageId & chunkMask));
    }

    public void writeLock(long pageId) {
        AtomicIntegerArray words = locks[(int) (pageId >>> chunkShift)];
        int at = (int) (pageId & chunkMask);
        for (int spins = 0; ; spins++) {
            int s = words.get(at);
            if ((s & (WRITER | READERS)) == 0) {
                if (words.compareAndSet(at, s, WRITER)) {
                    return;
                }
            } else if ((s & WRITER_WAITING) == 0) {
                words.compareAndSet(at, s, s | WRITER_WAITING);
            }
            backOff(spins);
        }
    }

    public void writeUnlock(long pageId) {
        locks[(int) (pageId >>> chunkShift)].lazySet((int) (pageId & chunkMask), 0); // a release store suffices
    }

    private static void backOff(int spins) {
        if (spins < 100) {
            Thread.onSpinWait();
        } else {
            Thread.yield();
        }
    }

    @Override
    public synchronized void close() {
        // Direct buffers are released by the GC once unreachable; drop our references.
        java.util.Arrays.fill(chunks, null);
        java.util.Arrays.fill(locks, null);
    }
}
