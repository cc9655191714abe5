package io.sluice.pagestore.internal.tree;

import io.sluice.pagestore.internal.page.PageHeader;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The pages of a {@link BPlusTree}: leaves hold items in key order, inner pages hold child page ids
 * and separators (items copied from leaves). Both start with a {@link PageHeader}. All methods work
 * on (buffer, page offset); the caller holds the partition's lock.
 *
 * <pre>
 * Leaf page                              Inner page
 * offset  size  meaning                  offset         size      meaning
 * 0       24    PageHeader               0              24        PageHeader
 * 24      2     item count n             24             2         separator count n
 * 26      6     unused                   26             6         unused
 * 32      24*n  items                    32             8*(c+1)   child page ids (n + 1 used)
 *                                        32 + 8*(c+1)   24*n      separators (c = inner capacity)
 *
 * Item (a leaf entry or a separator)
 * offset  size  meaning
 * 0       8     row link
 * 8       4     key length; bit 31: ghost (a separator that owns its row)
 * 12      8     key bytes 0-7, zero-padded, big-endian
 * 20      4     key bytes 8-11, zero-padded, big-endian
 * </pre>
 *
 * Child {@code i} of an inner page holds the keys k with separator(i-1) &lt; k &lt;= separator(i).
 */
public final class TreePageIO {

    static final int COUNT = PageHeader.SIZE;
    /** Leaf items, or an inner page's child ids, start here. */
    static final int ITEMS = 32;
    static final int CHILD = 8;
    static final int ITEM = 24;
    // an item's fields
    static final int LINK = 0;
    static final int KEY_LENGTH = 8;
    static final int PREFIX_HIGH = 12;
    static final int PREFIX_LOW = 20;
    static final int GHOST = 0x8000_0000;
    /** Leading key bytes an item carries, compared in the page without reading the row (the rest, if any, from the row). */
    public static final int PREFIX = 12;

    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT_BE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

    private TreePageIO() {
    }

    /** Items a leaf page holds. */
    public static int leafCapacity(int pageSize) {
        return (pageSize - ITEMS) / ITEM;
    }

    /** Separators an inner page holds (it has one child more). */
    static int innerCapacity(int pageSize) {
        return (pageSize - ITEMS - CHILD) / (ITEM + CHILD);
    }

    /** Offset, within an inner page, of its first separator. */
    static int separatorsStart(int innerCapacity) {
        return ITEMS + CHILD * (innerCapacity + 1);
    }

    static void init(ByteBuffer b, int p, byte type) {
        PageHeader.type(b, p, type);
        count(b, p, 0);
    }

    /** Items of a leaf, separators of an inner page. */
    static int count(ByteBuffer b, int p) {
        return b.getShort(p + COUNT) & 0xFFFF;
    }

    static void count(ByteBuffer b, int p, int n) {
        b.putShort(p + COUNT, (short) n);
    }

    /** Offset (in the buffer) of leaf item {@code i}. */
    static int leafItem(int p, int i) {
        return p + ITEMS + i * ITEM;
    }

    /** Offset (in the buffer) of inner separator {@code i}; {@code separators} is {@link #separatorsStart}. */
    static int separatorItem(int p, int separators, int i) {
        return p + separators + i * ITEM;
    }

    /** Offset (in the buffer) of inner child slot {@code i}. */
    static int childSlot(int p, int i) {
        return p + ITEMS + i * CHILD;
    }

    static long child(ByteBuffer b, int p, int i) {
        return b.getLong(childSlot(p, i));
    }

    static void child(ByteBuffer b, int p, int i, long page) {
        b.putLong(childSlot(p, i), page);
    }

    static long link(ByteBuffer b, int item) {
        return b.getLong(item + LINK);
    }

    static void link(ByteBuffer b, int item, long link) {
        b.putLong(item + LINK, link);
    }

    /** The key length with the ghost flag, as stored. */
    static int storedKeyLength(ByteBuffer b, int item) {
        return b.getInt(item + KEY_LENGTH);
    }

    static int keyLength(ByteBuffer b, int item) {
        return b.getInt(item + KEY_LENGTH) & ~GHOST;
    }

    static boolean ghost(ByteBuffer b, int item) {
        return (b.getInt(item + KEY_LENGTH) & GHOST) != 0;
    }

