package io.sluice.pagestore.internal.page;

import io.sluice.DataRegionFullException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * Off-heap page memory: chunks of up to 64 MiB from a {@link ChunkAllocator} (never past the region's
 * maximum size), cut into fixed pages, given back to the system by {@link #close()}. A page id is the page's global index (chunk = id >>> chunkShift,
 * page within chunk = id & chunkMask); id 0 is never handed out and means "no page".
 *
 * <p>Every page has a lock word (see {@link #readLock}): readers share a page, one writer holds it
 * alone. The words live on the heap, 4 bytes per page, one array per chunk: a plain CAS on an
 * {@link AtomicIntegerArray} is cheaper than one through a view of the direct buffer. Multi-byte
 * values are big-endian (the buffers' default order), so that key prefixes compare as unsigned longs.
 *
 * <p>New pages only come from here; freed pages are kept for reuse by the free list.
 *
 * <p>Growing: once half of the newest chunk's pages are handed out, the next chunk is taken on a thread of
 * its own ({@link #mapAhead}), outside this object's lock. Taking a chunk costs ~25 ms of CPU a 64 MiB (its
 * memory written and mapped); taken under the lock, every thread wanting a new page waited that long, and
 * a region growing during a load stalled its writers (docs/benchmarks-results.md, 2026-11-27 16:28 entry).
 * So a region takes up to one chunk before it needs it, or more where it was told it will need more soon
 * ({@link #expect}: the pages its held index changes will take); never past its maximum size.
 * {@code -Dsluice.pageMemory.noMapAhead=true} turns it off, to compare.
 */
public final class PageMemory implements AutoCloseable {

    /** The "no page" id. */
    public static final long NULL_PAGE = 0;

    private static final long MAX_CHUNK_BYTES = 64L << 20;
    private static final int WRITER = 0x8000_0000;
    private static final int WRITER_WAITING = 0x4000_0000;
    private static final int READERS = 0x3FFF_FFFF;
    private static final boolean MAP_AHEAD = !Boolean.getBoolean("sluice.pageMemory.noMapAhead");

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
     * First page of the chunk the system last refused to allocate, or -1. Pages from there on fail at
     * once instead of each retrying a refused allocation (a direct one costs a collection each time).
     */
    private long refusedFrom = -1; // guarded by this
    private String refusal; // guarded by this
    private volatile long allocated;
    private final ChunkAllocator allocator;
    private boolean closed; // guarded by this
    /** The chunk a {@link #mapAhead} thread is taking, or -1. */
    private int mappingAhead = -1; // guarded by this
    /** Taking a chunk ahead failed other than by a refusal: none is taken ahead any more. */
    private boolean aheadFailed; // guarded by this
    /** Chunks up to this page are taken ahead ({@link #expect}). */
    private long expectedUpTo; // guarded by this

    public PageMemory(int pageSize, long initialSize, long maxSize) {
        this(pageSize, initialSize, maxSize, ChunkAllocator.fromSystem());
    }

    public PageMemory(int pageSize, long initialSize, long maxSize, ChunkAllocator allocator) {
        this.allocator = allocator;
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
     * @throws DataRegionFullException if the region's maximum size is reached, or the system refuses
     *                                 more memory
     */
    public synchronized long allocatePage() {
        if (closed) {
            throw new IllegalStateException("the data region is closed");
        }
        if (nextPage > maxPages) {
            throw new DataRegionFullException(maxSize, pageSize);
        }
        if (refusedFrom >= 0 && nextPage >= refusedFrom) {
            throw memoryRefused();
        }
        long id = nextPage;
        chunk(id);
        nextPage = id + 1;
        allocated = id;
        if ((id & chunkMask) == (chunkMask + 1) >>> 1) {
            startMappingAhead((int) (id >>> chunkShift) + 1);
        }
        return id;
    }

    /**
     * The region expects to need about {@code pages} new pages soon (its held index changes, which a query or the
     * next pass will write): the chunks they will take are taken ahead, one after another on a thread of their own.
     * A hint: pages are still handed out one by one, and a chunk needed before it is ready is waited for.
     */
    public synchronized void expect(long pages) {
        expectedUpTo = nextPage + pages;
        mapAheadForExpected();
    }

    /** Starts taking the first chunk not taken if it holds an expected page (and no chunk is being taken). */
    private void mapAheadForExpected() {
        if (mappingAhead >= 0 || closed) {
            return;
        }
        int c = (int) (nextPage >>> chunkShift);
        while (c < chunks.length && chunks[c] != null) {
            c++;
        }
        if ((long) c << chunkShift < Math.min(expectedUpTo, maxPages + 1)) { // the expected: nextPage to expectedUpTo - 1
            startMappingAhead(c);
        }
    }

    /** Starts taking chunk {@code c} on a thread of its own, unless it is taken, being taken or past the maximum. */
    private void startMappingAhead(int c) {
        long first = (long) c << chunkShift;
        if (!MAP_AHEAD || aheadFailed || c >= chunks.length || first > maxPages || chunks[c] != null || mappingAhead >= 0
                || (refusedFrom >= 0 && first >= refusedFrom)) {
            return;
        }
        Thread thread = new Thread(() -> mapAhead(c), "sluice-page-memory-ahead");
        thread.setDaemon(true);
        try {
            thread.start();
            mappingAhead = c; // under the lock the thread's end takes: set before it can clear it
        } catch (OutOfMemoryError e) {
            // no thread to spare: the chunk is taken when a page of it is needed, as without this
        }
    }

    /**
     * Takes chunk {@code c} outside the lock. A refusal counts as one met by a thread needing a page of it (pages
     * from there on fail when needed, and nothing asks the system again); after any other failure nothing more is
     * taken ahead (the thread needing the chunk asks for it itself). A chunk taken for a closed memory goes back.
     */
    private void mapAhead(int c) {
        ByteBuffer chunk = null;
        ChunkAllocator.ChunkRefusedException refused = null;
        boolean failed = false;
        try {
            chunk = allocator.allocate(chunkBytes(c));
        } catch (ChunkAllocator.ChunkRefusedException e) {
            refused = e;
        } catch (RuntimeException | Error e) {
            // any failure (an InternalError from a mapping the system could not back, too) must end this chunk's
            // taking below: a thread waiting for it would otherwise wait for ever; it then takes the chunk itself
            failed = true;
        }
        synchronized (this) {
            mappingAhead = -1;
            if (refused != null && refusedFrom < 0) {
                refusedFrom = (long) c << chunkShift;
                refusal = refused.getMessage();
            }
            aheadFailed |= failed;
            if (chunk != null) {
                if (closed || chunks[c] != null) {
                    allocator.free(chunk);
                } else {
                    locks[c] = new AtomicIntegerArray(chunk.capacity() >>> pageShift);
                    chunks[c] = chunk;
                    mapAheadForExpected();
                }
            }
            notifyAll();
        }
    }

    private int chunkBytes(int c) {
        long first = (long) c << chunkShift;
        return (int) (Math.min(chunkMask + 1, maxPages + 1 - first) << pageShift);
    }

    /** Waits (releasing the lock) while a {@link #mapAhead} thread takes chunk {@code c}, or any chunk if -1. */
    private void awaitMappingAhead(int c) {
        boolean interrupted = false;
        while (mappingAhead >= 0 && (c < 0 || mappingAhead == c)) {
            try {
                wait();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
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
        if (chunks[c] == null) {
            awaitMappingAhead(c);
        }
        ByteBuffer chunk = chunks[c];
        if (chunk == null) {
            long first = (long) c << chunkShift;
            int bytes = chunkBytes(c);
            try {
                chunk = allocator.allocate(bytes);
            } catch (ChunkAllocator.ChunkRefusedException e) {
                // The system has less memory than the region may take: refuse cleanly, now and for later pages.
                refusedFrom = first;
                refusal = e.getMessage();
                throw memoryRefused();
            }
            locks[c] = new AtomicIntegerArray(bytes >>> pageShift);
            chunks[c] = chunk;
        }
        return chunk;
    }

    private DataRegionFullException memoryRefused() {
        return new DataRegionFullException("data region is full: the system refused more memory after "
                + (refusedFrom - 1) * pageSize + " bytes of the region's " + maxSize + " bytes maximum: "
                + refusal + "; lower NodeConfig.dataRegionMaxSize or give the system more memory");
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

    /** What the pages are taken from, for logs. */
    public String describeMemory() {
        return allocator.describe();
    }

    /**
     * Gives every chunk back to the system now. The caller makes sure that no page is in use and none
     * will be (the region retires its partitions first): a page read after this is undefined.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        awaitMappingAhead(-1); // so that every chunk goes back now
        for (int c = 0; c < chunks.length; c++) {
            if (chunks[c] != null) {
                allocator.free(chunks[c]);
                chunks[c] = null;
                locks[c] = null;
            }
        }
    }
}
