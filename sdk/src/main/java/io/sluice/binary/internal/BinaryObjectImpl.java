package io.sluice.binary.internal;

import io.sluice.binary.BinaryFormatException;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.binary.BinaryType;

import java.util.Arrays;

import static io.sluice.binary.internal.ObjectLayout.*;

/**
 * A flyweight over a binary object's bytes ({@link ObjectLayout}) inside a larger array. The
 * header and footer are checked once, when it is wrapped; a field read finds the value through the
 * schema's index and the footer and decodes only that value.
 */
final class BinaryObjectImpl implements BinaryObject {

    final BinaryContext context;
    final byte[] bytes;
    final int start;
    final int length;
    final TypeMeta type;
    final Schema schema;
    private final int footer;

    BinaryObjectImpl(BinaryContext context, byte[] bytes, int start, int length, TypeMeta type, Schema schema) {
        this.context = context;
        this.bytes = bytes;
        this.start = start;
        this.length = length;
        this.type = type;
        this.schema = schema;
        this.footer = GrowableBuffer.getInt(bytes, start + FOOTER_OFFSET_OFFSET);
    }

    /**
     * Wraps the object starting at {@code start}, which must end by {@code limit}, after checking its
     * header and footer; offsets in errors are relative to {@code base}.
     *
     * @throws BinaryFormatException if the header or footer is inconsistent or names an unknown type or schema
     */
    static BinaryObjectImpl wrap(BinaryContext context, byte[] b, int start, int limit, int base) {
        int at = start - base;
        if (limit - start < HEADER_SIZE) {
            throw new BinaryFormatException("object header needs " + HEADER_SIZE + " bytes but " + (limit - start)
                    + " remain at offset " + at);
        }
        if (b[start] != BinaryTags.OBJECT) {
            throw new BinaryFormatException(String.format("tag 0x%02x is not an object at offset %d", b[start], at));
        }
        if (b[start + VERSION_OFFSET] != VERSION) {
            throw new BinaryFormatException("object format version " + b[start + VERSION_OFFSET]
                    + " is not the supported " + VERSION + " at offset " + at);
        }
        short flags = GrowableBuffer.getShort(b, start + FLAGS_OFFSET);
        if (flags != 0) {
            throw new BinaryFormatException("object flags " + flags + " are not 0 at offset " + at);
        }
        int total = GrowableBuffer.getInt(b, start + LENGTH_OFFSET);
        if (total < HEADER_SIZE || total > limit - start) {
            throw new BinaryFormatException("object length " + total + " is outside [" + HEADER_SIZE + ", "
                    + (limit - start) + "] (the bytes remaining) at offset " + at);
        }
        int footer = GrowableBuffer.getInt(b, start + FOOTER_OFFSET_OFFSET);
        if (footer < HEADER_SIZE || footer > total || (total - footer) % FOOTER_ENTRY_SIZE != 0) {
            throw new BinaryFormatException("footer offset " + footer + " is outside the object of " + total
                    + " bytes or leaves a partial entry, at offset " + at);
        }
        int typeId = GrowableBuffer.getInt(b, start + TYPE_ID_OFFSET);
        TypeMeta type = context.registry().byId(typeId);
        if (type == null) {
            throw new BinaryFormatException("unknown type id " + typeId + " at offset " + at);
        }
        int schemaId = GrowableBuffer.getInt(b, start + SCHEMA_ID_OFFSET);
        Schema schema = type.schema(schemaId);
        if (schema == null) {
            throw new BinaryFormatException("unknown schema id " + schemaId + " of type '" + type.name
                    + "' at offset " + at);
        }
        int n = (total - footer) / FOOTER_ENTRY_SIZE;
        if (n != schema.size()) {
            throw new BinaryFormatException("footer has " + n + " fields but schema " + schemaId + " of type '"
                    + type.name + "' has " + schema.size() + ", at offset " + at);
        }
        int previous = HEADER_SIZE - 1;
        for (int i = 0; i < n; i++) {
            int entry = start + footer + i * FOOTER_ENTRY_SIZE;
            int fieldId = GrowableBuffer.getInt(b, entry);
            int offset = GrowableBuffer.getInt(b, entry + 4);
            if (fieldId != schema.fieldId(i)) {
                throw new BinaryFormatException("footer entry " + i + " has field id " + fieldId + " but schema "
                        + schemaId + " of type '" + type.name + "' has " + schema.fieldId(i) + ", at offset "
                        + (entry - base));
            }
            boolean first = i == 0;
            if ((first && offset != HEADER_SIZE) || offset <= previous || offset >= footer) {
                throw new BinaryFormatException("field '" + schema.fields[i].name + "' offset " + offset
                        + " is not after the previous value and before the footer (" + footer + "), at offset "
                        + (entry + 4 - base));
            }
            previous = offset;
        }
        if (n == 0 && footer != HEADER_SIZE) {
            throw new BinaryFormatException("object with no fields has " + (footer - HEADER_SIZE)
                    + " bytes of values at offset " + at);
        }
        return new BinaryObjectImpl(context, b, start, total, type, schema);
    }

