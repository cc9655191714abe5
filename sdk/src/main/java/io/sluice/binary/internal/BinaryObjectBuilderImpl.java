package io.sluice.binary.internal;

import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.binary.BinaryTypeMismatchException;

import java.util.Arrays;

import static io.sluice.binary.internal.ObjectLayout.FOOTER_ENTRY_SIZE;
import static io.sluice.binary.internal.ObjectLayout.HEADER_SIZE;

/**
 * Writes each value straight into its place in the object's stored form ({@link ObjectLayout});
 * {@link #build()} appends the footer, fills the header and copies the bytes out once.
 *
 * <p>Reuse is the fast path: the builder remembers the previous object's field order, and while
 * fields are set in that order by the same name instances it takes the field and the schema from
 * there (an identity check), so no map lookup and no allocation happens per field.
 */
final class BinaryObjectBuilderImpl implements BinaryObjectBuilder {

    private final BinaryContext context;
    private final TypeMeta type;
    private GrowableBuffer buf = new GrowableBuffer(256);
    private GrowableBuffer spare;

    private int count;
    private FieldMeta[] fields = new FieldMeta[8];
    private String[] names = new String[8];
    private int[] starts = new int[8];
    private int[] ends = new int[8];
    /** Some bytes in buf belong to no field (a value was replaced or removed): compact before the footer. */
    private boolean gaps;

    private String[] lastNames = new String[8];
    private FieldMeta[] lastFields = new FieldMeta[8];
    private int lastCount = -1;
    private Schema lastSchema;
    /** Every field set so far matched the previous object's field at the same index. */
    private boolean sameOrder = true;

    private FieldMeta pendingField;
    private int pendingSlot;

    BinaryObjectBuilderImpl(BinaryContext context, TypeMeta type) {
        this.context = context;
        this.type = type;
        buf.position(HEADER_SIZE);
    }

    /** A builder holding the fields of {@code from}. */
    BinaryObjectBuilderImpl(BinaryContext context, TypeMeta type, BinaryObjectImpl from) {
        this(context, type);
        for (int i = 0; i < from.fieldCount(); i++) {
            int s = from.valueStart(i);
            int e = from.valueEnd(i);
            int at = buf.position();
            buf.putBytes(from.bytes, s, e - s);
            FieldMeta f = from.fieldAt(i);
            addSlot(f.name, f, at, buf.position());
        }
        sameOrder = false;
    }

    @Override
    public BinaryObjectBuilder setField(String name, Object value) {
        resolve(name);
        int at = buf.position();
        try {
            context.encoder().encode(value, buf);
        } catch (RuntimeException | Error e) {
            buf.position(at);
            throw e;
        }
        return commit(name, at, BinaryTags.NULL, true);
    }

    @Override
    public <T> BinaryObjectBuilder setField(String name, T value, Class<? super T> cls) {
        resolve(name);
        int at = buf.position();
        try {
            context.encoder().encode(value, buf);
        } catch (RuntimeException | Error e) {
            buf.position(at);
            throw e;
        }
        return commit(name, at, BinaryTags.ofClass(cls), !cls.isPrimitive());
    }

    @Override
    public BinaryObjectBuilder setLong(String name, long value) {
        resolve(name);
        int at = buf.position();
        ValueEncoder.writeLong(buf, value);
        return commit(name, at, BinaryTags.NULL, true);
    }

    @Override
    public BinaryObjectBuilder setInt(String name, int value) {
        resolve(name);
        int at = buf.position();
        ValueEncoder.writeInt(buf, value);
        return commit(name, at, BinaryTags.NULL, true);
    }

    @Override
    public BinaryObjectBuilder setDouble(String name, double value) {
        resolve(name);
        int at = buf.position();
        ValueEncoder.writeDouble(buf, value);
        return commit(name, at, BinaryTags.NULL, true);
    }

    @Override
    public BinaryObjectBuilder setBoolean(String name, boolean value) {
        resolve(name);
        int at = buf.position();
        ValueEncoder.writeBoolean(buf, value);
        return commit(name, at, BinaryTags.NULL, true);
    }

    /**
     * Finds the field for the next set into {@link #pendingField} (null if not registered yet) and
     * {@link #pendingSlot} (its slot if already set in this object, else -1).
     */
    private void resolve(String name) {
        int i = count;
        if (sameOrder && i < lastCount && lastNames[i] == name) {
            pendingField = lastFields[i];
            pendingSlot = -1;
            return;
        }
        sameOrder = false;
        if (name == null) {
            throw new NullPointerException("field name of type '" + type.name + "'");
        }
        FieldMeta f = type.field(name);
        pendingField = f;
        pendingSlot = f == null ? -1 : slotOf(f);
    }

    /** Checks the value just written at {@code at} against the field's type and records its slot. */
    private BinaryObjectBuilder commit(String name, int at, byte declared, boolean nullable) {
        FieldMeta f = pendingField;
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
        int existing = pendingSlot;
        if (existing >= 0) {
            starts[existing] = at;
            ends[existing] = buf.position();
            gaps = true;
        } else {
            addSlot(name, f, at, buf.position());
        }
        return this;
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
        if (count == fields.length) {
            int n = count * 2;
            fields = Arrays.copyOf(fields, n);
            names = Arrays.copyOf(names, n);
            starts = Arrays.copyOf(starts, n);
            ends = Arrays.copyOf(ends, n);
        }
        fields[count] = f;
        names[count] = name;
        starts[count] = start;
        ends[count] = end;
        count++;
    }

    @Override
    public BinaryObjectBuilder removeField(String name) {
        FieldMeta f = type.field(name);
        int i = f == null ? -1 : slotOf(f);
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
            sameOrder = false;
        }
        return this;
    }

    @Override
    public BinaryObject build() {
        if (gaps) {
            compact();
        }
        boolean repeat = sameOrder && count == lastCount;
        Schema schema = repeat && lastSchema != null ? lastSchema : type.schema(fields, count);
        int footer = buf.position();
        buf.ensureRemaining(count * FOOTER_ENTRY_SIZE);
        for (int i = 0; i < count; i++) {
            buf.putInt(fields[i].id).putInt(starts[i]);
        }
        ObjectLayout.writeHeader(buf, 0, type.id, schema.id, footer);
        int total = buf.position();
        BinaryObjectImpl result = new BinaryObjectImpl(context, Arrays.copyOf(buf.array(), total), 0, total, type,
                schema);
        if (!repeat) {
            if (lastNames.length < count) {
                lastNames = new String[fields.length];
                lastFields = new FieldMeta[fields.length];
            }
            System.arraycopy(names, 0, lastNames, 0, count);
            System.arraycopy(fields, 0, lastFields, 0, count);
            lastCount = count;
        }
        lastSchema = schema;
        buf.position(HEADER_SIZE);
        count = 0;
        gaps = false;
        sameOrder = true;
        return result;
    }

    /** Copies the live values, in field order, to the spare buffer and swaps the two. */
    private void compact() {
        if (spare == null) {
            spare = new GrowableBuffer(buf.array().length);
        }
        spare.position(HEADER_SIZE);
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
