package io.sluice.binary.internal;

import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.binary.BinaryTypeMismatchException;

import java.util.Arrays;

import static io.sluice.binary.internal.ObjectLayout.FIXED_HEADER;
import static io.sluice.binary.internal.ObjectLayout.MIN_HEADER;

/**
 * Writes each value straight into its place in the object's stored form ({@link ObjectLayout});
 * {@link #build()} appends the footer, fills the header and copies the bytes out once, into the object's
 * array or, {@link #buildInto}, into a streamer's scratch.
 *
 * <p>Reuse is the fast path. The builder remembers the previous object's fields in order; while
 * the fields are set again in that order with the same name instances (an identity check), a set
 * is: write the value, compare its tag with the field's, record its offset. No map lookup, no
 * allocation, and {@link #build()} reuses the previous schema. Anything else (a new order, a
 * replaced or removed field, an explicit type) switches to the general path for that object.
 */
final class BinaryObjectBuilderImpl implements AsciiStringBuilder {

    private final BinaryContext context;
    private final TypeMeta type;
    private GrowableBuffer buf = new GrowableBuffer(256);
    private GrowableBuffer spare;

    /** Fields set so far. */
    private int count;
    /** Where each field's value starts in buf; always kept. */
    private int[] starts = new int[8];
    /** General path only: each field, its name as given, and where its value ends. */
    private FieldMeta[] fields = new FieldMeta[8];
    private String[] names = new String[8];
    private int[] ends = new int[8];
    /** General path only: some bytes in buf belong to no field (a value was replaced or removed). */
    private boolean gaps;

    /** The previous object's fields and their names as given, and its schema. */
    private FieldMeta[] lastFields = new FieldMeta[8];
    private String[] lastNames = new String[8];
    private int lastCount = -1;
    private Schema lastSchema;
    /**
     * Fast path: the fields set so far are the previous object's first {@code count} fields, their
     * values back to back; only {@link #starts} is kept.
     */
    private boolean sameOrder = true;

    BinaryObjectBuilderImpl(BinaryContext context, TypeMeta type) {
        this.context = context;
        this.type = type;
        buf.position(MIN_HEADER);
    }

    /** A builder holding the fields of {@code from}. */
    BinaryObjectBuilderImpl(BinaryContext context, TypeMeta type, BinaryObjectImpl from) {
        this(context, type);
        sameOrder = false;
        for (int i = 0; i < from.fieldCount(); i++) {
            int s = from.valueStart(i);
            int e = from.valueEnd(i);
            int at = buf.position();
            buf.putBytes(from.bytes, s, e - s);
            FieldMeta f = from.fieldAt(i);
            addSlot(f.name, f, at, buf.position());
        }
    }

    @Override
    public BinaryObjectBuilder setField(String name, Object value) {
        int at = buf.position();
        try {
            context.encoder().encode(value, buf);
        } catch (RuntimeException | Error e) {
            buf.position(at);
            throw e;
        }
        return placed(name, at);
    }

    @Override
    public <T> BinaryObjectBuilder setField(String name, T value, Class<? super T> cls) {
        int at = buf.position();
        try {
            context.encoder().encode(value, buf);
        } catch (RuntimeException | Error e) {
            buf.position(at);
            throw e;
        }
        return placedSlow(name, at, BinaryTags.ofClass(cls), !cls.isPrimitive());
    }

    @Override
    public BinaryObjectBuilder setLong(String name, long value) {
        int at = buf.position();
        ValueEncoder.writeLong(buf, value);
        return placed(name, at);
    }

    @Override
    public BinaryObjectBuilder setInt(String name, int value) {
        int at = buf.position();
        ValueEncoder.writeInt(buf, value);
        return placed(name, at);
    }

    @Override
    public BinaryObjectBuilder setDouble(String name, double value) {
        int at = buf.position();
        ValueEncoder.writeDouble(buf, value);
        return placed(name, at);
    }

    @Override
    public BinaryObjectBuilder setBoolean(String name, boolean value) {
        int at = buf.position();
        ValueEncoder.writeBoolean(buf, value);
        return placed(name, at);
    }

