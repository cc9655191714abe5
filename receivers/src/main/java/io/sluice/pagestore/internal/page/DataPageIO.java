package io.sluice.pagestore.internal.page;

import java.nio.ByteBuffer;

/**
 * A data page: row heads packed from the back, a table of item slots from the front. A row's link
 * is (page id, item id); the item slot holds the row's offset, so rows can be compacted without
 * changing any link. All methods work on (buffer, page offset); the caller holds the page's lock.
 *
 * <pre>
 * offset  size  meaning
 * 0       24    {@link PageHeader}
 * 24      2     item count: slots in the item table, free ones included
 * 26      2     free bytes: page size - 32 - 2 * item count - bytes of rows
 * 28      2     rows start: offset of the lowest row byte (page size when there are none)
 * 30      2     live rows
 * 32      2*n   item table: slot i = offset of row i, 0 = free slot
 * ...           free gap
 * rows start    rows, each: see below
 * </pre>
 *
 * A row in a data page:
 * <pre>
 * offset  size  meaning
 * 0       2     payload length in this page; bit 15 set: the row continues on a fragment page
 * 2       8     next fragment page id (only when bit 15 is set)
 * 2 or 10 L     payload: the row's first bytes (an {@link io.sluice.protocol.internal.EntryBatch} entry)
 * </pre>
 */
public final class DataPageIO {

    static final int ITEM_COUNT = 24;
    static final int FREE = 26;
    static final int ROWS_START = 28;
    static final int LIVE = 30;
    static final int ITEMS = 32;
    /** Bytes of the row header without / with a next-fragment link. */
    static final int ROW_HEADER = 2;
    static final int ROW_HEADER_LINKED = 10;
    static final int CONTINUED = 0x8000;

    private DataPageIO() {
    }

    public static void init(ByteBuffer b, int p, int pageSize) {
        PageHeader.type(b, p, PageHeader.TYPE_DATA);
        b.putShort(p + ITEM_COUNT, (short) 0);
        b.putShort(p + FREE, (short) (pageSize - ITEMS));
        b.putShort(p + ROWS_START, (short) pageSize);
        b.putShort(p + LIVE, (short) 0);
    }

    public static int itemCount(ByteBuffer b, int p) {
        return b.getShort(p + ITEM_COUNT) & 0xFFFF;
    }

    public static int freeBytes(ByteBuffer b, int p) {
        return b.getShort(p + FREE) & 0xFFFF;
    }

    public static int liveRows(ByteBuffer b, int p) {
        return b.getShort(p + LIVE) & 0xFFFF;
    }

    /** Offset (in the buffer) of the lowest row byte: right after {@link #addRow}, the new row's header. */
    static int rowsStart(ByteBuffer b, int p) {
        return p + (b.getShort(p + ROWS_START) & 0xFFFF);
    }

    /** Room for a new row (its slot included, as if no free slot could be reused). */
    public static int spaceForNewRow(ByteBuffer b, int p) {
        return Math.max(0, freeBytes(b, p) - 2);
    }

    /** The most payload bytes a row head can have in an empty page. */
    public static int maxPayload(int pageSize, boolean linked) {
        return pageSize - ITEMS - 2 - (linked ? ROW_HEADER_LINKED : ROW_HEADER);
    }

    /** Bytes a row head takes in the page (header + payload, not the slot). */
    public static int rowSize(int payload, boolean linked) {
        return payload + (linked ? ROW_HEADER_LINKED : ROW_HEADER);
    }

    /** Offset (in the buffer) of the item's row, or a negative number if the slot is free or missing. */
    public static int rowOffset(ByteBuffer b, int p, int itemId) {
        if (itemId >= itemCount(b, p)) {
            return -1;
        }
        int at = b.getShort(p + ITEMS + 2 * itemId) & 0xFFFF;
        return at == 0 ? -1 : p + at;
    }

    public static int payloadLength(ByteBuffer b, int row) {
        return b.getShort(row) & 0x7FFF;
    }

    public static boolean continued(ByteBuffer b, int row) {
        return (b.getShort(row) & CONTINUED) != 0;
    }

    public static long nextFragment(ByteBuffer b, int row) {
        return continued(b, row) ? b.getLong(row + 2) : PageMemory.NULL_PAGE;
    }

    /** Offset (in the buffer) of the row's payload. */
    public static int payloadOffset(ByteBuffer b, int row) {
        return row + (continued(b, row) ? ROW_HEADER_LINKED : ROW_HEADER);
    }

    static int rowBytes(ByteBuffer b, int row) {
        return rowSize(payloadLength(b, row), continued(b, row));
    }

