package io.sluice.binary.internal;

import io.sluice.SluiceException;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * How a Java class is marshalled, computed once per class: its properties (a record's components,
 * or a POJO's non-static non-transient fields, superclass fields first) with method-handle
 * accessors, and how to construct it. Needs no {@code --add-opens}: a class whose members cannot
 * be made accessible is refused with a message saying which.
 */
final class ClassLayout {

    private static final ClassValue<ClassLayout> LAYOUTS = new ClassValue<>() {
        @Override
        protected ClassLayout computeValue(Class<?> type) {
            return new ClassLayout(type);
        }
    };
    private static final MethodHandles.Lookup LOOKUP = MethodHandles.lookup();

    /** One property: its name, declared type, field type tag and accessors. */
    static final class Property {
        final String name;
        final Class<?> type;
        final byte tag;
        /** {@code (Object)T} for primitive T, else {@code (Object)Object}. */
        final MethodHandle getter;
        /** {@code (Object,Object)void}; null for records. */
        final MethodHandle setter;
        /** The field, or the record component's accessor: what a generated writer reads. */
        final Member member;

        Property(String name, Class<?> type, Member member, MethodHandle getter, MethodHandle setter) {
            this.name = name;
            this.type = type;
            this.member = member;
            this.tag = BinaryTags.ofClass(type);
            Class<?> ret = type.isPrimitive() ? type : Object.class;
            this.getter = getter.asType(MethodType.methodType(ret, Object.class));
            this.setter = setter == null ? null : setter.asType(MethodType.methodType(void.class, Object.class,
                    Object.class));
        }

        /** Writes the property's value of {@code target} as a tagged value. */
        void write(Object target, GrowableBuffer out, ValueEncoder encoder) throws Throwable {
            if (!type.isPrimitive()) {
                encoder.encode((Object) getter.invokeExact(target), out);
                return;
            }
            switch (tag) {
                case BinaryTags.LONG: ValueEncoder.writeLong(out, (long) getter.invokeExact(target)); break;
                case BinaryTags.INT: ValueEncoder.writeInt(out, (int) getter.invokeExact(target)); break;
                case BinaryTags.DOUBLE: ValueEncoder.writeDouble(out, (double) getter.invokeExact(target)); break;
                case BinaryTags.BOOLEAN: ValueEncoder.writeBoolean(out, (boolean) getter.invokeExact(target)); break;
                case BinaryTags.FLOAT: ValueEncoder.writeFloat(out, (float) getter.invokeExact(target)); break;
                case BinaryTags.SHORT: ValueEncoder.writeShort(out, (short) getter.invokeExact(target)); break;
                case BinaryTags.BYTE: ValueEncoder.writeByte(out, (byte) getter.invokeExact(target)); break;
                case BinaryTags.CHAR: ValueEncoder.writeChar(out, (char) getter.invokeExact(target)); break;
                default: throw new IllegalStateException("primitive " + type);
            }
        }
    }

    /** The binding of this class to one context's registry: its type, fields and only schema. */
    static final class Binding {
        final BinaryContext context;
        final TypeMeta type;
        final FieldMeta[] fields;
        final Schema schema;

        Binding(BinaryContext context, TypeMeta type, FieldMeta[] fields, Schema schema) {
            this.context = context;
            this.type = type;
            this.fields = fields;
            this.schema = schema;
        }
    }

    final Class<?> cls;
    final boolean record;
    final Property[] properties;
    /** Records: {@code (Object[])Object} over the canonical constructor; POJOs: {@code ()Object}, or null. */
    private final MethodHandle constructor;
    private volatile Binding binding;
    private volatile SchemaIndexes lastIndexes;
    /** Made on first marshal (generating a class is not free, and deserializing needs none). */
    private volatile PojoWriter writer;

    private ClassLayout(Class<?> cls) {
        this.cls = cls;
        this.record = cls.isRecord();
        try {
            if (record) {
                RecordComponent[] components = cls.getRecordComponents();
                properties = new Property[components.length];
                Class<?>[] types = new Class<?>[components.length];
                for (int i = 0; i < components.length; i++) {
                    Method accessor = components[i].getAccessor();
                    accessor.setAccessible(true);
                    types[i] = components[i].getType();
                    properties[i] = new Property(components[i].getName(), types[i], accessor, LOOKUP.unreflect(accessor),
                            null);
                }
                Constructor<?> canonical = cls.getDeclaredConstructor(types);
                canonical.setAccessible(true);
                constructor = LOOKUP.unreflectConstructor(canonical)
                        .asType(MethodType.methodType(Object.class, types).generic())
                        .asSpreader(Object[].class, types.length);
            } else {
                List<Property> props = new ArrayList<>();
                Set<String> seen = new HashSet<>();
                List<Class<?>> chain = new ArrayList<>();
                for (Class<?> c = cls; c != null && c != Object.class; c = c.getSuperclass()) {
                    chain.add(0, c);
                }
                for (Class<?> c : chain) {
                    for (Field f : c.getDeclaredFields()) {
                        int m = f.getModifiers();
                        if (Modifier.isStatic(m) || Modifier.isTransient(m) || f.isSynthetic()) {
                            continue;
                        }
                        if (!seen.add(f.getName())) {
                            throw new SluiceException("class " + cls.getName() + " cannot be marshalled: field '"
                                    + f.getName() + "' is declared in " + c.getName() + " and a superclass");
                        }
                        f.setAccessible(true);
                        props.add(new Property(f.getName(), f.getType(), f, LOOKUP.unreflectGetter(f),
                                LOOKUP.unreflectSetter(f)));
                    }
                }
                properties = props.toArray(new Property[0]);
                MethodHandle ctor = null;
                try {
                    Constructor<?> noArg = cls.getDeclaredConstructor();
                    if (!Modifier.isAbstract(cls.getModifiers())) {
                        noArg.setAccessible(true);
                        ctor = LOOKUP.unreflectConstructor(noArg).asType(MethodType.methodType(Object.class));
                    }
                } catch (NoSuchMethodException e) {
                    ctor = null;
                }
                constructor = ctor;
            }
        } catch (RuntimeException | ReflectiveOperationException e) {
            if (e instanceof SluiceException) {
                throw (SluiceException) e;
            }
            throw new SluiceException("class " + cls.getName() + " cannot be marshalled: its members are not "
                    + "accessible (" + e.getMessage() + "); make the class and its fields accessible or open its "
                    + "package to Sluice's module", e);
        }
    }

    static ClassLayout of(Class<?> cls) {
        return LAYOUTS.get(cls);
    }

    /** How this class's instances are written ({@link PojoWriters}); two racing threads may each make one. */
    PojoWriter writer() {
        PojoWriter w = writer;
        if (w == null) {
            w = PojoWriters.of(this);
            writer = w;
        }
        return w;
    }

    /** This class's type and schema in the context's registry, registered on first use. */
    Binding binding(BinaryContext context) {
        Binding b = binding;
        if (b != null && b.context == context) {
            return b;
        }
        TypeMeta type = context.registry().register(cls.getName());
        type.className(cls.getName());
        FieldMeta[] fields = new FieldMeta[properties.length];
        for (int i = 0; i < properties.length; i++) {
            Property p = properties[i];
            fields[i] = type.register(p.name, p.tag, !p.type.isPrimitive());
            byte registered = fields[i].tag();
            if (registered != p.tag && p.tag != BinaryTags.ANY && registered != BinaryTags.ANY) {
                throw new io.sluice.binary.BinaryTypeMismatchException(type.name, p.name,
                        BinaryTags.typeName(registered), BinaryTags.typeName(p.tag));
            }
        }
        b = new Binding(context, type, fields, type.schema(fields, fields.length));
        binding = b;
        return b;
    }

    /** Per property, the footer index of the field of the same name in the object, or -1. */
    int[] footerIndexes(BinaryObjectImpl object) {
        SchemaIndexes cached = lastIndexes;
        if (cached != null && cached.schema == object.schema && cached.type == object.type) {
            return cached.indexes;
        }
        int[] indexes = new int[properties.length];
        for (int i = 0; i < properties.length; i++) {
            indexes[i] = object.indexOf(properties[i].name);
        }
        lastIndexes = new SchemaIndexes(object.type, object.schema, indexes);
        return indexes;
    }

    /** Property to footer index for one schema: objects deserialized to a class mostly share one. */
    private static final class SchemaIndexes {
        final TypeMeta type;
        final Schema schema;
        final int[] indexes;

        SchemaIndexes(TypeMeta type, Schema schema, int[] indexes) {
            this.type = type;
            this.schema = schema;
            this.indexes = indexes;
        }
    }

    /** A new instance from constructor arguments (records) or by the no-argument constructor (POJOs). */
    Object construct(Object[] recordArguments) throws Throwable {
        if (record) {
            return constructor.invoke(recordArguments);
        }
        if (constructor == null) {
            throw new SluiceException("class " + cls.getName() + " cannot be deserialized: it has no "
                    + "no-argument constructor");
        }
        return constructor.invoke();
    }
}
