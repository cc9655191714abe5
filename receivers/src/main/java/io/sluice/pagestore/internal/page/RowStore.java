package io.sluice.pagestore.internal.page;

import io.sluice.protocol.internal.EntryBatch;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Rows of a data region: writes, reads, resizes and removes them. A row's byte stream is its entry
 * exactly as a batch carries it (the {@link EntryBatch} layout: key length, value length, key, value),
 * stored as a head in a data page ({@link DataPageIO}) followed, when it does not fit, by whole
 * fragment pages ({@link FragmentPageIO}). A link is {@code pageId << 16 | itemId} of the head.
 *
 * <p>Thread-safe for rows of different partitions: heads share data pages, which are locked per
 * page; fragment pages belong to one row. Callers hold their partition's lock.
 */
public final class RowStore {

    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

    private final PageMemory memory;
    private final FreePages freeList;
    private final int pageSize;
    private final int fragmentCapacity;
    private final int maxUnlinked;
    private final int maxLinked;

    public RowStore(PageMemory memory, FreePages freeList) {
        this.memory = memory;
        this.freeList = freeList;
        this.pageSize = memory.pageSize();
        this.fragmentCapacity = FragmentPageIO.capacity(pageSize);
        this.maxUnlinked = DataPageIO.maxPayload(pageSize, false);
        this.maxLinked = DataPageIO.maxPayload(pageSize, true);
    }

    public static long link(long pageId, int itemId) {
        return pageId << 16 | itemId;
    }

    public static long pageOf(long link) {
        return link >>> 16;
    }

    public static int itemOf(long link) {
        return (int) (link & 0xFFFF);
    }

    public PageMemory memory() {
        return memory;
    }

    public FreePages freeList() {
        return freeList;
    }

    public int fragmentCapacity() {
        return fragmentCapacity;
    }

    /** Whole fragment pages a row of this stream length needs. */
    public int fragmentsFor(long streamLength) {
        if (streamLength <= maxUnlinked) {
            return 0;
        }
        long over = streamLength - maxLinked;
        return (int) ((over + fragmentCapacity - 1) / fragmentCapacity);
    }

    /**
     * Writes a row. Allocates everything before linking anything: on failure every page it took is
     * returned and nothing else changed.
     *
     * @return the row's link
     * @throws io.sluice.DataRegionFullException if the region has no room for it
     */
    public long add(byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset, int valueLength) {
        long total = EntryBatch.ENTRY_HEADER + (long) keyLength + valueLength;
        int fragments = fragmentsFor(total);
        long next = writeFragments(total, fragments, key, keyOffset, keyLength, value, valueOffset, valueLength);
        int head = (int) (total - (long) fragments * fragmentCapacity);
        long page;
        try {
            page = freeList.takeDataPage(DataPageIO.rowSize(head, fragments > 0));
        } catch (RuntimeException e) {
            releaseFragments(next);
            throw e;
        }
        int item;
        ByteBuffer b = memory.buffer(page);
        int p = memory.offset(page);
        memory.writeLock(page);
        try {
            item = DataPageIO.addRow(b, p, pageSize, head, next);
            int row = DataPageIO.rowOffset(b, p, item);
            writeStream(b, DataPageIO.payloadOffset(b, row), 0, head, key, keyOffset, keyLength, value, valueOffset,
                    valueLength);
        } finally {
            memory.writeUnlock(page);
            freeList.putBack(page);
        }
        return link(page, item);
    }

    /**
     * Writes the row's whole-page fragments, last first, each linking to the one after it.
     *
     * @return the first fragment page, or 0 if none
     */
    public long writeFragments(long total, int fragments, byte[] key, int keyOffset, int keyLength,
                               byte[] value, int valueOffset, int valueLength) {
        long next = PageMemory.NULL_PAGE;
        long head = total - (long) fragments * fragmentCapacity;
        for (int f = fragments - 1; f >= 0; f--) {
            long page;
            try {
                page = freeList.takeEmptyPage();
            } catch (RuntimeException e) {
                releaseFragments(next);
                throw e;
            }
            ByteBuffer b = memory.buffer(page);
            int p = memory.offset(page);
            FragmentPageIO.init(b, p, next);
            writeStream(b, FragmentPageIO.payloadOffset(p), head + (long) f * fragmentCapacity, fragmentCapacity,
                    key, keyOffset, keyLength, value, valueOffset, valueLength);
            next = page;
        }
        return next;
    }

