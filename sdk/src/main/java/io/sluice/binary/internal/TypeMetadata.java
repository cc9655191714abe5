package io.sluice.binary.internal;

import io.sluice.binary.BinaryFormatException;
import io.sluice.binary.BinaryTypeMismatchException;

import java.util.ArrayList;
import java.util.List;

/**
 * The registry as bytes, so that another process (a remote node or client, or a node restarting
 * from its files) can read objects whose types it never built. The bytes are one tagged value:
 * <pre>
 * LIST of types, each a LIST of
 *   STRING type name, STRING class name or NULL,
 *   LIST of fields, each a LIST of STRING name, INT type tag (255 = not yet known), BOOLEAN nullable
 *   LIST of schemas, each a LIST of STRING field names in footer order
 * </pre>
 * Ids are not sent: every id is a hash of names, so both sides derive the same ones.
 */
final class TypeMetadata {

    private TypeMetadata() {
    }

    static byte[] export(BinaryContext context) {
        List<Object> types = new ArrayList<>();
        for (TypeMeta t : context.registry().types()) {
            List<Object> fields = new ArrayList<>();
            for (String name : t.fieldNames()) {
                FieldMeta f = t.field(name);
                fields.add(List.of(f.name, f.tag() & 0xff, f.nullable));
            }
            List<Object> schemas = new ArrayList<>();
            for (Schema s : t.schemas()) {
                List<Object> names = new ArrayList<>(s.size());
                for (FieldMeta f : s.fields) {
                    names.add(f.name);
                }
                schemas.add(names);
            }
            List<Object> type = new ArrayList<>(4);
            type.add(t.name);
            type.add(t.className());
            type.add(fields);
            type.add(schemas);
            types.add(type);
        }
        GrowableBuffer out = new GrowableBuffer(1024);
        context.encode(types, out);
        return out.toByteArray();
    }

    /**
     * Registers every type, field and schema in the bytes.
     *
     * @throws BinaryFormatException       if the bytes are not type metadata
     * @throws BinaryTypeMismatchException if a field is registered here with another type
     */
    static void importTypes(BinaryContext context, byte[] bytes) {
        Object decoded = context.decode(bytes, 0, bytes.length, true);
        List<?> types = list(decoded, "type metadata");
        for (Object item : types) {
            List<?> type = list(item, "a type");
            if (type.size() != 4) {
                throw malformed("a type has " + type.size() + " parts, not 4");
            }
            String name = string(type.get(0), "type name");
            TypeMeta t = context.registry().register(name);
            if (type.get(1) != null) {
                t.className(string(type.get(1), "class name of " + name));
            }
            for (Object fieldItem : list(type.get(2), "fields of " + name)) {
                List<?> field = list(fieldItem, "a field of " + name);
                if (field.size() != 3 || !(field.get(1) instanceof Integer) || !(field.get(2) instanceof Boolean)) {
                    throw malformed("field " + field + " of " + name + " is not [name, tag, nullable]");
                }
                String fieldName = string(field.get(0), "field name of " + name);
                int tagValue = (Integer) field.get(1);
                byte tag = (byte) tagValue;
                if (tagValue < 0 || tagValue > 0xff || BinaryTags.typeName(tag).startsWith("tag ")) {
                    throw malformed("field '" + fieldName + "' of " + name + " has unknown type tag " + tagValue);
                }
                boolean nullable = (Boolean) field.get(2);
                FieldMeta existing = t.field(fieldName);
                if (existing == null) {
                    t.register(fieldName, tag, nullable);
                } else if (tag != BinaryTags.UNSET) {
                    t.check(existing, tag);
                }
            }
            for (Object schemaItem : list(type.get(3), "schemas of " + name)) {
                List<?> names = list(schemaItem, "a schema of " + name);
                FieldMeta[] fields = new FieldMeta[names.size()];
                for (int i = 0; i < fields.length; i++) {
                    String fieldName = string(names.get(i), "schema field of " + name);
                    fields[i] = t.field(fieldName);
                    if (fields[i] == null) {
                        throw malformed("a schema of " + name + " names field '" + fieldName + "' it does not list");
                    }
                }
                t.schema(fields, fields.length);
            }
        }
    }

    private static List<?> list(Object v, String what) {
        if (!(v instanceof List<?>)) {
            throw malformed(what + " is not a list");
        }
        return (List<?>) v;
    }

    private static String string(Object v, String what) {
        if (!(v instanceof String)) {
            throw malformed(what + " is not a string");
        }
        return (String) v;
    }

    private static BinaryFormatException malformed(String what) {
        return new BinaryFormatException("type metadata: " + what);
    }
}
