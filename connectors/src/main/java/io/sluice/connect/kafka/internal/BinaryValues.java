package io.sluice.connect.kafka.internal;

import io.sluice.binary.Binary;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns Connect {@link Struct}s and schemaless {@link Map}s into binary objects through the SDK's
 * builder. A Struct schema's layout (field names, their Java types, how nested values convert) is
 * worked out once per schema and type name and cached, so a record costs one pass over its fields.
 * Builders are kept per type name and reused. Not thread-safe: one per task.
 *
 * <table>
 *   <caption>Connect types to binary field types</caption>
 *   <tr><th>Connect</th><th>binary</th></tr>
 *   <tr><td>INT8, INT16, INT32, INT64</td><td>BYTE, SHORT, INT, LONG</td></tr>
 *   <tr><td>FLOAT32, FLOAT64, BOOLEAN, STRING</td><td>FLOAT, DOUBLE, BOOLEAN, STRING</td></tr>
 *   <tr><td>BYTES</td><td>BYTES</td></tr>
 *   <tr><td>Decimal, Date, Timestamp</td><td>BIG_DECIMAL, LOCAL_DATE, INSTANT</td></tr>
 *   <tr><td>Time</td><td>INT (milliseconds of the day)</td></tr>
 *   <tr><td>ARRAY, MAP</td><td>LIST, MAP (elements converted alike)</td></tr>
 *   <tr><td>STRUCT</td><td>OBJECT of type {@code <type>.<field>}</td></tr>
 * </table>
 */
public final class BinaryValues {

    /** Layouts kept at most; a connector seeing more distinct schemas clears and rebuilds them. */
    private static final int MAX_LAYOUTS = 1024;

    private final Binary binary;
    private final Map<String, BinaryObjectBuilder> builders = new HashMap<>();
    /** The type name and builder of the last {@link #builder} call. */
    private String lastTypeName;
    private BinaryObjectBuilder lastBuilder;
    private final Map<String, IdentityHashMap<Schema, StructLayout>> layouts = new HashMap<>();
    private int layoutCount;

    public BinaryValues(Binary binary) {
        this.binary = binary;
    }

    /** The struct as a binary object of the named type. */
    public BinaryObject fromStruct(Struct struct, String typeName) {
        return layout(struct.schema(), typeName).build(struct);
    }

    /**
     * A schemaless map (JsonConverter with schemas.enable=false) as a binary object of the named
     * type; null values are left out (a schemaless null has no type).
     *
     * @throws ConversionException if a key is not a String
     */
    public BinaryObject fromMap(Map<?, ?> map, String typeName) {
        BinaryObjectBuilder b = builder(typeName);
        try {
            return fillFromMap(b, map, typeName);
        } catch (RuntimeException e) {
            discard(typeName); // it holds the fields set before the failure
            throw e;
        }
    }

    private BinaryObject fillFromMap(BinaryObjectBuilder b, Map<?, ?> map, String typeName) {
        for (Map.Entry<?, ?> e : map.entrySet()) {
            if (!(e.getKey() instanceof String name)) {
                throw new ConversionException("a schemaless map needs String keys to become a binary object of type '"
                        + typeName + "'; key " + e.getKey() + " is a "
                        + (e.getKey() == null ? "null" : e.getKey().getClass().getName()));
            }
            Object v = e.getValue();
            if (v != null) {
                // the nested type's name only for a value that nests (it was a third of a task thread's time)
                b.setField(name, schemaless(v, nests(v) ? typeName + "." + name : typeName));
            }
        }
        return b.build();
    }

    /** The named fields of a Struct or Map value as one binary object (a composite key). */
    public BinaryObject fromFields(Object value, List<String> fields, String typeName) {
        BinaryObjectBuilder b = builder(typeName);
        try {
            for (String f : fields) {
                Object v = field(value, f);
                if (v == null) {
                    throw new ConversionException("key field '" + f + "' is missing or null");
                }
                b.setField(f, v);
            }
            return b.build();
        } catch (RuntimeException e) {
            discard(typeName);
            throw e;
        }
    }

    /** A field of a Struct or Map value, converted as values are (null if absent). */
    public Object field(Object value, String name) {
        if (value instanceof Struct s) {
            Field f = s.schema().field(name);
            if (f == null) {
                throw new ConversionException("the value has no field '" + name + "' (schema " + s.schema().name() + ")");
            }
            Object v = s.get(f);
            return v == null ? null : convert(v, f.schema(), name);
        }
        if (value instanceof Map<?, ?> m) {
            Object v = m.get(name);
            return v == null ? null : schemaless(v, name);
        }
        throw new ConversionException("key fields need a Struct or Map value, not "
                + (value == null ? "null" : value.getClass().getName()));
    }

    /** Whether a schemaless value becomes, or holds, a nested binary object. */
    private static boolean nests(Object v) {
        return v instanceof Map<?, ?> || v instanceof List<?> || v instanceof Struct;
    }

    private Object schemaless(Object v, String nestedType) {
        if (v instanceof Map<?, ?> m) {
            return fromMap(m, nestedType);
        }
        if (v instanceof List<?> list) {
            List<Object> out = new ArrayList<>(list.size());
            for (Object e : list) {
                out.add(e == null ? null : schemaless(e, nestedType));
            }
            return out;
        }
        if (v instanceof Struct s) {
            return fromStruct(s, nestedType);
        }
        if (v instanceof ByteBuffer bb) {
            return bytes(bb);
        }
        if (v instanceof java.util.Date d) {
            return d.toInstant();
        }
        return v;
    }