    /** Returns a chain of fragment pages to the free list. */
    public void releaseFragments(long page) {
        while (page != PageMemory.NULL_PAGE) {
            long next = FragmentPageIO.next(memory.buffer(page), memory.offset(page));
            freeList.releaseEmptyPage(page);
            page = next;
        }
    }

    /** Copies stream bytes [from, from + length) of the row (key, value) to the buffer. */
    public static void writeStream(ByteBuffer b, int at, long from, int length, byte[] key, int keyOffset,
                                   int keyLength, byte[] value, int valueOffset, int valueLength) {
        long pos = from;
        long end = from + length;
        if (pos == 0 && end >= EntryBatch.ENTRY_HEADER) {
            b.putInt(at, keyLength);
            b.putInt(at + 4, valueLength);
            at += EntryBatch.ENTRY_HEADER;
            pos = EntryBatch.ENTRY_HEADER;
        }
        for (; pos < end && pos < EntryBatch.ENTRY_HEADER; pos++) {
            int n = pos < 4 ? keyLength : valueLength;
            b.put(at++, (byte) (n >>> (24 - 8 * (pos & 3))));
        }
        long keyEnd = EntryBatch.ENTRY_HEADER + (long) keyLength;
        if (pos < end && pos < keyEnd) {
            int s = (int) (pos - EntryBatch.ENTRY_HEADER);
            int c = (int) Math.min(end - pos, keyLength - s);
            copy(key, keyOffset + s, b, at, c);
            at += c;
            pos += c;
        }
        if (pos < end) {
            int s = (int) (pos - keyEnd);
            copy(value, valueOffset + s, b, at, (int) (end - pos));
        }
    }

    /** Copies bytes into a page: 8 at a time for short runs, where a bulk put costs more in checks. */
    static void copy(byte[] src, int offset, ByteBuffer b, int at, int length) {
        if (length >= 256) {
            b.put(at, src, offset, length);
            return;
        }
        int i = 0;
        for (; i + 8 <= length; i += 8) {
            b.putLong(at + i, (long) LONG_BE.get(src, offset + i));
        }
        for (; i < length; i++) {
            b.put(at + i, src[offset + i]);
        }
    }

    /**
     * Rewrites the row in place, keeping its link, if both the old and the new row fit in one page and
     * the new one fits in the old one's page.
     *
     * @return false if the row must move instead (nothing changed)
     */
    public boolean update(long link, byte[] key, int keyOffset, int keyLength, byte[] value, int valueOffset,
                          int valueLength) {
        long total = EntryBatch.ENTRY_HEADER + (long) keyLength + valueLength;
        if (total > maxUnlinked) {
            return false;
        }
        long page = pageOf(link);
        int item = itemOf(link);
        ByteBuffer b = memory.buffer(page);
        int p = memory.offset(page);
        int old;
        memory.readLock(page);
        try {
            int row = DataPageIO.rowOffset(b, p, item);
            if (DataPageIO.continued(b, row)) {
                return false;
            }
            old = DataPageIO.payloadLength(b, row);
        } finally {
            memory.readUnlock(page);
        }
        // Growing takes the page from the free list first: a page another writer took keeps its room.
        boolean grows = total > old;
        if (grows && !freeList.tryTake(page)) {
            return false;
        }
        boolean done;
        memory.writeLock(page);
        try {
            done = DataPageIO.resizeRow(b, p, pageSize, item, (int) total, PageMemory.NULL_PAGE);
            if (done) {
                int row = DataPageIO.rowOffset(b, p, item);
                writeStream(b, DataPageIO.payloadOffset(b, row), 0, (int) total, key, keyOffset, keyLength, value,
                        valueOffset, valueLength);
            }
        } finally {
            memory.writeUnlock(page);
        }
        if (grows) {
            freeList.putBack(page);
        } else if (total < old) {
            freeList.rowRemoved(page);
        }
        return done;
    }

