package io.sluice.binary.internal;

/**
 * The byte layout of a binary object (big-endian; offsets relative to the object's first byte,
 * which is its tag). Full description with test vectors: {@code docs/binary-format.md}.
 * <pre>
 * offset  size  meaning
 * 0       1     tag 0x20 (OBJECT)
 * 1       1     format version, 1
 * 2       2     flags, 0 in version 1 (readers reject others)
 * 4       4     type id: MurmurHash3 x86_32 (seed 0) of the type name's UTF-8 bytes
 * 8       4     hash: MurmurHash3 x86_32 (seed 0) of the field values [24, footer offset)
 * 12      4     total length L of the object, header and footer included
 * 16      4     schema id: MurmurHash3 x86_32 (seed 0) of the footer's field ids, each 4 bytes big-endian
 * 20      4     footer offset F (&gt;= 24, &lt;= L, (L - F) divisible by 8)
 * 24      F-24  field values, each a tagged value, in footer order
 * F       L-F   footer: per field, 4-byte field id then 4-byte offset of its value; offsets increase
 * </pre>
 * A field id is MurmurHash3 x86_32 (seed 0) of the field name's UTF-8 bytes. A value ends where
 * the next field's value starts (the last one at F).
 */
final class ObjectLayout {

    static final int VERSION = 1;
    static final int VERSION_OFFSET = 1;
    static final int FLAGS_OFFSET = 2;
    static final int TYPE_ID_OFFSET = 4;
    static final int HASH_OFFSET = 8;
    static final int LENGTH_OFFSET = 12;
    static final int SCHEMA_ID_OFFSET = 16;
    static final int FOOTER_OFFSET_OFFSET = 20;
    static final int HEADER_SIZE = 24;
    static final int FOOTER_ENTRY_SIZE = 8;

    private ObjectLayout() {
    }

    /**
     * Writes the header of an object whose values and footer are already in {@code out} from
     * {@code start}; the position is the object's end.
     */
    static void writeHeader(GrowableBuffer out, int start, int typeId, int schemaId, int footerOffset) {
        int total = out.position() - start;
        byte[] a = out.array();
        a[start] = BinaryTags.OBJECT;
        a[start + VERSION_OFFSET] = VERSION;
        out.putShortAt(start + FLAGS_OFFSET, 0);
        out.putIntAt(start + TYPE_ID_OFFSET, typeId);
        out.putIntAt(start + HASH_OFFSET, Murmur3.hash(a, start + HEADER_SIZE, footerOffset - HEADER_SIZE));
        out.putIntAt(start + LENGTH_OFFSET, total);
        out.putIntAt(start + SCHEMA_ID_OFFSET, schemaId);
        out.putIntAt(start + FOOTER_OFFSET_OFFSET, footerOffset);
    }
}
