package io.sluice.binary.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.binary.BinaryTypeMismatchException;

import java.io.IOException;
import java.lang.reflect.Array;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static io.sluice.binary.internal.BinaryTags.*;

/**
 * Binary objects to and from JSON through Jackson. A JSON property becomes the registered type of
 * its field when the field is registered (so numbers, ISO-8601 strings and base64 find their way
 * back to {@code long}, {@code Instant} or {@code byte[]}); otherwise text is a String, an integral
 * number a long, another number a double, an array a List and an object a nested binary object of
 * type {@code <type>.<field>}. Dates, times and UUIDs are written as ISO-8601/canonical strings,
 * byte arrays as base64.
 */
final class JsonConverter {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final BinaryContext context;

    JsonConverter(BinaryContext context) {
        this.context = context;
    }

    BinaryObject fromJson(String text, String typeName) {
        try {
            return fromJson(MAPPER.readTree(text), typeName);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not JSON: " + e.getOriginalMessage(), e);
        }
    }

    BinaryObject fromJson(JsonNode node, String typeName) {
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException("a binary object of type '" + typeName + "' needs a JSON object, not "
                    + (node == null ? "null" : node.getNodeType()));
        }
        BinaryObjectBuilder builder = context.builder(typeName);
        TypeMeta type = context.registry().byName(typeName);
        Iterator<Map.Entry<String, JsonNode>> it = node.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            FieldMeta f = type.field(e.getKey());
            byte tag = f == null ? UNSET : f.tag();
            builder.setField(e.getKey(), toValue(e.getValue(), tag, typeName, e.getKey()));
        }
        return builder.build();
    }

    private Object toValue(JsonNode n, byte tag, String typeName, String field) {
        if (n == null || n.isNull() || n.isMissingNode()) {
            return null;
        }
        try {
            switch (tag) {
                case LONG: return exact(n, tag, typeName, field).longValueExact();
                case INT: return exact(n, tag, typeName, field).intValueExact();
                case DOUBLE: return number(n, tag, typeName, field).doubleValue();
                case FLOAT: return number(n, tag, typeName, field).floatValue();
                case SHORT: return exact(n, tag, typeName, field).shortValueExact();
                case BYTE: return exact(n, tag, typeName, field).byteValueExact();
                case BOOLEAN:
                    if (!n.isBoolean()) {
                        throw mismatch(tag, n, typeName, field);
                    }
                    return n.booleanValue();
                case CHAR:
                    if (!n.isTextual() || n.textValue().length() != 1) {
                        throw mismatch(tag, n, typeName, field);
                    }
                    return n.textValue().charAt(0);
                case STRING: return n.isTextual() ? n.textValue() : n.toString();
                case BYTES: return n.binaryValue();
                case UUID_TAG: return UUID.fromString(n.asText());
                case INSTANT: return Instant.parse(n.asText());
                case LOCAL_DATE: return LocalDate.parse(n.asText());
                case LOCAL_DATE_TIME: return LocalDateTime.parse(n.asText());
                case BIG_DECIMAL: return n.isNumber() ? n.decimalValue() : new BigDecimal(n.asText());
                case BIG_INTEGER: return n.isNumber() ? n.bigIntegerValue() : new BigInteger(n.asText());
                case BOOLEAN_ARRAY: return primitiveArray(n, boolean.class, BOOLEAN, typeName, field);
                case SHORT_ARRAY: return primitiveArray(n, short.class, SHORT, typeName, field);
                case CHAR_ARRAY: return primitiveArray(n, char.class, CHAR, typeName, field);
                case INT_ARRAY: return primitiveArray(n, int.class, INT, typeName, field);
                case LONG_ARRAY: return primitiveArray(n, long.class, LONG, typeName, field);
                case FLOAT_ARRAY: return primitiveArray(n, float.class, FLOAT, typeName, field);
                case DOUBLE_ARRAY: return primitiveArray(n, double.class, DOUBLE, typeName, field);
                case OBJECT_ARRAY: return untyped(n, typeName, field, tag).toArray();
                case LIST: return untyped(n, typeName, field, tag);
                case SET: return new LinkedHashSet<>(untyped(n, typeName, field, tag));
                case MAP: return map(n, typeName, field);
                case OBJECT: return fromJson(n, typeName + "." + field);
                default: return untypedValue(n, typeName, field);
            }
        } catch (IOException | RuntimeException e) {
            if (e instanceof BinaryTypeMismatchException) {
                throw (BinaryTypeMismatchException) e;
            }
            throw mismatch(tag, n, typeName, field);
        }
    }

    private static BinaryTypeMismatchException mismatch(byte tag, JsonNode n, String typeName, String field) {
        String shown = n.toString();
        if (shown.length() > 40) {
            shown = shown.substring(0, 40) + "...";
        }
        return new BinaryTypeMismatchException(typeName, field, BinaryTags.typeName(tag),
                "JSON " + n.getNodeType().name().toLowerCase() + " " + shown);
    }

    private static Number number(JsonNode n, byte tag, String typeName, String field) {
        if (n.isNumber()) {
            return n.numberValue();
        }
        if (n.isTextual()) {
            return new BigDecimal(n.textValue());
        }
        throw mismatch(tag, n, typeName, field);
    }

    /** Integral fields take only numbers that are whole and in range (ArithmeticException otherwise). */
    private static BigDecimal exact(JsonNode n, byte tag, String typeName, String field) {
        if (n.isNumber()) {
            return n.decimalValue();
        }
        if (n.isTextual()) {
            return new BigDecimal(n.textValue());
        }
        throw mismatch(tag, n, typeName, field);
    }

    private Object primitiveArray(JsonNode n, Class<?> component, byte elementTag, String typeName, String field) {
        if (!n.isArray()) {
            throw mismatch(elementTag, n, typeName, field);
        }
        Object a = Array.newInstance(component, n.size());
        for (int i = 0; i < n.size(); i++) {
            Array.set(a, i, toValue(n.get(i), elementTag, typeName, field));
        }
        return a;
    }

    private List<Object> untyped(JsonNode n, String typeName, String field, byte tag) {
        if (!n.isArray()) {
            throw mismatch(tag, n, typeName, field);
        }
        List<Object> list = new ArrayList<>(n.size());
        for (JsonNode e : n) {
            list.add(untypedValue(e, typeName, field));
        }
        return list;
    }

    private Map<String, Object> map(JsonNode n, String typeName, String field) {
        if (!n.isObject()) {
            throw mismatch(MAP, n, typeName, field);
        }
        Map<String, Object> map = new LinkedHashMap<>();
        Iterator<Map.Entry<String, JsonNode>> it = n.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            map.put(e.getKey(), untypedValue(e.getValue(), typeName, field));
        }
        return map;
    }

    private Object untypedValue(JsonNode n, String typeName, String field) {
        if (n == null || n.isNull()) {
            return null;
        }
        if (n.isTextual()) {
            return n.textValue();
        }
        if (n.isBoolean()) {
            return n.booleanValue();
        }
        if (n.isIntegralNumber()) {
            return n.canConvertToLong() ? (Object) n.longValue() : n.bigIntegerValue();
        }
        if (n.isBigDecimal()) {
            return n.decimalValue();
        }
        if (n.isNumber()) {
            return n.doubleValue();
        }
        if (n.isArray()) {
            return untyped(n, typeName, field, LIST);
        }
        if (n.isObject()) {
            return fromJson(n, typeName + "." + field);
        }
        if (n.isBinary()) {
            return toValue(n, BYTES, typeName, field);
        }
        throw mismatch(ANY, n, typeName, field);
    }

    String toJson(BinaryObject object) {
        try {
            return MAPPER.writeValueAsString(toNode(object));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("writing JSON failed", e);
        }
    }

    private ObjectNode toNode(BinaryObject object) {
        ObjectNode node = NODES.objectNode();
        if (object instanceof BinaryObjectImpl) {
            BinaryObjectImpl o = (BinaryObjectImpl) object;
            for (int i = 0; i < o.fieldCount(); i++) {
                node.set(o.fieldAt(i).name, toNode(o.valueAt(i, true)));
            }
        } else {
            for (String name : object.type().fieldNames()) {
                if (object.hasField(name)) {
                    Object value = object.field(name);
                    node.set(name, toNode(value));
                }
            }
        }
        return node;
    }

    private JsonNode toNode(Object v) {
        if (v == null) {
            return NODES.nullNode();
        }
        if (v instanceof String || v instanceof Character || v instanceof UUID || v instanceof Instant
                || v instanceof LocalDate || v instanceof LocalDateTime) {
            return NODES.textNode(v.toString());
        }
        if (v instanceof Long) return NODES.numberNode((Long) v);
        if (v instanceof Integer) return NODES.numberNode((Integer) v);
        if (v instanceof Double) return NODES.numberNode((Double) v);
        if (v instanceof Float) return NODES.numberNode((Float) v);
        if (v instanceof Short) return NODES.numberNode((Short) v);
        if (v instanceof Byte) return NODES.numberNode((Byte) v);
        if (v instanceof Boolean) return NODES.booleanNode((Boolean) v);
        if (v instanceof BigDecimal) return NODES.numberNode((BigDecimal) v);
        if (v instanceof BigInteger) return NODES.numberNode((BigInteger) v);
        if (v instanceof byte[]) return NODES.binaryNode((byte[]) v);
        if (v instanceof BinaryObject) return toNode((BinaryObject) v);
        if (v instanceof Map<?, ?>) {
            ObjectNode node = NODES.objectNode();
            for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
                node.set(String.valueOf(e.getKey()), toNode(e.getValue()));
            }
            return node;
        }
        ArrayNode array = NODES.arrayNode();
        if (v instanceof Collection<?>) {
            for (Object e : (Collection<?>) v) {
                array.add(toNode(e));
            }
        } else if (v.getClass().isArray()) {
            int n = Array.getLength(v);
            for (int i = 0; i < n; i++) {
                array.add(toNode(Array.get(v, i)));
            }
        } else {
            return NODES.textNode(v.toString());
        }
        return array;
    }
}
