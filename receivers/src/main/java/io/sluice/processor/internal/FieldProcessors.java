package io.sluice.processor.internal;

import io.sluice.Processors;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.binary.internal.FieldLocator;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.binary.internal.ValueCodec;
import io.sluice.pagestore.internal.StoredEntry;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The built-in declarative processors of {@link Processors}: they change fields of a stored binary
 * object. Each instance belongs to one apply thread and reuses its scratch buffers, so processing a
 * key allocates nothing beyond what a changed object needs.
 */
abstract class FieldProcessors implements StoredEntryProcessor {

    final String name;
    final ValueCodec codec;
    private GrowableBuffer value = new GrowableBuffer(256);
    private GrowableBuffer encoded = new GrowableBuffer(256);
    /** In-place writes of the current call: where each field starts in the value, where its bytes are in {@link #encoded}. */
    private int[] patchAt = new int[8];
    private int[] patchFrom = new int[8];
    private int[] patchLength = new int[8];
    /** Keys changed in place and keys rewritten whole (metrics; written by the owning apply thread only). */
    private volatile long inPlace;
    private volatile long rewritten;

    FieldProcessors(String name, ValueCodec codec) {
        this.name = name;
        this.codec = codec;
    }

    /** The built-ins by name, new instances (one set per apply thread). */
    static Map<String, StoredEntryProcessor> create(ValueCodec codec) {
        Map<String, StoredEntryProcessor> all = new LinkedHashMap<>();
        all.put(Processors.SET_FIELDS, new SetFields(codec, false));
        all.put(Processors.SET_FIELDS_IF_ABSENT, new SetFields(codec, true));
        all.put(Processors.ADD, new Add(codec));
        all.put(Processors.REMOVE_FIELD, new RemoveField(codec));
        return all;
    }

    @Override
    public final Object process(StoredEntry entry, byte[] key, int keyOffset, int keyLength, Object argument) {
        if (!entry.exists()) {
            return absentResult();
        }
        value.reset();
        value.ensureRemaining(entry.valueLength());
        entry.readValue(value.array(), 0);
        value.position(entry.valueLength());
        Object decoded = codec.decode(value.array(), 0, entry.valueLength(), true);
        if (!(decoded instanceof BinaryObject object)) {
            throw new IllegalArgumentException("the value is a " + decoded.getClass().getName()
                    + ", not a binary object; processor '" + name + "' changes fields of binary objects");
        }
        try {
            return apply(entry, object, argument);
        } finally {
            if (value.oversized()) {
                value = new GrowableBuffer(256);
            }
            if (encoded.oversized()) {
                encoded = new GrowableBuffer(256);
            }
        }
    }

    /** The result when the key has no value (nothing is stored). */
    abstract Object absentResult();

    /** Changes the object; the entry is positioned on its key. */
    abstract Object apply(StoredEntry entry, BinaryObject object, Object argument);

    /** Stores the changed object through the ordinary write path. */
    final void store(StoredEntry entry, BinaryObject changed) {
        encoded.reset();
        codec.encode(changed, encoded);
        entry.put(encoded.array(), 0, encoded.position());
        rewritten++;
    }

    /**
     * Sets the fields where their values lie in the stored row, if every field is present and its new
     * encoding has the old one's tag and length (a fixed-width field always does): only those bytes
     * are written — no new row, no free-list or tree work. Otherwise writes nothing.
     *
     * @return whether the fields were written in place
     */
    final boolean setInPlace(StoredEntry entry, BinaryObject object, Map<String, ?> fields) {
        encoded.reset();
        int n = 0;
        byte[] stored = value.array();
        for (Map.Entry<String, ?> f : fields.entrySet()) {
            long range = FieldLocator.locate(object, f.getKey());
            if (range < 0) {
                return false;
            }
            int start = FieldLocator.start(range);
            int from = encoded.position();
            codec.encode(f.getValue(), encoded);
            int length = encoded.position() - from;
            if (length != FieldLocator.end(range) - start || encoded.array()[from] != stored[start]) {
                return false;
            }
            if (n == patchAt.length) {
                patchAt = Arrays.copyOf(patchAt, n * 2);
                patchFrom = Arrays.copyOf(patchFrom, n * 2);
                patchLength = Arrays.copyOf(patchLength, n * 2);
            }
            patchAt[n] = start;
            patchFrom[n] = from;
            patchLength[n] = length;
            n++;
        }
        for (int i = 0; i < n; i++) {
            entry.overwriteValue(patchAt[i], encoded.array(), patchFrom[i], patchLength[i]);
        }
        inPlace++;
        return true;
    }

    /** Keys this instance changed in place. */
    final long inPlaceUpdates() {
        return inPlace;
    }

