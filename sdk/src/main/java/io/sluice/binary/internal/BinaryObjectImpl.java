package io.sluice.binary.internal;

import io.sluice.affinity.internal.Murmur3;

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
    /** Bytes per footer offset: 1, 2 or 4 (a byte keeps the flyweight small: it is the per-object overhead). */
    private final byte offsetSize;
    /** The footer's offset from {@link #start}. */
    private final int footer;
    /** The hash of the bytes, computed on first use (0 until then). */
    private int hash;
    private boolean hashed;

    BinaryObjectImpl(BinaryContext context, byte[] bytes, int start, int length, TypeMeta type, Schema schema,
                     int offsetSize) {
        this.context = context;
        this.bytes = bytes;
        this.start = start;
        this.length = length;
        this.type = type;
        this.schema = schema;
        this.offsetSize = (byte) offsetSize;
        this.footer = length - schema.size() * offsetSize;
    }

    /**
     * Wraps the object starting at {@code start}, which must end by {@code limit}, after checking its
     * header and footer; offsets in errors are relative to {@code base}.
     *
     * @throws BinaryFormatException if the header or footer is inconsistent or names an unknown type or schema
     */
    static BinaryObjectImpl wrap(BinaryContext context, byte[] b, int start, int limit, int base) {
        Schema schema = check(context, b, start, limit, base);
        int s = ObjectLayout.offsetSize(b[start + VERSION_FLAGS_OFFSET], start - base);
        return new BinaryObjectImpl(context, b, start, readSized(b, start + LENGTH_OFFSET, s), schema.type, schema, s);
    }

    /**
     * The schema of the object at {@code start} (header already bounds-checked), by its type id and
     * schema id.
     *
     * @throws BinaryFormatException naming the ids if this context does not know them
     */
    static Schema schemaOf(BinaryContext context, byte[] b, int start, int at) {
        int typeId = GrowableBuffer.getInt(b, start + TYPE_ID_OFFSET);
        int schemaId = GrowableBuffer.getInt(b, start + SCHEMA_ID_OFFSET);
        TypeMeta type = context.registry().byId(typeId);
        if (type == null) {
            throw new BinaryFormatException("unknown type id " + typeId + " (schema id " + schemaId + ") at offset "
                    + at + ": this process has no metadata for the object's type; register it (type metadata is"
                    + " exchanged with the node, see docs/binary-format.md)");
        }
        Schema schema = type.schema(schemaId);
        if (schema == null) {
            throw new BinaryFormatException("unknown schema id " + schemaId + " of type '" + type.name
                    + "' at offset " + at + ": this process has no metadata for that field order of the type");
        }
        return schema;
    }

    /**
     * Checks the header and footer of the object starting at {@code start} (it must end by
     * {@code limit}) without allocating: known type and schema, length, offsets. Offsets in errors are
     * relative to {@code base}.
     *
     * @return the object's schema
     * @throws BinaryFormatException if the header or footer is inconsistent or names an unknown type or schema
     */
    static Schema check(BinaryContext context, byte[] b, int start, int limit, int base) {
        int at = start - base;
        if (limit - start < MIN_HEADER) {
            throw new BinaryFormatException("object header needs at least " + MIN_HEADER + " bytes but "
                    + (limit - start) + " remain at offset " + at);
        }
        if (b[start] != BinaryTags.OBJECT) {
            throw new BinaryFormatException(String.format("tag 0x%02x is not an object at offset %d", b[start], at));
        }
        int s = ObjectLayout.offsetSize(b[start + VERSION_FLAGS_OFFSET], at);
        int header = FIXED_HEADER + s;
        if (limit - start < header) {
            throw new BinaryFormatException("object header needs " + header + " bytes but " + (limit - start)
                    + " remain at offset " + at);
        }
        int total = readSized(b, start + LENGTH_OFFSET, s);
        if (total < header || total > limit - start) {
            throw new BinaryFormatException("object length " + Integer.toUnsignedString(total) + " is outside ["
                    + header + ", " + (limit - start) + "] (the bytes remaining) at offset " + at);
        }
        Schema schema = schemaOf(context, b, start, at);
        int n = schema.size();
        int footer = total - n * s;
        if (footer < header) {
            throw new BinaryFormatException("object of " + total + " bytes is too short for its header and the " + n
                    + " footer offsets of schema " + schema.id + " of type '" + schema.type.name + "', at offset " + at);
        }
        int previous = header - 1;
        for (int i = 0; i < n; i++) {
            int entry = start + footer + i * s;
            int offset = readSized(b, entry, s);
            if ((i == 0 && offset != header) || offset <= previous || offset >= footer) {
                throw new BinaryFormatException("field '" + schema.fields[i].name + "' offset "
                        + Integer.toUnsignedString(offset) + " is not after the previous value and before the footer ("
                        + footer + "), at offset " + (entry - base));
            }
            previous = offset;
        }
        if (n == 0 && footer != header) {
            throw new BinaryFormatException("object with no fields has " + (footer - header)
                    + " bytes of values at offset " + at);
        }
        return schema;
    }

    int fieldCount() {
        return schema.size();
    }

    FieldMeta fieldAt(int index) {
        return schema.fields[index];
    }

    /** Absolute index of the first byte of the index-th value. */
    int valueStart(int index) {
        return start + readSized(bytes, start + footer + index * offsetSize, offsetSize);
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

    /** The hash of the object's bytes (equal objects have equal bytes), computed once per instance. */
    @Override
    public int hashCode() {
        if (!hashed) {
            hash = Murmur3.hash(bytes, start, length);
            hashed = true;
        }
        return hash;
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
