package io.sluice.store.page;

import io.sluice.store.freelist.FreeList;
import java.nio.ByteBuffer;

/**
 * Writes the rows of one batch: each row's whole-page fragments go straight onto empty pages, and the
 * heads are packed into one data page taken from the free list and filled until the next head does not
 * fit, then put back once and the next taken. Use {@link #begin}, {@link #add}..., {@link #finish}
 * (always, also after a failure). Not thread-safe: one per partition, used under its write lock.
 */
public final class RowBatchWriter {

    private final RowStore rows;
    private final PageMemory memory;
    private final FreeList freeList;
    private final int pageSize;
    private final int maxRoom;
    private long page;
    private int room;

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
     * Writes a row.
     *
     * @param bytesAhead head bytes (with slots) the batch will still write after this row, to pick a
     *                   page that holds many of them
     * @return the row's link
     * @throws io.sluice.store.DataRegionFullException if the region has no room (nothing of this row stays)
     */
    public long add(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength,
                    long bytesAhead) {
        long total = RowStore.STREAM_HEADER + (long) keyLength + valueLength;
        int fragments = rows.fragmentsFor(total);
        long next = fragments == 0 ? PageMemory.NULL_PAGE
                : rows.writeFragments(total, fragments, key, keyOffset, keyLength, value, valueOffset, valueLength);
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
        }
        ByteBuffer b = memory.buffer(page);
        int p = memory.offset(page);
        int item;
        memory.writeLock(page); // rows of other partitions in this page may be removed meanwhile
        try {
            item = DataPageIO.addRow(b, p, pageSize, head, next);
            int row = DataPageIO.rowOffset(b, p, item);
            RowStore.writeStream(b, DataPageIO.payloadOffset(b, row), 0, head, key, keyOffset, keyLength, value,
                    valueOffset, valueLength);
            room = DataPageIO.spaceForNewRow(b, p);
        } finally {
            memory.writeUnlock(page);
        }
        return RowStore.link(page, item);
    }

    /** Puts the page being filled back into the free list. */
    public void finish() {
        if (page != PageMemory.NULL_PAGE) {
            freeList.putBack(page);
            page = PageMemory.NULL_PAGE;
        }
    }
}
