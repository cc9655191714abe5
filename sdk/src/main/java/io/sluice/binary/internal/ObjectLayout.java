package io.sluice.binary.internal;

import io.sluice.binary.BinaryFormatException;

/**
 * The byte layout of a binary object, format version 2 (big-endian; offsets relative to the
 * object's first byte, which is its tag). Full description with test vectors:
 * {@code docs/binary-format.md}.
 * <pre>
 * offset   size   meaning
 * 0        1      tag 0x20 (OBJECT)
 * 1        1      version and flags: high nibble 2 (the version); bits 0-1 the offset size s
 *                 (0: 1 byte, 1: 2 bytes, 2: 4 bytes); bits 2-3 zero
 * 2        4      type id: MurmurHash3 x86_32 (seed 0) of the type name's UTF-8 bytes
 * 6        4      schema id: MurmurHash3 x86_32 (seed 0) of the schema's field ids, 4 bytes each
 * 10       s      total length L of the object, header and footer included (unsigned)
 * 10+s     ...    field values, each a tagged value, in schema order, back to back
 * L-n*s    n*s    footer: per field of the schema (n of them), the offset of its value (unsigned, s bytes)
 * </pre>
 * The header is H = 10 + s bytes; s is the smallest size that holds L (L &lt; 256: 1 byte; &lt; 65,536: 2;
 * else 4). Field ids live in the schema, which both sides register once per type; the first value
 * starts at H and each ends where the next starts (the last at the footer). No hash is stored:
 * {@code hashCode()} hashes the bytes on demand.
 */
final class ObjectLayout {

    static final int VERSION = 2;
    static final int VERSION_FLAGS_OFFSET = 1;
    static final int TYPE_ID_OFFSET = 2;
    static final int SCHEMA_ID_OFFSET = 6;
    static final int LENGTH_OFFSET = 10;
    /** The header without its length field. */
    static final int FIXED_HEADER = 10;
    /** The smallest header (1-byte offsets): where writers put the first value before they know L. */
    static final int MIN_HEADER = FIXED_HEADER + 1;
    /** The largest header (4-byte offsets). */
    static final int MAX_HEADER = FIXED_HEADER + 4;

    private static final int SIZE_BITS = 0x03;
    private static final int RESERVED_BITS = 0x0C;

    private ObjectLayout() {
    }

    /** The offset size s for an object of {@code values} value bytes and {@code n} fields. */
    static int offsetSize(int values, int n) {
        if ((long) FIXED_HEADER + 1 + values + n < 256) {
            return 1;
        }
        if ((long) FIXED_HEADER + 2 + values + 2L * n < 65_536) {
            return 2;
        }
        return 4;
    }

    /** The object's length for that offset size. */
    static int length(int values, int n, int s) {
        long total = (long) FIXED_HEADER + s + values + (long) n * s;
        if (total > Integer.MAX_VALUE - 16) {
            throw new IllegalArgumentException("binary object of " + total + " bytes is too large");
        }
        return (int) total;
    }

    /** The version-and-flags byte for offset size s. */
    static byte versionFlags(int s) {
        return (byte) (VERSION << 4 | (s == 1 ? 0 : s == 2 ? 1 : 2));
    }

    /**
     * The offset size a version-and-flags byte names.
     *
     * @throws BinaryFormatException if the version is not 2 or reserved bits are set
     */
    static int offsetSize(byte versionFlags, int at) {
        int v = (versionFlags & 0xF0) >>> 4;
        if (v != VERSION) {
            throw new BinaryFormatException("object format version " + v + " is not the supported " + VERSION
                    + " at offset " + at + (v == 0 ? " (version 1 objects are not readable: see docs/binary-format.md)"
                    : ""));
        }
        int code = versionFlags & SIZE_BITS;
        if ((versionFlags & RESERVED_BITS) != 0 || code == 3) {
            throw new BinaryFormatException(String.format("object flags 0x%02x are not valid at offset %d",
                    versionFlags & 0x0F, at));
        }
        return 1 << code;
    }

    /** Reads an unsigned number of s bytes. */
    static int readSized(byte[] b, int at, int s) {
        switch (s) {
            case 1:
                return b[at] & 0xFF;
            case 2:
                return GrowableBuffer.getShort(b, at) & 0xFFFF;
            default:
                return GrowableBuffer.getInt(b, at);
        }
    }

    /** Writes a number as s bytes. */
    static void writeSized(byte[] b, int at, int s, int value) {
        switch (s) {
            case 1:
                b[at] = (byte) value;
                break;
            case 2:
                b[at] = (byte) (value >>> 8);
                b[at + 1] = (byte) value;
                break;
            default:
                b[at] = (byte) (value >>> 24);
                b[at + 1] = (byte) (value >>> 16);
                b[at + 2] = (byte) (value >>> 8);
                b[at + 3] = (byte) value;
                break;
        }
    }

    /** Writes the header of an object at {@code at} in b. */
    static void writeHeader(byte[] b, int at, int s, int typeId, int schemaId, int length) {
        b[at] = BinaryTags.OBJECT;
        b[at + VERSION_FLAGS_OFFSET] = versionFlags(s);
        putInt(b, at + TYPE_ID_OFFSET, typeId);
        putInt(b, at + SCHEMA_ID_OFFSET, schemaId);
        writeSized(b, at + LENGTH_OFFSET, s, length);
    }

    private static void putInt(byte[] b, int at, int v) {
        b[at] = (byte) (v >>> 24);
        b[at + 1] = (byte) (v >>> 16);
        b[at + 2] = (byte) (v >>> 8);
        b[at + 3] = (byte) v;
    }

    /**
     * Finishes an object being written in place in {@code out}: its values are at
     * {@code [start + MIN_HEADER, out.position())}, value i starting at {@code start + MIN_HEADER +
     * valueOffsets[i]}. Moves the values right if the header needs more than one length byte, then
     * writes header and footer; the position ends after the object.
     */
    static void finishInPlace(GrowableBuffer out, int start, int typeId, int schemaId, int[] valueOffsets, int n) {
        int values = out.position() - start - MIN_HEADER;
        int s = offsetSize(values, n);
        int length = length(values, n, s);
        int header = FIXED_HEADER + s;
        out.ensureRemaining(length - (MIN_HEADER + values));
        byte[] b = out.array();
        if (header != MIN_HEADER) {
            System.arraycopy(b, start + MIN_HEADER, b, start + header, values);
        }
        writeHeader(b, start, s, typeId, schemaId, length);
        int footer = start + header + values;
        for (int i = 0; i < n; i++) {
            writeSized(b, footer + i * s, s, header + valueOffsets[i]);
        }
        out.position(start + length);
    }
}
