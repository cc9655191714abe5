package io.sluice.binary.internal;

import io.sluice.affinity.internal.Murmur3;
import java.util.List;

/**
 * Where named fields' values lie inside an encoded binary object ({@link ObjectLayout}), read from the object's
 * header and footer without decoding or wrapping it: what the node's field indexes need to take fields' stored
 * bytes out of a stored value. One locator may look for several fields ({@link #locateAll}): the header is then
 * parsed and the schema matched once for all of them (an entry's fields for all of a partition's indexes). The
 * schema's footer index of each field is found through the registry once per (type id, schema id) and remembered
 * for the last schema seen (objects of a type almost always share one). Allocates nothing when the schema is the
 * remembered one. Thread-safe.
 *
 * <p>It never throws on bad input: bytes that are not an object, an unknown type or schema, a schema without the
 * field, or a header or footer that does not hold together all answer "not found" (-1).
 */
public final class StoredFieldLocator {

    private final BinaryContext context;
    private final String[] fields;
    private final int[] fieldIds;
    /** The last schema resolved: type id, schema id, footer index per field (-1: no such field). Immutable, so racy reads are safe. */
    private volatile Resolved last;

    private record Resolved(int typeId, int schemaId, int[] index, int fields) {
    }

    /** A locator of one field. */
    public StoredFieldLocator(BinaryContext context, String field) {
        this(context, List.of(field));
    }

    /**
     * A locator of several fields, looked for together by {@link #locateAll} ({@link #locate} finds the first).
     *
     * @throws IllegalArgumentException if there are no fields
     * @throws NullPointerException     if the context, the list or a name is null
     */
    public StoredFieldLocator(BinaryContext context, List<String> fields) {
        this.context = java.util.Objects.requireNonNull(context, "context");
        if (fields.isEmpty()) {
            throw new IllegalArgumentException("no field to locate");
        }
        this.fields = fields.toArray(new String[0]);
        this.fieldIds = new int[this.fields.length];
        for (int i = 0; i < this.fields.length; i++) {
            fieldIds[i] = Murmur3.ofName(java.util.Objects.requireNonNull(this.fields[i], "field"));
        }
    }

    /** The (first) field's name. */
    public String field() {
        return fields[0];
    }

    /** How many fields {@link #locateAll} looks for. */
    public int fieldCount() {
        return fields.length;
    }

    /**
     * The (first) field's value (tag included) in the object encoded at {@code b[offset, offset + length)}, as
     * {@code start << 32 | end}, absolute indexes into {@code b}.
     *
     * @return the packed range, or -1 if the bytes are not a readable object of a known schema with the field
     */
    public long locate(byte[] b, int offset, int length) {
        int code = sizeCode(b, offset, length);
        if (code < 0) {
            return -1;
        }
        Resolved r = resolved(b, offset);
        return r == null ? -1 : range(b, offset, code, footer(b, offset, code, r), r.fields, r.index[0]);
    }

    /**
     * Every field's value in the object encoded at {@code b[offset, offset + length)}, one parse of its header:
     * {@code ranges[i]} gets field i's range as {@link #locate} gives it, or -1 where field i is missing (or its
     * footer entry does not hold together).
     *
     * @param ranges at least {@link #fieldCount()} long
     * @return false (and every range -1) if the bytes are not a readable object of a known schema
     */
    public boolean locateAll(byte[] b, int offset, int length, long[] ranges) {
        int code = sizeCode(b, offset, length);
        Resolved r = code < 0 ? null : resolved(b, offset);
        if (r == null) {
            java.util.Arrays.fill(ranges, 0, fields.length, -1L);
            return false;
        }
        int footer = footer(b, offset, code, r);
        int[] index = r.index;
        for (int i = 0; i < index.length; i++) {
            ranges[i] = range(b, offset, code, footer, r.fields, index[i]);
        }
        return true;
    }

    /** The start of a range {@link #locate} returned. */
    public static int start(long range) {
        return (int) (range >>> 32);
    }

    /** The end of a range {@link #locate} returned. */
    public static int end(long range) {
        return (int) range;
    }

    /**
     * The object's offset size code (offsets of {@code 1 << code} bytes) if the bytes start with a readable header
     * of this format version whose length fits them, else -1.
     */
    private static int sizeCode(byte[] b, int offset, int length) {
        if (length < ObjectLayout.MIN_HEADER || b[offset] != BinaryTags.OBJECT) {
            return -1;
        }
        int flags = b[offset + ObjectLayout.VERSION_FLAGS_OFFSET];
        int code = flags & 0x03;
        if ((flags & 0xF0) >>> 4 != ObjectLayout.VERSION || (flags & 0x0C) != 0 || code == 3) {
            return -1;
        }
        int s = 1 << code;
        int header = ObjectLayout.FIXED_HEADER + s;
        if (length < header) {
            return -1;
        }
        int total = ObjectLayout.readSized(b, offset + ObjectLayout.LENGTH_OFFSET, s);
        return total < header || total > length ? -1 : code;
    }

    /** The object's schema as resolved (remembered if it is the last one), or null if unknown. */
    private Resolved resolved(byte[] b, int offset) {
        int typeId = GrowableBuffer.getInt(b, offset + ObjectLayout.TYPE_ID_OFFSET);
        int schemaId = GrowableBuffer.getInt(b, offset + ObjectLayout.SCHEMA_ID_OFFSET);
        Resolved r = last;
        if (r == null || r.typeId != typeId || r.schemaId != schemaId) {
            r = resolve(typeId, schemaId);
            if (r != null) { // unknown: not remembered, it may be registered later
                last = r;
            }
        }
        return r;
    }

    /** Where the footer of an object whose header checked out starts (relative to the object), given its schema. */
    private static int footer(byte[] b, int offset, int code, Resolved r) {
        int s = 1 << code;
        return ObjectLayout.readSized(b, offset + ObjectLayout.LENGTH_OFFSET, s) - r.fields * s;
    }

    /**
     * The range of the value at footer index {@code index} (-1: none) of an object whose header checked out, with
     * {@code fields} footer entries from {@code footer}.
     */
    private static long range(byte[] b, int offset, int code, int footer, int fields, int index) {
        int s = 1 << code;
        int header = ObjectLayout.FIXED_HEADER + s;
        if (index < 0 || footer < header) {
            return -1;
        }
        int start = ObjectLayout.readSized(b, offset + footer + index * s, s);
        int end = index + 1 < fields ? ObjectLayout.readSized(b, offset + footer + (index + 1) * s, s) : footer;
        if (start < header || end <= start || end > footer) {
            return -1;
        }
        return (long) (offset + start) << 32 | (offset + end);
    }

    private Resolved resolve(int typeId, int schemaId) {
        TypeMeta type = context.registry().byId(typeId);
        Schema schema = type == null ? null : type.schema(schemaId);
        if (schema == null) {
            return null;
        }
        int[] index = new int[fields.length];
        for (int f = 0; f < fields.length; f++) {
            index[f] = -1;
            for (int i = 0; i < schema.size(); i++) {
                if (schema.fieldId(i) == fieldIds[f] && schema.fields[i].name.equals(fields[f])) {
                    index[f] = i;
                    break;
                }
            }
        }
        return new Resolved(typeId, schemaId, index, schema.size());
    }
}