    /** Keys this instance rewrote whole. */
    final long rewrites() {
        return rewritten;
    }

    /** The fields to set: a map of field name to value, or every field of a binary object. */
    final Map<String, ?> fieldsOf(Object argument) {
        if (argument instanceof Map<?, ?> map) {
            Map<String, Object> fields = new LinkedHashMap<>();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                if (!(e.getKey() instanceof String field)) {
                    throw new IllegalArgumentException("processor '" + name + "' takes a map of field names to"
                            + " values; a key of the map is a " + typeName(e.getKey()));
                }
                fields.put(field, e.getValue());
            }
            return fields;
        }
        if (argument instanceof BinaryObject object) {
            Map<String, Object> fields = new LinkedHashMap<>();
            for (String field : object.type().fieldNames()) {
                if (object.hasField(field)) {
                    fields.put(field, object.field(field));
                }
            }
            return fields;
        }
        throw new IllegalArgumentException("processor '" + name + "' takes a map of field names to values or a"
                + " binary object; the argument is " + typeName(argument));
    }

    static String typeName(Object o) {
        return o == null ? "null" : "a " + o.getClass().getName();
    }

    /** {@link Processors#setFields} and {@link Processors#setFieldsIfAbsent}. */
    static final class SetFields extends FieldProcessors {
        private final boolean onlyAbsent;

        SetFields(ValueCodec codec, boolean onlyAbsent) {
            super(onlyAbsent ? Processors.SET_FIELDS_IF_ABSENT : Processors.SET_FIELDS, codec);
            this.onlyAbsent = onlyAbsent;
        }

        @Override
        Object absentResult() {
            return Boolean.FALSE;
        }

        @Override
        Object apply(StoredEntry entry, BinaryObject object, Object argument) {
            Map<String, ?> fields = fieldsOf(argument);
            if (!onlyAbsent && setInPlace(entry, object, fields)) {
                return Boolean.TRUE;
            }
            BinaryObjectBuilder builder = null;
            for (Map.Entry<String, ?> f : fields.entrySet()) {
                if (onlyAbsent && object.field(f.getKey()) != null) {
                    continue;
                }
                if (builder == null) {
                    builder = object.toBuilder();
                }
                builder.setField(f.getKey(), f.getValue());
            }
            if (builder == null) {
                return Boolean.FALSE;
            }
            store(entry, builder.build());
            return Boolean.TRUE;
        }
    }

    /** {@link Processors#add}. */
    static final class Add extends FieldProcessors {

        Add(ValueCodec codec) {
            super(Processors.ADD, codec);
        }

        @Override
        Object absentResult() {
            return null;
        }

        @Override
        Object apply(StoredEntry entry, BinaryObject object, Object argument) {
            if (!(argument instanceof Map<?, ?> map) || !(map.get("field") instanceof String field)
                    || !(map.get("delta") instanceof Number delta)) {
                throw new IllegalArgumentException("processor '" + name + "' takes {\"field\": name, \"delta\":"
                        + " number}; the argument is " + typeName(argument));
            }
            Object current = object.field(field);
            Number sum = sum(field, current, delta);
            if (!setInPlace(entry, object, Map.of(field, sum))) {
                store(entry, object.toBuilder().setField(field, sum).build());
            }
            return sum;
        }

        private Number sum(String field, Object current, Number delta) {
            if (current instanceof Integer i) {
                return i + delta.intValue();
            } else if (current instanceof Long l) {
                return l + delta.longValue();
            } else if (current instanceof Double d) {
                return d + delta.doubleValue();
            } else if (current instanceof Float f) {
                return f + delta.floatValue();
            } else if (current instanceof Short s) {
                return (short) (s + delta.shortValue());
            } else if (current instanceof Byte b) {
                return (byte) (b + delta.byteValue());
            }
            throw new IllegalArgumentException("field '" + field + "' holds " + typeName(current)
                    + "; processor '" + name + "' adds to byte, short, int, long, float or double fields");
        }
    }

    /** {@link Processors#removeField}. */
    static final class RemoveField extends FieldProcessors {

        RemoveField(ValueCodec codec) {
            super(Processors.REMOVE_FIELD, codec);
        }

        @Override
        Object absentResult() {
            return Boolean.FALSE;
        }

        @Override
        Object apply(StoredEntry entry, BinaryObject object, Object argument) {
            if (!(argument instanceof String field)) {
                throw new IllegalArgumentException("processor '" + name + "' takes a field name; the argument is "
                        + typeName(argument));
            }
            if (!object.hasField(field)) {
                return Boolean.FALSE;
            }
            store(entry, object.toBuilder().removeField(field).build());
            return Boolean.TRUE;
        }
    }
}
