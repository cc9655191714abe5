package io.sluice.binary.internal;

import java.io.ByteArrayOutputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;

import static io.sluice.binary.internal.ClassFileBuilder.*;

/**
 * Makes the {@link PojoWriter} of a class: a hidden class generated for it, defined in its package as a nestmate
 * ({@link MethodHandles.Lookup#defineHiddenClass}), whose one method reads every property directly (a field
 * read or the record accessor, compiled and inlined like hand-written code) and calls the
 * {@link PojoWriteOps} write for its declared type. The method-handle accessors it replaces cost about
 * 12 ns per property on StockOrder (issue 29). Where a class cannot have one — it is in another module or class
 * loader than Sluice, or a property is declared in a superclass the class's package cannot read — the
 * {@link ReflectivePojoWriter} writes the same bytes.
 *
 * <p>The generated method, for properties p0..pn-1 (locals: 1 pojo, 2 out, 3 context, 4 offsets, 5 base,
 * 6 the pojo cast to its class):
 * <pre>
 * aload 1; checkcast C; astore 6
 * per property i:  offsets[i] = out.position() - base
 *                  PojoWriteOps.writeT(out, ((C) pojo).pi [, context])     (getfield or invokevirtual)
 * return
 * </pre>
 */
final class PojoWriters {

    /** The generated method's size stays far below the JVM's 64 KiB limit (about 23 bytes per property). */
    static final int MAX_GENERATED_PROPERTIES = 2_000;

    private static final MethodHandles.Lookup LOOKUP = MethodHandles.lookup();
    private static final String OPS = internalName(PojoWriteOps.class);
    private static final String BUFFER = GrowableBuffer.class.descriptorString();
    private static final String WRITE_DESCRIPTOR = "(Ljava/lang/Object;" + BUFFER
            + BinaryContext.class.descriptorString() + "[II)V";

    private PojoWriters() {
    }

    /** The writer for the layout's class: generated if it can be, else reflective. */
    static PojoWriter of(ClassLayout layout) {
        PojoWriter generated = generate(layout);
        return generated != null ? generated : new ReflectivePojoWriter(layout);
    }

    /** A generated writer, or null if this class cannot have one. */
    static PojoWriter generate(ClassLayout layout) {
        Class<?> cls = layout.cls;
        if (layout.properties.length > MAX_GENERATED_PROPERTIES || cls.isHidden() || cls.isArray()
                || cls.isPrimitive() || cls.getModule() != PojoWriter.class.getModule()) {
            return null;
        }
        for (ClassLayout.Property p : layout.properties) {
            if (!reachable(cls, p.member)) {
                return null;
            }
        }
        try {
            byte[] bytes = classFile(layout);
            MethodHandles.Lookup in = MethodHandles.privateLookupIn(cls, LOOKUP);
            MethodHandles.Lookup hidden = in.defineHiddenClass(bytes, true, MethodHandles.Lookup.ClassOption.NESTMATE);
            return (PojoWriter) hidden.findConstructor(hidden.lookupClass(), MethodType.methodType(void.class)).invoke();
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable e) { // IllegalAccessException, LinkageError: the reflective writer still works
            return null;
        }
    }

    /**
     * Whether a class in {@code cls}'s package and nest may read the member directly (JVMS 5.4.4): the writer
     * joins {@code cls}'s nest, so it reads that nest's private members and its package's non-private ones.
     */
    static boolean reachable(Class<?> cls, Member m) {
        Class<?> d = m.getDeclaringClass();
        if (d == cls || d.getNestHost() == cls.getNestHost()) {
            return true;
        }
        int modifiers = m.getModifiers();
        if (Modifier.isPrivate(modifiers)) {
            return false;
        }
        if (d.getClassLoader() == cls.getClassLoader() && d.getPackageName().equals(cls.getPackageName())) {
            return true;
        }
        return Modifier.isPublic(modifiers) && Modifier.isPublic(d.getModifiers());
    }

    static byte[] classFile(ClassLayout layout) {
        String self = internalName(layout.cls);
        ClassFileBuilder cf = new ClassFileBuilder(self + "$$SluiceWriter", internalName(PojoWriter.class));
        cf.defaultConstructor();
        ByteArrayOutputStream code = new ByteArrayOutputStream();
        int position = cf.methodRef(internalName(GrowableBuffer.class), "position", "()I");
        code.write(0x2b); // aload_1
        u1u2(code, CHECKCAST, cf.classRef(self));
        u1u1(code, ASTORE, 6);
        ClassLayout.Property[] props = layout.properties;
        for (int i = 0; i < props.length; i++) {
            u1u1(code, ALOAD, 4);
            pushInt(code, i);
            code.write(0x2c); // aload_2
            u1u2(code, INVOKEVIRTUAL, position);
            u1u1(code, ILOAD, 5);
            code.write(ISUB);
            code.write(IASTORE);

            ClassLayout.Property p = props[i];
            code.write(0x2c); // aload_2
            u1u1(code, ALOAD, 6);
            String type = p.type.descriptorString();
            if (p.member instanceof Field f) {
                u1u2(code, GETFIELD, cf.fieldRef(internalName(f.getDeclaringClass()), f.getName(), type));
            } else {
                Method m = (Method) p.member;
                u1u2(code, INVOKEVIRTUAL, cf.methodRef(internalName(m.getDeclaringClass()), m.getName(), "()" + type));
            }
            String op;
            String descriptor;
            if (p.type.isPrimitive() || p.type == String.class) {
                op = "write" + opName(p.type);
                descriptor = "(" + BUFFER + type + ")V";
            } else {
                code.write(0x2d); // aload_3
                op = "writeValue";
                descriptor = "(" + BUFFER + "Ljava/lang/Object;" + BinaryContext.class.descriptorString() + ")V";
            }
            u1u2(code, INVOKESTATIC, cf.methodRef(OPS, op, descriptor));
        }
        code.write(RETURN);
        cf.method("write", WRITE_DESCRIPTOR, 6, 7, code.toByteArray());
        return cf.toBytes();
    }

    private static String opName(Class<?> type) {
        if (type == String.class) {
            return "String";
        }
        String n = type.getName();
        return Character.toUpperCase(n.charAt(0)) + n.substring(1);
    }

    private static String internalName(Class<?> c) {
        return c.getName().replace('.', '/');
    }

    private static void pushInt(ByteArrayOutputStream code, int i) {
        if (i <= 5) {
            code.write(0x03 + i); // iconst_i
        } else if (i <= Byte.MAX_VALUE) {
            u1u1(code, BIPUSH, i);
        } else {
            u1u2(code, SIPUSH, i);
        }
    }

    private static void u1u1(ByteArrayOutputStream code, int op, int operand) {
        code.write(op);
        code.write(operand);
    }

    private static void u1u2(ByteArrayOutputStream code, int op, int operand) {
        code.write(op);
        code.write(operand >>> 8);
        code.write(operand);
    }
}