    @Override
    public BinaryObjectBuilder setString(String name, char[] chars, int offset, int length) {
        int at = buf.position();
        ValueEncoder.writeString(buf, chars, offset, length);
        return placed(name, at);
    }

    @Override
    public BinaryObjectBuilder setAsciiString(String name, byte[] ascii, int offset, int length) {
        int at = buf.position();
        ValueEncoder.writeAsciiString(buf, ascii, offset, length);
        return placed(name, at);
    }

    /** Records the value just written at {@code at} as field {@code name}. */
    private BinaryObjectBuilder placed(String name, int at) {
        int i = count;
        if (sameOrder && i < lastCount && lastNames[i] == name) {
            FieldMeta f = lastFields[i];
            if (buf.array()[at] != f.tag()) {
                check(f, name, at);
            }
            if (i == starts.length) {
                ensureSlots(i + 1);
            }
            starts[i] = at;
            count = i + 1;
            return this;
        }
        return placedSlow(name, at, BinaryTags.NULL, true);
    }

    /** The general path: finds or registers the field, checks the type, replaces or appends. */
    private BinaryObjectBuilder placedSlow(String name, int at, byte declared, boolean nullable) {
        if (name == null) {
            buf.position(at);
            throw new NullPointerException("field name of type '" + type.name + "'");
        }
        leaveFastPath(at);
        FieldMeta f = type.field(name);
        byte actual = buf.array()[at];
        try {
            if (declared != BinaryTags.NULL && declared != BinaryTags.ANY && actual != BinaryTags.NULL
                    && actual != declared) {
                throw new BinaryTypeMismatchException(type.name, name, BinaryTags.typeName(declared),
                        BinaryTags.typeName(actual));
            }
            if (f == null) {
                f = type.register(name, declared != BinaryTags.NULL ? declared : actual, nullable);
            } else if (declared != BinaryTags.NULL && declared != BinaryTags.ANY) {
                type.check(f, declared);
            }
            type.check(f, actual);
        } catch (RuntimeException e) {
            buf.position(at);
            throw e;
        }
        int existing = slotOf(f);
        if (existing >= 0) {
            starts[existing] = at;
            ends[existing] = buf.position();
            gaps = true;
        } else {
            addSlot(name, f, at, buf.position());
        }
        return this;
    }

    /** A value whose tag is not the field's registered one: allowed (null, UNSET, ANY) or rolled back. */
    private void check(FieldMeta f, String name, int at) {
        try {
            type.check(f, buf.array()[at]);
        } catch (RuntimeException e) {
            buf.position(at);
            throw e;
        }
    }

    /** Switches to the general path, materialising the fields, names and value ends so far. */
    private void leaveFastPath(int end) {
        if (!sameOrder) {
            return;
        }
        sameOrder = false;
        ensureSlots(count);
        System.arraycopy(lastFields, 0, fields, 0, count);
        System.arraycopy(lastNames, 0, names, 0, count);
        for (int k = 0; k < count; k++) {
            ends[k] = k + 1 < count ? starts[k + 1] : end;
        }
    }

    private int slotOf(FieldMeta f) {
        for (int i = 0; i < count; i++) {
            if (fields[i] == f) {
                return i;
            }
        }
        return -1;
    }

    private void addSlot(String name, FieldMeta f, int start, int end) {
        ensureSlots(count + 1);
        fields[count] = f;
        names[count] = name;
        starts[count] = start;
        ends[count] = end;
        count++;
    }

    private void ensureSlots(int n) {
        if (n > fields.length || n > starts.length) {
            int size = Math.max(n, fields.length * 2);
            fields = Arrays.copyOf(fields, size);
            names = Arrays.copyOf(names, size);
            starts = Arrays.copyOf(starts, size);
            ends = Arrays.copyOf(ends, size);
        }
    }

