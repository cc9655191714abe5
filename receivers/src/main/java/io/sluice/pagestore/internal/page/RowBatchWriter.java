package io.sluice.pagestore.internal.page;

import io.sluice.protocol.internal.EntryBatch;
import java.nio.ByteBuffer;

/**
 * Writes the rows of one batch: each row's whole-page fragments go straight onto empty pages, and the
 * heads are packed into one data page taken from the free list and filled until the next head does not
 * fit, then put back once and the next taken. Use {@link #begin}, {@link #add}..., {@link #finish}
 * (always, also after a failure). Not thread-safe: one per writing thread, used under the written
 * partition's write lock.
 *
 * <p>Page locks: a page that had rows when it was taken may hold rows of other partitions, whose writers may
 * remove them meanwhile, so each row goes in under the page's write lock. A page that had no live row when it
 * was taken (seen under its lock once) holds, until it is put back, only rows this writer adds, all of the
 * partition whose write lock the caller holds; every other access to those rows (reads, removals, growing a
 * row, a consistency check) needs that partition's lock, and the free list does not touch a taken page, so its
 * rows go in without the lock: no atomic instruction per row (each one waited for the previous row's stores to
 * lines not yet cached). Putting the page back goes through the free list's monitor, which orders these
 * writes before anyone's later use of the page.
 */
public final class RowBatchWriter {

    private final RowStore rows;
    private final PageMemory memory;
    private final FreePages freeList;
    private final int pageSize;
    private final int maxRoom;
    private long page;
    private int room;
    /** Whether {@link #page} had no live row when taken: only this writer's rows are in it (see above). */
    private boolean ownPage;

    public RowBatchWriter(RowStore rows) {
        this.rows = rows;
        this.memory = rows.memory();
        this.freeList = rows.freeList();
        this.pageSize = memory.pageSize();
        this.maxRoom = DataPageIO.maxPayload(pageSize, false) + DataPageIO.ROW_HEADER;
    }

    public void begin() {
        page = PageMemory.NULL_PAGE;
        room = 0;
    }

    /**
     * Writes a row whose stream (an {@link io.sluice.protocol.internal.EntryBatch} entry) lies whole in
     * {@code stream} at {@code streamOffset}, so that the row's head is one copy.
     *
     * @param bytesAhead head bytes (with slots) the batch will still write after this row, to pick a
     *                   page that holds many of them
     * @return the row's link
     * @throws io.sluice.DataRegionFullException if the region has no room (nothing of this row stays)
     */
    public long add(byte[] stream, int streamOffset, int keyLength, int valueLength, long bytesAhead) {
        int keyOffset = streamOffset + EntryBatch.ENTRY_HEADER;
        long total = EntryBatch.ENTRY_HEADER + (long) keyLength + valueLength;
        int fragments = rows.fragmentsFor(total);
        long next = fragments == 0 ? PageMemory.NULL_PAGE
                : rows.writeFragments(total, fragments, stream, keyOffset, keyLength, stream,
                        keyOffset + keyLength, valueLength);
        int head = (int) (total - (long) fragments * rows.fragmentCapacity());
        int need = DataPageIO.rowSize(head, fragments > 0);
        if (need > room && page != PageMemory.NULL_PAGE) {
            freeList.putBack(page);
            page = PageMemory.NULL_PAGE;
        }
        if (page == PageMemory.NULL_PAGE) {
            try {
                page = freeList.takeDataPage(need, (int) Math.min(maxRoom, need + bytesAhead));
            } catch (RuntimeException e) {
                rows.releaseFragments(next);
                throw e;
            }
            ownPage = hasNoRows(page);
        }
        ByteBuffer b = memory.buffer(page);
        int p = memory.offset(page);
        int item;
        boolean lock = !ownPage;
        if (lock) {
            memory.writeLock(page); // rows of other partitions in this page may be removed meanwhile
        }
        try {
            item = DataPageIO.addRow(b, p, pageSize, head, next);
            // the new row is the lowest in the page: its payload follows the header just written
            int payload = DataPageIO.rowsStart(b, p) + (fragments > 0 ? DataPageIO.ROW_HEADER_LINKED
                    : DataPageIO.ROW_HEADER);
            // the head (stream bytes [0, head)) in one bulk put: for a whole row head of 32 bytes and
            // more it is measurably cheaper than 8-byte steps, each of which checks bounds and buffer state
            if (head >= 32) {
                b.put(payload, stream, streamOffset, head);
            } else {
                RowStore.copy(stream, streamOffset, b, payload, head);
            }
            room = DataPageIO.spaceForNewRow(b, p);
        } finally {
            if (lock) {
                memory.writeUnlock(page);
            }
        }
        return RowStore.link(page, item);
    }

    /**
     * Whether the just-taken page has no live row, read under its lock: the lock orders this read after the
     * last removal of another partition's row from it, so no other writer touches the page after a yes.
     */
    private boolean hasNoRows(long taken) {
        memory.writeLock(taken);
        try {
            return DataPageIO.liveRows(memory.buffer(taken), memory.offset(taken)) == 0;
        } finally {
            memory.writeUnlock(taken);
        }
    }

    /** Puts the page being filled back into the free list. */
    public void finish() {
        if (page != PageMemory.NULL_PAGE) {
            freeList.putBack(page);
            page = PageMemory.NULL_PAGE;
        }
    }
}
