package io.sluice.binary.internal;

import io.sluice.SluiceException;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryTypeMismatchException;

import java.lang.reflect.Array;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Turns a binary object into an instance of a class through its {@link ClassLayout}: each property
 * takes the object's field of the same name (absent fields leave the default), converted to the
 * property's declared type.
 */
final class Deserializer {

    private Deserializer() {
    }

    static Object deserialize(BinaryObjectImpl object, Class<?> cls) {
        ClassLayout layout = ClassLayout.of(cls);
        ClassLayout.Property[] props = layout.properties;
        String typeName = object.type.name;
        int[] index = layout.footerIndexes(object);
        try {
            if (layout.record) {
                Object[] args = new Object[props.length];
                for (int i = 0; i < props.length; i++) {
                    args[i] = read(object, index[i], props[i], typeName);
                    if (args[i] == null && props[i].type.isPrimitive()) {
                        args[i] = Array.get(Array.newInstance(props[i].type, 1), 0);
                    }
                }
                return layout.construct(args);
            }
            Object instance = layout.construct(null);
            for (int i = 0; i < props.length; i++) {
                ClassLayout.Property p = props[i];
                if (index[i] < 0) {
                    continue;
                }
                Object v = read(object, index[i], p, typeName);
                if (v != null || !p.type.isPrimitive()) {
                    p.setter.invoke(instance, v);
                }
            }
            return instance;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new SluiceException("deserializing a '" + typeName + "' to " + cls.getName() + " failed", e);
        }
    }

    private static Object read(BinaryObjectImpl object, int i, ClassLayout.Property p, String typeName) {
        if (i < 0) {
            return null;
        }
        boolean keepBinary = BinaryObject.class.isAssignableFrom(p.type);
        return convert(object.valueAt(i, keepBinary), p.type, typeName, p.name);
    }

    /** The value as an instance of the target type, or a mismatch naming the field. */
    static Object convert(Object v, Class<?> target, String typeName, String fieldName) {
        if (v == null) {
            return null;
        }
        Class<?> boxed = target.isPrimitive() ? box(target) : target;
        if (boxed.isInstance(v) && !(v instanceof Collection<?>)) {
            return v;
        }
        if (v instanceof BinaryObjectImpl && !target.isPrimitive() && !target.isArray()
                && BinaryTags.ofClass(target) == BinaryTags.OBJECT) {
            return deserialize((BinaryObjectImpl) v, target);
        }
        if (v instanceof String && target.isEnum()) {
            return enumValue(target, (String) v, typeName, fieldName);
        }
        if (v instanceof Object[] && target.isArray() && !target.getComponentType().isPrimitive()) {
            Object[] src = (Object[]) v;
            Object dst = Array.newInstance(target.getComponentType(), src.length);
            for (int i = 0; i < src.length; i++) {
                Array.set(dst, i, convert(src[i], target.getComponentType(), typeName, fieldName));
            }
            return dst;
        }
        if (v instanceof Collection<?>) {
            if (boxed.isInstance(v)) {
                return v;
            }
            if (target.isAssignableFrom(ArrayList.class) || target == List.class) {
                return new ArrayList<>((Collection<?>) v);
            }
            if (target.isAssignableFrom(LinkedHashSet.class) || target == Set.class) {
                return new LinkedHashSet<>((Collection<?>) v);
            }
        }
        if (v instanceof Number && boxed.getSuperclass() == Number.class) {
            Object exact = exactNumber((Number) v, boxed);
            if (exact != null) {
                return exact;
            }
        }
        if (v instanceof String && boxed == Character.class && ((String) v).length() == 1) {
            return ((String) v).charAt(0);
        }
        if (v instanceof Long && target == AtomicLong.class) {
            return new AtomicLong((Long) v);
        }
        if (v instanceof Integer && target == AtomicInteger.class) {
            return new AtomicInteger((Integer) v);
        }
        if (v instanceof Map<?, ?> && boxed.isInstance(v)) {
            return v;
        }
        String actual = v.getClass().getName();
        if (v instanceof Number || v instanceof CharSequence || v instanceof Boolean) {
            String shown = v.toString();
            actual += " " + (shown.length() > 40 ? shown.substring(0, 40) + "..." : shown);
        }
        throw new BinaryTypeMismatchException(typeName, fieldName, target.getName(), actual);
    }

    /**
     * The number as the boxed target type if it converts without loss (objects made from JSON or by
     * hand may hold a long where the class has an int), else null.
     */
    private static Object exactNumber(Number n, Class<?> boxed) {
        BigDecimal exact;
        if (n instanceof Double || n instanceof Float) {
            double d = n.doubleValue();
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                return boxed == Double.class ? (Object) d : boxed == Float.class ? (Object) (float) d : null;
            }
            exact = new BigDecimal(d);
        } else if (n instanceof BigDecimal) {
            exact = (BigDecimal) n;
        } else if (n instanceof BigInteger) {
            exact = new BigDecimal((BigInteger) n);
        } else {
            exact = BigDecimal.valueOf(n.longValue());
        }
        try {
            if (boxed == Long.class) return exact.longValueExact();
            if (boxed == Integer.class) return exact.intValueExact();
            if (boxed == Short.class) return exact.shortValueExact();
            if (boxed == Byte.class) return exact.byteValueExact();
            if (boxed == Double.class) {
                double d = exact.doubleValue();
                return new BigDecimal(d).compareTo(exact) == 0 ? d : null;
            }
            if (boxed == Float.class) {
                float f = exact.floatValue();
                return new BigDecimal(f).compareTo(exact) == 0 ? f : null;
            }
            if (boxed == BigDecimal.class) return exact;
            if (boxed == BigInteger.class) return exact.toBigIntegerExact();
        } catch (ArithmeticException e) {
            return null;
        }
        return null;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Object enumValue(Class<?> target, String name, String typeName, String fieldName) {
        try {
            return Enum.valueOf((Class<? extends Enum>) target, name);
        } catch (IllegalArgumentException e) {
            throw new BinaryTypeMismatchException(typeName, fieldName, target.getName(), "'" + name + "'");
        }
    }

    private static Class<?> box(Class<?> primitive) {
        if (primitive == long.class) return Long.class;
        if (primitive == int.class) return Integer.class;
        if (primitive == double.class) return Double.class;
        if (primitive == boolean.class) return Boolean.class;
        if (primitive == float.class) return Float.class;
        if (primitive == short.class) return Short.class;
        if (primitive == byte.class) return Byte.class;
        return Character.class;
    }
}