    /** The kept builder of the type (make one object at a time with it). */
    BinaryObjectBuilder builder(String typeName) {
        // a topic's records name their type with the same String (RecordConverter keeps it): no map lookup per record
        if (typeName == lastTypeName) {
            return lastBuilder;
        }
        BinaryObjectBuilder b = builders.computeIfAbsent(typeName, binary::builder);
        lastTypeName = typeName;
        lastBuilder = b;
        return b;
    }

    /** Drops the kept builder of the type: it holds the fields of an object that failed. */
    void discard(String typeName) {
        builders.remove(typeName);
        lastTypeName = null;
        lastBuilder = null;
    }

    private StructLayout layout(Schema schema, String typeName) {
        IdentityHashMap<Schema, StructLayout> byType = layouts.computeIfAbsent(typeName, t -> new IdentityHashMap<>());
        StructLayout l = byType.get(schema);
        if (l == null) {
            if (layoutCount >= MAX_LAYOUTS) {
                layouts.clear();
                layoutCount = 0;
                byType = layouts.computeIfAbsent(typeName, t -> new IdentityHashMap<>());
            }
            l = new StructLayout(schema, typeName);
            byType.put(schema, l);
            layoutCount++;
        }
        return l;
    }

    /** A value of a Connect schema as the Java value the builder stores. */
    private Object convert(Object v, Schema schema, String nestedType) {
        String logical = schema.name();
        if (logical != null) {
            switch (logical) {
                case Decimal.LOGICAL_NAME:
                    return (BigDecimal) v;
                case Date.LOGICAL_NAME:
                    return LocalDate.ofInstant(((java.util.Date) v).toInstant(), ZoneOffset.UTC);
                case Timestamp.LOGICAL_NAME:
                    return ((java.util.Date) v).toInstant();
                case Time.LOGICAL_NAME:
                    return (int) ((java.util.Date) v).getTime();
                default:
                    break;
            }
        }
        switch (schema.type()) {
            case STRUCT:
                return fromStruct((Struct) v, nestedType);
            case BYTES:
                return v instanceof ByteBuffer bb ? bytes(bb) : v;
            case ARRAY: {
                List<?> list = (List<?>) v;
                List<Object> out = new ArrayList<>(list.size());
                for (Object e : list) {
                    out.add(e == null ? null : convert(e, schema.valueSchema(), nestedType));
                }
                return out;
            }
            case MAP: {
                Map<?, ?> m = (Map<?, ?>) v;
                Map<Object, Object> out = new LinkedHashMap<>();
                for (Map.Entry<?, ?> e : m.entrySet()) {
                    out.put(e.getKey() == null ? null : convert(e.getKey(), schema.keySchema(), nestedType),
                            e.getValue() == null ? null : convert(e.getValue(), schema.valueSchema(), nestedType));
                }
                return out;
            }
            default:
                return v;
        }
    }

    private static byte[] bytes(ByteBuffer bb) {
        byte[] a = new byte[bb.remaining()];
        bb.duplicate().get(a);
        return a;
    }

    /** The Java class a field of this schema is stored as (so that a null still has a type). */
    private static Class<?> javaType(Schema schema) {
        String logical = schema.name();
        if (Decimal.LOGICAL_NAME.equals(logical)) return BigDecimal.class;
        if (Date.LOGICAL_NAME.equals(logical)) return LocalDate.class;
        if (Timestamp.LOGICAL_NAME.equals(logical)) return Instant.class;
        if (Time.LOGICAL_NAME.equals(logical)) return Integer.class;
        switch (schema.type()) {
            case INT8: return Byte.class;
            case INT16: return Short.class;
            case INT32: return Integer.class;
            case INT64: return Long.class;
            case FLOAT32: return Float.class;
            case FLOAT64: return Double.class;
            case BOOLEAN: return Boolean.class;
            case STRING: return String.class;
            case BYTES: return byte[].class;
            case ARRAY: return List.class;
            case MAP: return Map.class;
            case STRUCT: return BinaryObject.class;
            default: return Object.class;
        }
    }

    /** One schema's fields, worked out once: name, stored class, nested type name, and whether it needs converting. */
    private final class StructLayout {
        final String typeName;
        final Field[] fields;
        final String[] names;
        final Class<?>[] types;
        final String[] nestedTypes;
        final boolean[] plain;

        StructLayout(Schema schema, String typeName) {
            this.typeName = typeName;
            List<Field> fs = schema.fields();
            int n = fs.size();
            fields = fs.toArray(new Field[0]);
            names = new String[n];
            types = new Class<?>[n];
            nestedTypes = new String[n];
            plain = new boolean[n];
            for (int i = 0; i < n; i++) {
                Field f = fields[i];
                names[i] = f.name();
                types[i] = javaType(f.schema());
                nestedTypes[i] = typeName + "." + f.name();
                plain[i] = f.schema().name() == null && f.schema().type().isPrimitive()
                        && f.schema().type() != Schema.Type.BYTES;
            }
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        BinaryObject build(Struct struct) {
            BinaryObjectBuilder b = builder(typeName);
            try {
                return fill(b, struct);
            } catch (RuntimeException e) {
                discard(typeName); // it holds the fields set before the failure
                throw e;
            }
        }

        @SuppressWarnings({"unchecked", "rawtypes"})
        private BinaryObject fill(BinaryObjectBuilder b, Struct struct) {
            for (int i = 0; i < fields.length; i++) {
                Object v = struct.get(fields[i]);
                if (v == null) {
                    b.setField(names[i], null, (Class) types[i]);
                } else if (plain[i]) {
                    b.setField(names[i], v);
                } else {
                    b.setField(names[i], convert(v, fields[i].schema(), nestedTypes[i]));
                }
            }
            return b.build();
        }
    }
}