    /** Removes the row and returns its pages to the free list. */
    public void remove(long link) {
        long page = pageOf(link);
        ByteBuffer b = memory.buffer(page);
        int p = memory.offset(page);
        long next;
        memory.writeLock(page);
        try {
            int row = DataPageIO.rowOffset(b, p, itemOf(link));
            next = DataPageIO.nextFragment(b, row);
            DataPageIO.removeRow(b, p, pageSize, itemOf(link));
        } finally {
            memory.writeUnlock(page);
        }
        freeList.rowRemoved(page);
        releaseFragments(next);
    }

    /** The row's key. */
    public byte[] key(long link) {
        byte[] lengths = new byte[EntryBatch.ENTRY_HEADER];
        read(link, 0, lengths, 0, EntryBatch.ENTRY_HEADER);
        byte[] key = new byte[intAt(lengths, 0)];
        read(link, EntryBatch.ENTRY_HEADER, key, 0, key.length);
        return key;
    }

    /** The row's value. */
    public byte[] value(long link) {
        return value(link, null);
    }

    /**
     * The row's value, with its key's length put in {@code keyLength[0]} unless that is null: the head read under its
     * data page's read lock once (a row that goes on in fragment pages is read by {@link #read}).
     */
    public byte[] value(long link, int[] keyLength) {
        long page = pageOf(link);
        ByteBuffer b = memory.buffer(page);
        int p = memory.offset(page);
        memory.readLock(page);
        try {
            int row = DataPageIO.rowOffset(b, p, itemOf(link));
            if (DataPageIO.payloadLength(b, row) >= EntryBatch.ENTRY_HEADER && !DataPageIO.continued(b, row)) {
                int at = DataPageIO.payloadOffset(b, row);
                int keyBytes = b.getInt(at);
                if (keyLength != null) {
                    keyLength[0] = keyBytes;
                }
                byte[] value = new byte[b.getInt(at + 4)];
                b.get(at + EntryBatch.ENTRY_HEADER + keyBytes, value, 0, value.length);
                return value;
            }
        } finally {
            memory.readUnlock(page);
        }
        byte[] lengths = new byte[EntryBatch.ENTRY_HEADER]; // rare: a row of fragments
        read(link, 0, lengths, 0, EntryBatch.ENTRY_HEADER);
        int keyBytes = intAt(lengths, 0);
        if (keyLength != null) {
            keyLength[0] = keyBytes;
        }
        byte[] value = new byte[intAt(lengths, 4)];
        read(link, EntryBatch.ENTRY_HEADER + (long) keyBytes, value, 0, value.length);
        return value;
    }

    /**
     * Copies the key and value of each of the rows into arrays of their own, in order: rows read one after another
     * share data pages (a partition's rows in key order, as a scan reads them), so a page's read lock is held across
     * a run of rows in that page, taken once for them; a row that goes on in fragment pages is read by
     * {@link #read}, the page's lock released first.
     */
    public void readEntries(long[] links, int n, byte[][] keys, byte[][] values) {
        long locked = PageMemory.NULL_PAGE;
        try {
            for (int i = 0; i < n; i++) {
                long page = pageOf(links[i]);
                if (page != locked) {
                    if (locked != PageMemory.NULL_PAGE) {
                        memory.readUnlock(locked);
                        locked = PageMemory.NULL_PAGE;
                    }
                    memory.readLock(page);
                    locked = page;
                }
                ByteBuffer b = memory.buffer(page);
                int row = DataPageIO.rowOffset(b, memory.offset(page), itemOf(links[i]));
                if (DataPageIO.payloadLength(b, row) >= EntryBatch.ENTRY_HEADER && !DataPageIO.continued(b, row)) {
                    int at = DataPageIO.payloadOffset(b, row) + EntryBatch.ENTRY_HEADER;
                    byte[] key = new byte[b.getInt(at - EntryBatch.ENTRY_HEADER)];
                    byte[] value = new byte[b.getInt(at - 4)];
                    b.get(at, key, 0, key.length);
                    b.get(at + key.length, value, 0, value.length);
                    keys[i] = key;
                    values[i] = value;
                } else {
                    memory.readUnlock(locked);
                    locked = PageMemory.NULL_PAGE;
                    keys[i] = key(links[i]);
                    values[i] = value(links[i]);
                }
            }
        } finally {
            if (locked != PageMemory.NULL_PAGE) {
                memory.readUnlock(locked);
            }
        }
    }