    /** Marks a separator as the owner of its row (the row's entry is gone; the separator frees it). */
    static void markGhost(ByteBuffer b, int item) {
        b.putInt(item + KEY_LENGTH, b.getInt(item + KEY_LENGTH) | GHOST);
    }

    static long prefixHigh(ByteBuffer b, int item) {
        return b.getLong(item + PREFIX_HIGH);
    }

    static int prefixLow(ByteBuffer b, int item) {
        return b.getInt(item + PREFIX_LOW);
    }

    /** Writes an item; {@code storedKeyLength} may carry the ghost flag. */
    static void writeItem(ByteBuffer b, int at, long link, int storedKeyLength, long high, int low) {
        b.putLong(at + LINK, link);
        b.putInt(at + KEY_LENGTH, storedKeyLength);
        b.putLong(at + PREFIX_HIGH, high);
        b.putInt(at + PREFIX_LOW, low);
    }

    static void writeItem(ByteBuffer b, int at, long link, byte[] key, int keyOffset, int keyLength) {
        writeItem(b, at, link, keyLength, prefixHigh(key, keyOffset, keyLength), prefixLow(key, keyOffset, keyLength));
    }

    /** Inserts an item at position {@code pos} of a leaf of {@code n} items (it has room). */
    static void insertLeafItem(ByteBuffer b, int p, int n, int pos, long link, byte[] key, int keyOffset,
                               int keyLength) {
        int at = leafItem(p, pos);
        move(b, at, at + ITEM, (n - pos) * ITEM);
        writeItem(b, at, link, key, keyOffset, keyLength);
        count(b, p, n + 1);
    }

    /** Removes item {@code i} of a leaf of {@code n} items. */
    static void removeLeafItem(ByteBuffer b, int p, int n, int i) {
        int at = leafItem(p, i);
        move(b, at + ITEM, at, (n - i - 1) * ITEM);
        count(b, p, n - 1);
    }

    /**
     * Inserts separator {@code i} (its item fields) and, right of it, child {@code i + 1} into an inner
     * page of {@code n} separators (it has room); {@code separators} is {@link #separatorsStart}.
     */
    static void insertSeparator(ByteBuffer b, int p, int separators, int n, int i, long right, long link,
                                int storedKeyLength, long high, int low) {
        int at = p + separators + i * ITEM;
        move(b, at, at + ITEM, (n - i) * ITEM);
        writeItem(b, at, link, storedKeyLength, high, low);
        int c = childSlot(p, i + 1);
        move(b, c, c + CHILD, (n - i) * CHILD);
        b.putLong(c, right);
        count(b, p, n + 1);
    }

    /** Removes separator {@code s} and child {@code c} from an inner page of {@code n} separators. */
    static void removeSeparator(ByteBuffer b, int p, int separators, int n, int s, int c) {
        int at = p + separators + s * ITEM;
        move(b, at + ITEM, at, (n - s - 1) * ITEM);
        int ca = childSlot(p, c);
        move(b, ca + CHILD, ca, (n - c) * CHILD);
        count(b, p, n - 1);
    }

    /**
     * Moves bytes within a buffer. The absolute bulk put copies as if through an intermediate buffer
     * when source and destination share memory (ByteBuffer javadoc), so overlapping ranges are safe.
     */
    static void move(ByteBuffer b, int from, int to, int length) {
        if (length > 0) {
            b.put(to, b, from, length);
        }
    }

    /** Key bytes 0-7, zero-padded, as a big-endian long: an item's {@code PREFIX_HIGH}. */
    public static long prefixHigh(byte[] key, int offset, int length) {
        if (length >= 8) {
            return (long) LONG_BE.get(key, offset);
        }
        long p = 0;
        for (int i = 0; i < 8; i++) {
            p = p << 8 | (i < length ? key[offset + i] & 0xFF : 0);
        }
        return p;
    }

    /** Key bytes 8-11, zero-padded, as a big-endian int: an item's {@code PREFIX_LOW}. */
    public static int prefixLow(byte[] key, int offset, int length) {
        if (length >= PREFIX) {
            return (int) INT_BE.get(key, offset + 8);
        }
        int p = 0;
        for (int i = 8; i < length; i++) {
            p = p << 8 | key[offset + i] & 0xFF;
        }
        return length <= 8 ? 0 : p << 8 * (PREFIX - length); // zero-padded to 4 bytes
    }
}
