package io.sluice.pagestore.internal.index;

import io.sluice.binary.internal.StoredFieldLocator;

/**
 * Makes an entry's index key from its bytes, without decoding the value: each indexed field's stored bytes
 * (tag and payload, as the binary format encodes them: self-delimiting, and ordered for the ordered types) in
 * index order, then a 4-byte hash of the entry's key ({@link #keyHash}), then the entry's key bytes. A value
 * that is not a binary object of a known schema, or whose schema lacks the first field, has no index key; a
 * missing later field is encoded as NULL (tag 00). The fields are located by the caller, once per entry for all
 * of a partition's indexes ({@link IndexedFields}). Used under the partition's write lock.
 *
 * <pre>
 * An index key
 * offset     size  meaning
 * 0          f     the indexed fields' stored bytes in index order (the field part: what bounds compare with)
 * f          4     keyHash(entry key), big-endian
 * f + 4      k     the entry's key bytes (so the entry's key is the index key's last k bytes)
 * </pre>
 *
 * <p>Why the hash: entries sharing a field value are ordered among themselves only to make each index key
 * unique and the order deterministic (queries order by the field part; {@code after} resumes past a whole
 * index key). An index tree's item carries a key's first
 * {@value io.sluice.pagestore.internal.tree.TreePageIO#WIDE_PREFIX} bytes ({@link IndexTree}); with the field
 * part followed by the key itself, keys of one field value would tie on the key's tag and high bytes (alike for
 * small keys) and, for a field part of more than a few bytes, every comparison past the item would read the
 * index row. Four bytes that differ from key to key right after the field part spread them within the item, so
 * the row is read only when they tie too or the field part takes more than 24 bytes. For a key of at most
 * {@value #SHORT_KEY} bytes (a tag and a number
 * of up to 8 bytes, a very short string) they are the key's last 4 bytes (zero-padded in front): they differ
 * for nearby numbers and keep sequential keys in order within a field value, so an ascending load still
 * appends to the index; a longer key (a string, a UUID, an object) gets a mixed hash of all its bytes. Either
 * way a fixed function of the key's bytes, the same on every node and version (paging {@code after} a key may
 * continue on another node).
 */
public final class IndexKeys {

    /** Bytes of the entry key's hash between the field part and the entry's key. */
    public static final int HASH = 4;
    /** Keys up to this long carry their last 4 bytes as their hash, longer ones a mixed hash. */
    static final int SHORT_KEY = 9;

    /** The NULL tag, for a missing later field of a composite index. */
    private static final byte NULL = 0x00;

    /** Bytes of the field part of the last index key {@link #append} made (what the tree's item size is chosen by). */
    private int lastFieldPart;
    /** Bytes of the last index key {@link #append} made. */
    private int lastKeyLength;

    IndexKeys() {
    }

    /**
     * Appends the entry's index key as a change to {@code ops}.
     *
     * @param value   the bytes the ranges index into (the entry's value)
     * @param ranges  the value's fields as {@link IndexedFields#locate} found them
     * @param slots   this index's fields' positions in {@code ranges}, in index order
     * @param keyHash {@link #keyHash} of the entry's key
     * @return the change's number, or -1 if the entry has no index key (nothing appended)
     */
    int append(IndexOps ops, byte kind, long link, byte[] key, int keyOffset, int keyLength, byte[] value,
               long[] ranges, int[] slots, int keyHash) {
        if (ranges[slots[0]] < 0) {
            return -1;
        }
        int size = HASH + keyLength;
        for (int slot : slots) {
            long r = ranges[slot];
            size += r < 0 ? 1 : StoredFieldLocator.end(r) - StoredFieldLocator.start(r);
        }
        lastFieldPart = size - HASH - keyLength;
        lastKeyLength = size;
        int at = ops.open(size);
        byte[] out = ops.bytes();
        for (int slot : slots) {
            long r = ranges[slot];
            if (r < 0) {
                out[at++] = NULL;
            } else {
                int s = StoredFieldLocator.start(r);
                int n = StoredFieldLocator.end(r) - s;
                System.arraycopy(value, s, out, at, n);
                at += n;
            }
        }
        IndexOps.putInt(out, at, keyHash);
        System.arraycopy(key, keyOffset, out, at + HASH, keyLength);
        // a short key's hash is its tail: changes made in key order are then in order within a field value
        return ops.commit(kind, link, keyLength <= SHORT_KEY ? size - HASH - keyLength : -1);
    }

    /** Bytes of the field part of the last index key made, or 0 if none was. */
    int lastFieldPart() {
        return lastFieldPart;
    }

    /** Bytes of the last index key made, or 0 if none was. */
    int lastKeyLength() {
        return lastKeyLength;
    }

    /**
     * The 4 bytes an index key carries before the entry's key: a short key's last 4 bytes, zero-padded in front
     * (order-preserving for nearby numbers); else a polynomial over the key's bytes finished by MurmurHash3's
     * fmix32, so that keys differing anywhere differ in all four bytes.
     */
    public static int keyHash(byte[] key, int offset, int length) {
        if (length <= SHORT_KEY) {
            int h = 0;
            for (int i = Math.max(offset, offset + length - HASH), end = offset + length; i < end; i++) {
                h = h << 8 | key[i] & 0xFF;
            }
            return h;
        }
        int h = length;
        for (int i = offset, end = offset + length; i < end; i++) {
            h = 31 * h + key[i];
        }
        h ^= h >>> 16;
        h *= 0x85EB_CA6B;
        h ^= h >>> 13;
        h *= 0xC2B2_AE35;
        h ^= h >>> 16;
        return h;
    }

    /**
     * An index key from its parts (the field part as {@link #append} writes it, then the key's hash and the key):
     * for tests and tools that build the keys an index must hold.
     */
    public static byte[] indexKey(byte[] fieldPart, byte[] key) {
        byte[] k = new byte[fieldPart.length + HASH + key.length];
        System.arraycopy(fieldPart, 0, k, 0, fieldPart.length);
        IndexOps.putInt(k, fieldPart.length, keyHash(key, 0, key.length));
        System.arraycopy(key, 0, k, fieldPart.length + HASH, key.length);
        return k;
    }
}
