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
 * 32      s*n   items                    32             8*(c+1)   child page ids (n + 1 used)
 *                                        32 + 8*(c+1)   s*n       separators (c = inner capacity)
 *
 * Item (a leaf entry or a separator); s = 24 (narrow: the partition's tree, index trees of short keys) or 40
 * (wide: index trees)
 * offset  size  meaning
 * 0       8     row link: the row holding the key (and value); in a tree that keeps keys in items
 *               ({@link BPlusTree#keysInItems}), for a key of at most 12 (narrow) or 28 (wide) bytes, the
 *               caller's own link instead (an index tree: the entry's row), no row of the tree's
 * 8       4     key length; bit 31: ghost (a separator that owns its row; never set for a key held in its item)
 * 12      8     key bytes 0-7, zero-padded, big-endian
 * 20      4     key bytes 8-11, zero-padded, big-endian
 * 24      8     wide items only: key bytes 12-19, zero-padded, big-endian
 * 32      8     wide items only: key bytes 20-27, zero-padded, big-endian
 * </pre>
 *
 * Child {@code i} of an inner page holds the keys k with separator(i-1) &lt; k &lt;= separator(i). A tree's
 * items are all of one size, fixed when it is made
 * ({@link BPlusTree#BPlusTree(io.sluice.pagestore.internal.page.RowStore, int)}): wide items let keys that
 * share their first 12 bytes (index keys: a field value, then the entry key) compare in the page, reading
 * the row only past 28 bytes, at the cost of fewer items per page (4 KiB pages: 101 instead of 169).
 */
public final class TreePageIO {

    static final int COUNT = PageHeader.SIZE;
    /** Leaf items, or an inner page's child ids, start here. */
    static final int ITEMS = 32;
    static final int CHILD = 8;
    /** A narrow item's size. */
    public static final int ITEM = 24;
    /** A wide item's size. */
    public static final int WIDE_ITEM = 40;
    // an item's fields
    static final int LINK = 0;
    static final int KEY_LENGTH = 8;
    static final int PREFIX_HIGH = 12;
    static final int PREFIX_LOW = 20;
    static final int EXTENSION_HIGH = 24;
    static final int EXTENSION_LOW = 32;
    static final int GHOST = 0x8000_0000;
    /** Leading key bytes an item carries, compared in the page without reading the row (the rest, if any, from the row). */
    public static final int PREFIX = 12;
    /** Leading key bytes a wide item carries. */
    public static final int WIDE_PREFIX = 28;

    private static final VarHandle LONG_BE = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INT_BE = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

    private TreePageIO() {
    }

    /** Items a leaf page holds. */
    public static int leafCapacity(int pageSize) {
        return leafCapacity(pageSize, ITEM);
    }

    /** Items of {@code item} bytes a leaf page holds. */
    public static int leafCapacity(int pageSize, int item) {
        return (pageSize - ITEMS) / item;
    }

    /** Separators of {@code item} bytes an inner page holds (it has one child more). */
    static int innerCapacity(int pageSize, int item) {
        return (pageSize - ITEMS - CHILD) / (item + CHILD);
    }

    /** Key bytes compared in the page for items of this size. */
    static int prefix(int item) {
        return item == ITEM ? PREFIX : WIDE_PREFIX;
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
    static int leafItem(int p, int i, int item) {
        return p + ITEMS + i * item;
    }

    /** Offset (in the buffer) of inner separator {@code i}; {@code separators} is {@link #separatorsStart}. */
    static int separatorItem(int p, int separators, int i, int item) {
        return p + separators + i * item;
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

    /**
     * Writes the item of a key, {@code item} bytes, into {@code out} (an item's bytes as a page holds them):
     * for an insert queued or a separator on its way up.
     */
    static void itemBytes(ByteBuffer out, int at, int item, long link, byte[] key, int keyOffset, int keyLength,
                          long high, int low) {
        out.putLong(at + LINK, link);
        out.putInt(at + KEY_LENGTH, keyLength);
        out.putLong(at + PREFIX_HIGH, high);
        out.putInt(at + PREFIX_LOW, low);
        if (item == WIDE_ITEM) {
            out.putLong(at + EXTENSION_HIGH, keyLong(key, keyOffset, keyLength, PREFIX));
            out.putLong(at + EXTENSION_LOW, keyLong(key, keyOffset, keyLength, PREFIX + 8));
        }
    }

    /** Writes an item of the key into a page at {@code at}. */
    static void writeItem(ByteBuffer b, int at, int item, long link, byte[] key, int keyOffset, int keyLength) {
        itemBytes(b, at, item, link, key, keyOffset, keyLength, prefixHigh(key, keyOffset, keyLength),
                prefixLow(key, keyOffset, keyLength));
    }

    /** Inserts an item at position {@code pos} of a leaf of {@code n} items (it has room). */
    static void insertLeafItem(ByteBuffer b, int p, int n, int pos, int item, long link, byte[] key, int keyOffset,
                               int keyLength) {
        int at = leafItem(p, pos, item);
        move(b, at, at + item, (n - pos) * item);
        writeItem(b, at, item, link, key, keyOffset, keyLength);
        count(b, p, n + 1);
    }

    /** Removes item {@code i} of a leaf of {@code n} items. */
    static void removeLeafItem(ByteBuffer b, int p, int n, int i, int item) {
        int at = leafItem(p, i, item);
        move(b, at + item, at, (n - i - 1) * item);
        count(b, p, n - 1);
    }

    /**
     * Inserts separator {@code i} (an item's bytes, from {@code from} in {@code src}) and, right of it, child
     * {@code i + 1} into an inner page of {@code n} separators (it has room); {@code separators} is
     * {@link #separatorsStart}.
     */
    static void insertSeparator(ByteBuffer b, int p, int separators, int n, int i, int item, long right,
                                ByteBuffer src, int from) {
        int at = p + separators + i * item;
        move(b, at, at + item, (n - i) * item);
        b.put(at, src, from, item);
        int c = childSlot(p, i + 1);
        move(b, c, c + CHILD, (n - i) * CHILD);
        b.putLong(c, right);
        count(b, p, n + 1);
    }

    /** Removes separator {@code s} and child {@code c} from an inner page of {@code n} separators. */
    static void removeSeparator(ByteBuffer b, int p, int separators, int n, int s, int c, int item) {
        int at = p + separators + s * item;
        move(b, at + item, at, (n - s - 1) * item);
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

    /**
     * The key of an item that holds it whole ({@code keyLength} at most the item's key bytes): its prefix and,
     * for a wide item, extension, as bytes.
     */
    static byte[] itemKey(ByteBuffer b, int item, int keyLength) {
        byte[] key = new byte[keyLength];
        for (int i = 0; i < keyLength; i++) {
            long word = i < 8 ? prefixHigh(b, item) : i < PREFIX ? (long) prefixLow(b, item) << 32
                    : i < PREFIX + 8 ? extensionHigh(b, item) : extensionLow(b, item);
            int from = i < 8 ? 0 : i < PREFIX ? 8 : i < PREFIX + 8 ? PREFIX : PREFIX + 8;
            key[i] = (byte) (word >>> (56 - 8 * (i - from)));
        }
        return key;
    }

    /**
     * Where an item's key bytes start in the buffer: bytes 0-11 (and 12-27 of a wide item) follow one another
     * there in order, so a key the item holds whole is the range [keyAt, keyAt + keyLength).
     */
    static int keyAt(int item) {
        return item + PREFIX_HIGH;
    }

    static long extensionHigh(ByteBuffer b, int item) {
        return b.getLong(item + EXTENSION_HIGH);
    }

    static long extensionLow(ByteBuffer b, int item) {
        return b.getLong(item + EXTENSION_LOW);
    }

    /** Key bytes {@code from} to {@code from + 7}, zero-padded past the key's end, as a big-endian long. */
    static long keyLong(byte[] key, int offset, int length, int from) {
        if (length >= from + 8) {
            return (long) LONG_BE.get(key, offset + from);
        }
        if (length <= from) {
            return 0;
        }
        if (offset + from + 8 <= key.length) { // the array goes on past the key (an index change's link): mask it off
            return (long) LONG_BE.get(key, offset + from) & -1L << 8 * (from + 8 - length);
        }
        long p = 0;
        for (int i = from; i < from + 8; i++) {
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