    /**
     * Reads, without locks, the item slot and the first byte of each row's head, so that the cache and TLB misses
     * of rows in random pages (an index's hits) overlap instead of coming one at a time under each page's lock:
     * the reads the caller then makes under the locks find the lines in the cache. A slot read while another
     * partition's writer moves rows in the page is only a wrong hint (kept inside the page); nothing is trusted.
     *
     * @return a value made of the bytes read (so that the reads are not dropped as unused)
     */
    public int touch(long[] links, int n) {
        int sum = 0;
        for (int i = 0; i < n; i++) {
            long page = pageOf(links[i]);
            ByteBuffer b = memory.buffer(page);
            int p = memory.offset(page);
            int slot = p + DataPageIO.ITEMS + 2 * (itemOf(links[i]) % (pageSize >>> 2));
            int row = b.getShort(slot) & (pageSize - 1);
            sum += b.get(p + row);
        }
        return sum;
    }

    private static int intAt(byte[] a, int at) {
        return (a[at] & 0xFF) << 24 | (a[at + 1] & 0xFF) << 16 | (a[at + 2] & 0xFF) << 8 | (a[at + 3] & 0xFF);
    }

    /** Copies stream bytes [from, from + length) of the row into dst. */
    public void read(long link, long from, byte[] dst, int dstOffset, int length) {
        walk(link, from, dst, dstOffset, length, false);
    }

    /**
     * Overwrites value bytes [at, at + length) of the row with src, where they lie: the row keeps its
     * link, length and pages (an in-place field update). The head's page is write-locked while its
     * part is written, so a reader of another row of the page never sees it change under it; fragment
     * pages belong to this row alone, which the caller's partition lock guards.
     *
     * @param keyLength   the row's key length
     * @param valueLength the row's value length (the caller read the value)
     * @throws IndexOutOfBoundsException if [at, at + length) is not inside the value
     */
    public void overwriteValue(long link, int keyLength, int valueLength, int at, byte[] src, int srcOffset,
                               int length) {
        if (at < 0 || length < 0 || (long) at + length > valueLength) {
            throw new IndexOutOfBoundsException("value bytes [" + at + ", " + ((long) at + length)
                    + ") are not inside a value of " + valueLength + " bytes");
        }
        walk(link, EntryBatch.ENTRY_HEADER + (long) keyLength + at, src, srcOffset, length, true);
    }