    int fieldCount() {
        return schema.size();
    }

    FieldMeta fieldAt(int index) {
        return schema.fields[index];
    }

    /** Absolute index of the first byte of the index-th value. */
    int valueStart(int index) {
        return start + GrowableBuffer.getInt(bytes, start + footer + index * FOOTER_ENTRY_SIZE + 4);
    }

    /** Absolute index just past the index-th value. */
    int valueEnd(int index) {
        return index + 1 < schema.size() ? valueStart(index + 1) : start + footer;
    }

    Object valueAt(int index, boolean keepBinary) {
        int from = valueStart(index);
        int to = valueEnd(index);
        // scalars and plain strings, the common case, without a reader
        byte tag = bytes[from];
        int size = to - from;
        if (tag == BinaryTags.STRING) {
            String s = ValueReader.plainString(bytes, from, to);
            if (s != null) {
                return s;
            }
        } else if (tag == BinaryTags.LONG && size == 9) {
            return GrowableBuffer.getLong(bytes, from + 1) ^ Long.MIN_VALUE;
        } else if (tag == BinaryTags.DOUBLE && size == 9) {
            return ValueEncoder.fromOrderedBits(GrowableBuffer.getLong(bytes, from + 1));
        } else if (tag == BinaryTags.INT && size == 5) {
            return GrowableBuffer.getInt(bytes, from + 1) ^ Integer.MIN_VALUE;
        } else if (tag == BinaryTags.BOOLEAN && size == 2 && (bytes[from + 1] & 0xfe) == 0) {
            return bytes[from + 1] == 1;
        }
        ValueReader r = new ValueReader(context, bytes, start, from, to, keepBinary);
        return r.readWhole(schema.fields[index].name);
    }

    /** The footer index of the named field, or -1. */
    int indexOf(String name) {
        FieldMeta f = type.field(name);
        return f == null ? -1 : schema.indexOf(f);
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T field(String name) {
        int i = indexOf(name);
        return i < 0 ? null : (T) valueAt(i, true);
    }

    @Override
    public boolean hasField(String name) {
        return indexOf(name) >= 0;
    }

    @Override
    public BinaryType type() {
        return type;
    }

    @Override
    public BinaryObjectBuilder toBuilder() {
        return new BinaryObjectBuilderImpl(context, type, this);
    }

    @Override
    public <T> T deserialize(Class<T> cls) {
        return context.deserialize(this, cls);
    }

    @Override
    public byte[] toBytes() {
        return Arrays.copyOfRange(bytes, start, start + length);
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof BinaryObjectImpl)) {
            return false;
        }
        BinaryObjectImpl other = (BinaryObjectImpl) o;
        return Arrays.equals(bytes, start, start + length, other.bytes, other.start, other.start + other.length);
    }

    @Override
    public int hashCode() {
        return GrowableBuffer.getInt(bytes, start + HASH_OFFSET);
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder(type.name).append('{');
        for (int i = 0; i < schema.size(); i++) {
            if (i > 0) {
                s.append(", ");
            }
            Object v = valueAt(i, true);
            s.append(schema.fields[i].name).append('=').append(v instanceof byte[] ? Arrays.toString((byte[]) v) : v);
        }
        return s.append('}').toString();
    }
}
