package io.sluice.binary.internal;

import io.sluice.affinity.internal.Murmur3;

/**
 * Where one named field's value lies inside an encoded binary object ({@link ObjectLayout}), read from the
 * object's header and footer without decoding or wrapping it: what the node's field indexes need to take a
 * field's stored bytes out of a stored value. The schema's footer index of the field is found through the
 * registry once per (type id, schema id) and remembered for the last schema seen (objects of a type almost
 * always share one). Allocates nothing when the schema is the remembered one. Thread-safe.
 *
 * <p>It never throws on bad input: bytes that are not an object, an unknown type or schema, a schema
 * without the field, or a header or footer that does not hold together all answer "not found" (-1).
 */
public final class StoredFieldLocator {

    private final BinaryContext context;
    private final String field;
    private final int fieldId;
    /** The last schema resolved: type id, schema id, footer index (-1: no such field). Immutable, so racy reads are safe. */
    private volatile Resolved last;

    private record Resolved(int typeId, int schemaId, int index, int fields) {
    }

    public StoredFieldLocator(BinaryContext context, String field) {
        this.context = java.util.Objects.requireNonNull(context, "context");
        this.field = java.util.Objects.requireNonNull(field, "field");
        this.fieldId = Murmur3.ofName(field);
    }

    /** The field's name. */
    public String field() {
        return field;
    }

    /**
     * The field's value (tag included) in the object encoded at {@code b[offset, offset + length)}, as
     * {@code start << 32 | end}, absolute indexes into {@code b}.
     *
     * @return the packed range, or -1 if the bytes are not a readable object of a known schema with the field
     */
    public long locate(byte[] b, int offset, int length) {
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
        if (total < header || total > length) {
            return -1;
        }
        int typeId = GrowableBuffer.getInt(b, offset + ObjectLayout.TYPE_ID_OFFSET);
        int schemaId = GrowableBuffer.getInt(b, offset + ObjectLayout.SCHEMA_ID_OFFSET);
        Resolved r = last;
        if (r == null || r.typeId != typeId || r.schemaId != schemaId) {
            r = resolve(typeId, schemaId);
            if (r == null) {
                return -1; // unknown type or schema: not remembered, it may be registered later
            }
            last = r;
        }
        if (r.index < 0) {
            return -1;
        }
        int footer = total - r.fields * s;
        if (footer < header) {
            return -1;
        }
        int start = ObjectLayout.readSized(b, offset + footer + r.index * s, s);
        int end = r.index + 1 < r.fields ? ObjectLayout.readSized(b, offset + footer + (r.index + 1) * s, s) : footer;
        if (start < header || end <= start || end > footer) {
            return -1;
        }
        return (long) (offset + start) << 32 | (offset + end);
    }

    /** The start of a range {@link #locate} returned. */
    public static int start(long range) {
        return (int) (range >>> 32);
    }

    /** The end of a range {@link #locate} returned. */
    public static int end(long range) {
        return (int) range;
    }

    private Resolved resolve(int typeId, int schemaId) {
        TypeMeta type = context.registry().byId(typeId);
        Schema schema = type == null ? null : type.schema(schemaId);
        if (schema == null) {
            return null;
        }
        int index = -1;
        for (int i = 0; i < schema.size(); i++) {
            if (schema.fieldId(i) == fieldId && schema.fields[i].name.equals(field)) {
                index = i;
                break;
            }
        }
        return new Resolved(typeId, schemaId, index, schema.size());
    }
}