    /**
     * The one walk over a row's stream bytes [from, from + length): the head's part under its data page's
     * lock (read, or write if {@code intoRow}), then fragment after fragment, whole fragments before
     * {@code from} skipped. Copies them into {@code bytes} from {@code offset} on, or, if {@code intoRow},
     * from {@code bytes} into the row where they lie.
     */
    private void walk(long link, long from, byte[] bytes, int offset, int length, boolean intoRow) {
        long page = pageOf(link);
        ByteBuffer b = memory.buffer(page);
        int p = memory.offset(page);
        long next;
        int head;
        if (intoRow) {
            memory.writeLock(page);
        } else {
            memory.readLock(page);
        }
        try {
            int row = DataPageIO.rowOffset(b, p, itemOf(link));
            head = DataPageIO.payloadLength(b, row);
            next = DataPageIO.nextFragment(b, row);
            if (from < head) {
                int c = (int) Math.min(length, head - from);
                copy(b, DataPageIO.payloadOffset(b, row) + (int) from, bytes, offset, c, intoRow);
                offset += c;
                length -= c;
                from += c;
            }
        } finally {
            if (intoRow) {
                memory.writeUnlock(page);
            } else {
                memory.readUnlock(page);
            }
        }
        from -= head;
        while (length > 0) {
            ByteBuffer fb = memory.buffer(next);
            int fp = memory.offset(next);
            if (from >= fragmentCapacity) {
                from -= fragmentCapacity;
            } else {
                int c = (int) Math.min(length, fragmentCapacity - from);
                copy(fb, FragmentPageIO.payloadOffset(fp) + (int) from, bytes, offset, c, intoRow);
                offset += c;
                length -= c;
                from = 0;
            }
            next = FragmentPageIO.next(fb, fp);
        }
    }

    private static void copy(ByteBuffer page, int at, byte[] bytes, int offset, int length, boolean intoPage) {
        if (intoPage) {
            page.put(at, bytes, offset, length);
        } else {
            page.get(at, bytes, offset, length);
        }
    }

    /**
     * Compares key bytes from {@code from} on (unsigned) with the row's key; both keys are longer than
     * {@code from} and agree before it. Reads the row in place, copying nothing.
     */
    public int compareKeyTail(long link, byte[] key, int keyOffset, int keyLength, int from) {
        long page = pageOf(link);
        ByteBuffer b = memory.buffer(page);
        int p = memory.offset(page);
        long next;
        int head;
        int storedLength;
        long pos = EntryBatch.ENTRY_HEADER + (long) from; // stream position
        int i = from; // key index
        memory.readLock(page);
        try {
            int row = DataPageIO.rowOffset(b, p, itemOf(link));
            head = DataPageIO.payloadLength(b, row);
            next = DataPageIO.nextFragment(b, row);
            int at = DataPageIO.payloadOffset(b, row);
            if (head < EntryBatch.ENTRY_HEADER) {
                storedLength = -1;
            } else {
                storedLength = b.getInt(at);
                int stop = (int) Math.min(head, EntryBatch.ENTRY_HEADER + (long) Math.min(keyLength, storedLength));
                for (; pos < stop; pos++, i++) {
                    int c = (key[keyOffset + i] & 0xFF) - (b.get(at + (int) pos) & 0xFF);
                    if (c != 0) {
                        return c;
                    }
                }
            }
        } finally {
            memory.readUnlock(page);
        }
        if (storedLength < 0) { // rare: the head is shorter than the stream header
            byte[] stored = key(link);
            return compareTail(key, keyOffset, keyLength, stored, from);
        }
        int min = Math.min(keyLength, storedLength);
        long fragPos = pos - head;
        while (i < min) {
            ByteBuffer fb = memory.buffer(next);
            int fp = memory.offset(next);
            if (fragPos >= fragmentCapacity) {
                fragPos -= fragmentCapacity;
            } else {
                int at = FragmentPageIO.payloadOffset(fp);
                for (; fragPos < fragmentCapacity && i < min; fragPos++, i++) {
                    int c = (key[keyOffset + i] & 0xFF) - (fb.get(at + (int) fragPos) & 0xFF);
                    if (c != 0) {
                        return c;
                    }
                }
                fragPos = 0;
            }
            next = FragmentPageIO.next(fb, fp);
        }
        return Integer.compare(keyLength, storedLength);
    }

    private static int compareTail(byte[] key, int keyOffset, int keyLength, byte[] stored, int from) {
        int min = Math.min(keyLength, stored.length);
        for (int i = from; i < min; i++) {
            int c = (key[keyOffset + i] & 0xFF) - (stored[i] & 0xFF);
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(keyLength, stored.length);
    }
}
