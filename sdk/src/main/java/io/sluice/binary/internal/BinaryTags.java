package io.sluice.binary.internal;

import io.sluice.binary.BinaryObject;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The one-byte tags that start every encoded value (the table is in {@code docs/binary-format.md}),
 * and the two registry-only field types {@link #ANY} and {@link #UNSET} that never appear in bytes.
 */
final class BinaryTags {

    static final byte NULL = 0x00;
    static final byte BOOLEAN = 0x01;
    static final byte BYTE = 0x02;
    static final byte SHORT = 0x03;
    static final byte CHAR = 0x04;
    static final byte INT = 0x05;
    static final byte LONG = 0x06;
    static final byte FLOAT = 0x07;
    static final byte DOUBLE = 0x08;
    static final byte STRING = 0x09;
    static final byte BYTES = 0x0A;
    static final byte UUID_TAG = 0x0B;
    static final byte INSTANT = 0x0C;
    static final byte LOCAL_DATE = 0x0D;
    static final byte LOCAL_DATE_TIME = 0x0E;
    static final byte BIG_DECIMAL = 0x0F;
    static final byte BIG_INTEGER = 0x10;
    static final byte BOOLEAN_ARRAY = 0x11;
    static final byte SHORT_ARRAY = 0x12;
    static final byte CHAR_ARRAY = 0x13;
    static final byte INT_ARRAY = 0x14;
    static final byte LONG_ARRAY = 0x15;
    static final byte FLOAT_ARRAY = 0x16;
    static final byte DOUBLE_ARRAY = 0x17;
    static final byte OBJECT_ARRAY = 0x18;
    static final byte LIST = 0x19;
    static final byte SET = 0x1A;
    static final byte MAP = 0x1B;
    static final byte OBJECT = 0x20;

    /** Registry only: a field that accepts any value (declared {@code Object}, an interface, ...). */
    static final byte ANY = (byte) 0xFE;
    /** Registry only: a field seen so far only with {@code null}; its first non-null value fixes its type. */
    static final byte UNSET = (byte) 0xFF;

    private BinaryTags() {
    }

    /** The name of a field type, as {@link io.sluice.binary.BinaryType#fieldTypeName} reports it. */
    static String typeName(byte tag) {
        switch (tag) {
            case NULL: return "null";
            case BOOLEAN: return "boolean";
            case BYTE: return "byte";
            case SHORT: return "short";
            case CHAR: return "char";
            case INT: return "int";
            case LONG: return "long";
            case FLOAT: return "float";
            case DOUBLE: return "double";
            case STRING: return "String";
            case BYTES: return "byte[]";
            case UUID_TAG: return "UUID";
            case INSTANT: return "Instant";
            case LOCAL_DATE: return "LocalDate";
            case LOCAL_DATE_TIME: return "LocalDateTime";
            case BIG_DECIMAL: return "BigDecimal";
            case BIG_INTEGER: return "BigInteger";
            case BOOLEAN_ARRAY: return "boolean[]";
            case SHORT_ARRAY: return "short[]";
            case CHAR_ARRAY: return "char[]";
            case INT_ARRAY: return "int[]";
            case LONG_ARRAY: return "long[]";
            case FLOAT_ARRAY: return "float[]";
            case DOUBLE_ARRAY: return "double[]";
            case OBJECT_ARRAY: return "Object[]";
            case LIST: return "List";
            case SET: return "Set";
            case MAP: return "Map";
            case OBJECT: return "BinaryObject";
            case ANY: return "Object";
            case UNSET: return "unknown";
            default: return "tag 0x" + Integer.toHexString(tag & 0xff);
        }
    }

    /**
     * The field type a declared Java type maps to. Types with no tag of their own that can hold
     * several kinds of value (Object, Number, interfaces other than collections) map to {@link #ANY};
     * other classes are nested binary objects.
     */
    static byte ofClass(Class<?> c) {
        if (c == long.class || c == Long.class || c == AtomicLong.class) return LONG;
        if (c == int.class || c == Integer.class || c == AtomicInteger.class) return INT;
        if (c == double.class || c == Double.class) return DOUBLE;
        if (c == String.class || c.isEnum()) return STRING;
        if (c == boolean.class || c == Boolean.class) return BOOLEAN;
        if (c == float.class || c == Float.class) return FLOAT;
        if (c == short.class || c == Short.class) return SHORT;
        if (c == byte.class || c == Byte.class) return BYTE;
        if (c == char.class || c == Character.class) return CHAR;
        if (c == byte[].class) return BYTES;
        if (c == UUID.class) return UUID_TAG;
        if (c == Instant.class) return INSTANT;
        if (c == LocalDate.class) return LOCAL_DATE;
        if (c == LocalDateTime.class) return LOCAL_DATE_TIME;
        if (c == BigDecimal.class) return BIG_DECIMAL;
        if (c == BigInteger.class) return BIG_INTEGER;
        if (c.isArray()) {
            Class<?> e = c.getComponentType();
            if (e == boolean.class) return BOOLEAN_ARRAY;
            if (e == short.class) return SHORT_ARRAY;
            if (e == char.class) return CHAR_ARRAY;
            if (e == int.class) return INT_ARRAY;
            if (e == long.class) return LONG_ARRAY;
            if (e == float.class) return FLOAT_ARRAY;
            if (e == double.class) return DOUBLE_ARRAY;
            return OBJECT_ARRAY;
        }
        if (Set.class.isAssignableFrom(c)) return SET;
        if (Collection.class.isAssignableFrom(c)) return LIST;
        if (Map.class.isAssignableFrom(c)) return MAP;
        if (BinaryObject.class.isAssignableFrom(c)) return OBJECT;
        if (c == Object.class || c.isInterface() || Number.class.isAssignableFrom(c)
                || java.lang.reflect.Modifier.isAbstract(c.getModifiers()) || c.getName().startsWith("java.")) {
            return ANY;
        }
        return OBJECT;
    }

    /** Whether a value written with {@code actual} may be stored in a field registered as {@code registered}. */
    static boolean accepts(byte registered, boolean nullable, byte actual) {
        if (actual == NULL) {
            return nullable;
        }
        return registered == actual || registered == ANY || registered == UNSET;
    }
}