    /**
     * Reserves a row of {@code payload} bytes, writes its header, and returns its item id; the caller
     * writes the payload at {@link #payloadOffset}. The caller checked that the page has room.
     */
    public static int addRow(ByteBuffer b, int p, int pageSize, int payload, long nextFragment) {
        boolean linked = nextFragment != PageMemory.NULL_PAGE;
        int size = rowSize(payload, linked);
        int count = itemCount(b, p);
        int live = liveRows(b, p);
        int item = count;
        if (live < count) {
            for (int i = 0; i < count; i++) {
                if (b.getShort(p + ITEMS + 2 * i) == 0) {
                    item = i;
                    break;
                }
            }
        }
        int newCount = item == count ? count + 1 : count;
        int free = freeBytes(b, p) - size - 2 * (newCount - count);
        if (free < 0) {
            throw new IllegalStateException("data page has " + freeBytes(b, p) + " free bytes, row needs " + size);
        }
        int start = b.getShort(p + ROWS_START) & 0xFFFF;
        if (start - size < ITEMS + 2 * newCount) {
            start = compact(b, p, pageSize); // before the table grows: a new slot may lie on a row now
        }
        b.putShort(p + ITEM_COUNT, (short) newCount);
        b.putShort(p + ITEMS + 2 * item, (short) 0); // not a row yet
        start -= size;
        writeRowHeader(b, p + start, payload, nextFragment);
        b.putShort(p + ITEMS + 2 * item, (short) start);
        b.putShort(p + ROWS_START, (short) start);
        b.putShort(p + FREE, (short) free);
        b.putShort(p + LIVE, (short) (live + 1));
        return item;
    }

    private static void writeRowHeader(ByteBuffer b, int row, int payload, long nextFragment) {
        if (nextFragment != PageMemory.NULL_PAGE) {
            b.putShort(row, (short) (payload | CONTINUED));
            b.putLong(row + 2, nextFragment);
        } else {
            b.putShort(row, (short) payload);
        }
    }

    /**
     * Rewrites a row's header for a new payload length in place if it fits where the row is, or moves
     * it within the page if the page has room; the item id stays. The caller writes the payload.
     *
     * @return false if the page has no room (nothing changed)
     */
    public static boolean resizeRow(ByteBuffer b, int p, int pageSize, int itemId, int payload, long nextFragment) {
        int row = rowOffset(b, p, itemId);
        int oldSize = rowBytes(b, row);
        int size = rowSize(payload, nextFragment != PageMemory.NULL_PAGE);
        int free = freeBytes(b, p);
        if (size <= oldSize) {
            writeRowHeader(b, row, payload, nextFragment);
            // The tail of the old row becomes a hole that the next compaction reclaims.
            b.putShort(p + FREE, (short) (free + oldSize - size));
            return true;
        }
        if (free + oldSize < size) {
            return false;
        }
        b.putShort(p + ITEMS + 2 * itemId, (short) 0);
        int start = b.getShort(p + ROWS_START) & 0xFFFF;
        if (row - p == start) {
            start += oldSize;
        }
        int count = itemCount(b, p);
        if (start - size < ITEMS + 2 * count) {
            start = compact(b, p, pageSize);
        }
        start -= size;
        writeRowHeader(b, p + start, payload, nextFragment);
        b.putShort(p + ITEMS + 2 * itemId, (short) start);
        b.putShort(p + ROWS_START, (short) start);
        b.putShort(p + FREE, (short) (free + oldSize - size));
        return true;
    }

    /** Removes a row; other rows keep their item ids. @return the live rows left */
    public static int removeRow(ByteBuffer b, int p, int pageSize, int itemId) {
        int row = rowOffset(b, p, itemId);
        int size = rowBytes(b, row);
        int live = liveRows(b, p) - 1;
        if (live == 0) {
            init(b, p, pageSize);
            return 0;
        }
        int free = freeBytes(b, p) + size;
        int start = b.getShort(p + ROWS_START) & 0xFFFF;
        if (row - p == start) {
            b.putShort(p + ROWS_START, (short) (start + size));
        }
        b.putShort(p + ITEMS + 2 * itemId, (short) 0);
        int count = itemCount(b, p);
        while (count > 0 && b.getShort(p + ITEMS + 2 * (count - 1)) == 0) {
            count--;
            free += 2;
        }
        b.putShort(p + ITEM_COUNT, (short) count);
        b.putShort(p + FREE, (short) free);
        b.putShort(p + LIVE, (short) live);
        return live;
    }

    /** Packs the rows against the page's end, keeping item ids. @return the new rows start */
    static int compact(ByteBuffer b, int p, int pageSize) {
        byte[] copy = new byte[pageSize]; // rare: only when the free space is split into holes
        b.get(p, copy, 0, pageSize);
        int count = itemCount(b, p);
        int end = pageSize;
        for (int i = 0; i < count; i++) {
            int at = b.getShort(p + ITEMS + 2 * i) & 0xFFFF;
            if (at != 0) {
                int header = (copy[at] & 0xFF) << 8 | (copy[at + 1] & 0xFF); // from the copy: b is being rewritten
                int size = rowSize(header & 0x7FFF, (header & CONTINUED) != 0);
                end -= size;
                b.put(p + end, copy, at, size);
                b.putShort(p + ITEMS + 2 * i, (short) end);
            }
        }
        b.putShort(p + ROWS_START, (short) end);
        return end;
    }
}