    @Override
    public BinaryObjectBuilder removeField(String name) {
        FieldMeta f = type.field(name);
        if (f == null) {
            return this;
        }
        leaveFastPath(buf.position());
        int i = slotOf(f);
        if (i >= 0) {
            int tail = count - i - 1;
            System.arraycopy(fields, i + 1, fields, i, tail);
            System.arraycopy(names, i + 1, names, i, tail);
            System.arraycopy(starts, i + 1, starts, i, tail);
            System.arraycopy(ends, i + 1, ends, i, tail);
            count--;
            fields[count] = null;
            names[count] = null;
            gaps = true;
        }
        return this;
    }

    @Override
    public BinaryContext context() {
        return context;
    }

    @Override
    public BinaryObject build() {
        Schema schema = schemaOfBuild();
        // The values were written after the smallest header; the result gets the header it needs.
        int values = buf.position() - MIN_HEADER;
        int s = ObjectLayout.offsetSize(values, count);
        int total = ObjectLayout.length(values, count, s);
        byte[] out = new byte[total];
        writeObject(out, 0, schema, values, s, total);
        BinaryObjectImpl result = new BinaryObjectImpl(context, out, 0, total, type, schema, s);
        finishBuild(schema);
        return result;
    }

    @Override
    public void buildInto(GrowableBuffer out) {
        int at = out.position();
        try {
            Schema schema = schemaOfBuild();
            int values = buf.position() - MIN_HEADER;
            int s = ObjectLayout.offsetSize(values, count);
            int total = ObjectLayout.length(values, count, s);
            out.ensureRemaining(total);
            writeObject(out.array(), at, schema, values, s, total);
            out.position(at + total);
            finishBuild(schema);
        } catch (RuntimeException | Error e) {
            out.position(at);
            clear();
            throw e;
        }
    }

    /** The schema of the object being built: the previous one's on the fast path, else found or registered. */
    private Schema schemaOfBuild() {
        if (sameOrder && count != lastCount) {
            leaveFastPath(buf.position());
        }
        if (sameOrder) {
            return lastSchema;
        }
        if (gaps) {
            compact();
        }
        return type.schema(fields, count);
    }

    /** Writes header, values and footer of the object ({@code total} bytes, offset size s) into b at {@code at}. */
    private void writeObject(byte[] b, int at, Schema schema, int values, int s, int total) {
        int header = FIXED_HEADER + s;
        ObjectLayout.writeHeader(b, at, s, type.id, schema.id, total);
        System.arraycopy(buf.array(), MIN_HEADER, b, at + header, values);
        int footer = at + header + values;
        int shift = header - MIN_HEADER;
        for (int i = 0; i < count; i++) {
            ObjectLayout.writeSized(b, footer + i * s, s, starts[i] + shift);
        }
    }

    /** Empties the builder after an object was written, remembering its layout for the next one's fast path. */
    private void finishBuild(Schema schema) {
        if (!sameOrder) {
            if (lastFields.length < count) {
                lastFields = new FieldMeta[fields.length];
                lastNames = new String[fields.length];
            }
            System.arraycopy(fields, 0, lastFields, 0, count);
            System.arraycopy(names, 0, lastNames, 0, count);
            Arrays.fill(fields, 0, count, null);
            Arrays.fill(names, 0, count, null);
            lastCount = count;
        }
        lastSchema = schema;
        buf.position(MIN_HEADER);
        count = 0;
        gaps = false;
        sameOrder = true;
    }

    @Override
    public void clear() {
        if (!sameOrder) {
            Arrays.fill(fields, 0, count, null);
            Arrays.fill(names, 0, count, null);
        }
        buf.position(MIN_HEADER);
        count = 0;
        gaps = false;
        sameOrder = true;
    }

    /** Copies the live values, in field order, to the spare buffer and swaps the two. */
    private void compact() {
        if (spare == null) {
            spare = new GrowableBuffer(buf.array().length);
        }
        spare.position(MIN_HEADER);
        for (int i = 0; i < count; i++) {
            int s = spare.position();
            spare.putBytes(buf.array(), starts[i], ends[i] - starts[i]);
            starts[i] = s;
            ends[i] = spare.position();
        }
        GrowableBuffer t = buf;
        buf = spare;
        spare = t;
        gaps = false;
    }
}
