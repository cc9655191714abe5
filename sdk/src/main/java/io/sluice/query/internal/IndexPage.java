package io.sluice.query.internal;

import java.util.Arrays;

/**
 * One page of a source's entries, in index order, and whether the source may have more after them. The index keys
 * live in one array, so a page costs no allocation per entry but its values (each an array of its own, which the
 * consumer keeps: a value becomes the user's object), and a partition's source reuses its page from fetch to fetch
 * ({@link #clear()}). An entry's key is not stored apart: it is its index key's tail (an index key ends with the
 * entry's key), of {@link #keyLength} bytes.
 *
 * <p>Per entry {@code i}, {@code FIELDS} ints in {@code at}:
 * <pre>
 * int  meaning
 * 0    index key offset in {@link #array()}
 * 1    index key length
 * 2    key length (the index key's last bytes)
 * </pre>
 * One thread at a time.
 */
public final class IndexPage {

    private static final int FIELDS = 3;

    private byte[] bytes;
    private int length;
    private int[] at;
    private byte[][] values;
    private int size;
    private boolean more;

    public IndexPage(int expected) {
        int n = Math.max(1, Math.min(expected, 4096));
        this.at = new int[FIELDS * n];
        this.values = new byte[n][];
        this.bytes = new byte[32 * n];
    }

    /** Empties the page, keeping its arrays (not its values: they are their consumers'). */
    public IndexPage clear() {
        Arrays.fill(values, 0, size, null);
        length = 0;
        size = 0;
        more = false;
        return this;
    }

    /** Adds an entry whose key is the last {@code key.length} bytes of {@code indexKey}; the value is kept as is. */
    public void add(byte[] indexKey, byte[] key, byte[] value) {
        add(indexKey, 0, indexKey.length, key.length, value);
    }

    /**
     * Adds an entry with its index key copied from a range of an array (its key is the index key's last
     * {@code keyLength} bytes); the value is kept as is.
     */
    public void add(byte[] indexKey, int indexKeyOffset, int indexKeyLength, int keyLength, byte[] value) {
        int i = addIndexKey(indexKey, indexKeyOffset, indexKeyLength);
        setValue(i, keyLength, value);
    }

    /**
     * Adds an entry with its index key copied in; its key length and value are set later ({@link #setValue}).
     *
     * @return the entry's number
     */
    public int addIndexKey(byte[] indexKey, int offset, int length) {
        int k = reserve(length);
        System.arraycopy(indexKey, offset, bytes, k, length);
        return addEntry(k, length);
    }

    /**
     * Adds an entry whose index key the caller wrote at {@code offset} (a range {@link #reserve} gave); its key
     * length and value are set later ({@link #setValue}).
     *
     * @return the entry's number
     */
    public int addEntry(int offset, int indexKeyLength) {
        if (size == values.length) {
            at = Arrays.copyOf(at, 2 * at.length);
            values = Arrays.copyOf(values, 2 * values.length);
        }
        int i = size++;
        at[FIELDS * i] = offset;
        at[FIELDS * i + 1] = indexKeyLength;
        return i;
    }

    /** Sets entry {@code i}'s key length and its value (kept as is). */
    public void setValue(int i, int keyLength, byte[] value) {
        at[FIELDS * i + 2] = keyLength;
        values[i] = value;
    }

    /** Drops the entries from {@code size} on and the bytes from {@code length} on (an entry found out of bounds). */
    public void truncate(int size, int length) {
        Arrays.fill(values, size, this.size, null);
        this.size = size;
        this.length = length;
    }

    /**
     * Room for {@code n} more bytes at the end of the page's array (which may be replaced: take {@link #array()}
     * after this).
     *
     * @return the offset of the room
     */
    public int reserve(int n) {
        int start = length;
        long needed = (long) start + n;
        if (needed > bytes.length) {
            if (needed > Integer.MAX_VALUE - 16) {
                throw new IllegalStateException("an index page of more than 2 GiB");
            }
            bytes = Arrays.copyOf(bytes, (int) Math.min(Integer.MAX_VALUE - 16, Math.max(needed, 2L * bytes.length)));
        }
        length = (int) needed;
        return start;
    }

    /** The array holding the entries' index keys. */
    public byte[] array() {
        return bytes;
    }

    /** Bytes used in {@link #array()}. */
    public int length() {
        return length;
    }

    public int size() {
        return size;
    }

    public int indexKeyOffset(int i) {
        return at[FIELDS * i];
    }

    public int indexKeyLength(int i) {
        return at[FIELDS * i + 1];
    }

    public int keyLength(int i) {
        return at[FIELDS * i + 2];
    }

    /** Entry {@code i}'s index key, copied. */
    public byte[] indexKey(int i) {
        int k = indexKeyOffset(i);
        return Arrays.copyOfRange(bytes, k, k + indexKeyLength(i));
    }

    /** Entry {@code i}'s key, copied. */
    public byte[] key(int i) {
        int end = indexKeyOffset(i) + indexKeyLength(i);
        return Arrays.copyOfRange(bytes, end - keyLength(i), end);
    }

    /** Entry {@code i}'s value (not copied: the page does not change it). */
    public byte[] value(int i) {
        return values[i];
    }

    /** Whether the source may hold entries after this page's last (false: it has none). */
    public boolean more() {
        return more;
    }

    public IndexPage more(boolean more) {
        this.more = more;
        return this;
    }
}
