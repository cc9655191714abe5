package io.sluice.binary.internal;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;

/**
 * The bytes of a small class file (JVMS chapter 4): one final class implementing one interface, no fields,
 * methods whose code runs straight through (no branches and no exception handlers, hence no stack map frames).
 * What {@link PojoWriters} generates, without a bytecode library.
 * <pre>
 * u4 magic CAFEBABE, u2 minor 0, u2 major 52
 * u2 constant_pool_count, cp_info[]           (Utf8, Class, NameAndType, Fieldref, Methodref)
 * u2 access (public final super), u2 this_class, u2 super_class (java/lang/Object), u2 1, u2 interface
 * u2 0 fields
 * u2 methods_count, per method: u2 access, u2 name, u2 descriptor, u2 1, Code attribute
 *     (u2 "Code", u4 length, u2 max_stack, u2 max_locals, u4 code_length, code, u2 0 handlers, u2 0 attributes)
 * u2 0 attributes
 * </pre>
 */
final class ClassFileBuilder {

    static final int ALOAD = 0x19;
    static final int ILOAD = 0x15;
    static final int ASTORE = 0x3a;
    static final int BIPUSH = 0x10;
    static final int SIPUSH = 0x11;
    static final int ISUB = 0x64;
    static final int IASTORE = 0x4f;
    static final int RETURN = 0xb1;
    static final int GETFIELD = 0xb4;
    static final int INVOKEVIRTUAL = 0xb6;
    static final int INVOKESPECIAL = 0xb7;
    static final int INVOKESTATIC = 0xb8;
    static final int CHECKCAST = 0xc0;

    private static final int MAJOR_VERSION = 52;

    private final ByteArrayOutputStream poolBytes = new ByteArrayOutputStream();
    private final DataOutputStream pool = new DataOutputStream(poolBytes);
    private final Map<String, Integer> entries = new HashMap<>();
    private int poolCount = 1;
    private final ByteArrayOutputStream methodBytes = new ByteArrayOutputStream();
    private final DataOutputStream methods = new DataOutputStream(methodBytes);
    private int methodCount;
    private final int thisClass;
    private final int superClass;
    private final int iface;

    /** @param name the class's internal name ({@code a/b/C}); its interface's internal name */
    ClassFileBuilder(String name, String interfaceName) {
        thisClass = classRef(name);
        superClass = classRef("java/lang/Object");
        iface = classRef(interfaceName);
    }

    int utf8(String s) {
        return entry("U" + s, out -> {
            out.writeByte(1);
            out.writeUTF(s); // modified UTF-8 with its u2 length, as class files have it
        });
    }

    int classRef(String internalName) {
        int name = utf8(internalName);
        return entry("C" + internalName, out -> {
            out.writeByte(7);
            out.writeShort(name);
        });
    }

    int fieldRef(String owner, String name, String descriptor) {
        return memberRef(9, owner, name, descriptor);
    }

    int methodRef(String owner, String name, String descriptor) {
        return memberRef(10, owner, name, descriptor);
    }

    private int memberRef(int tag, String owner, String name, String descriptor) {
        int cls = classRef(owner);
        int n = utf8(name);
        int d = utf8(descriptor);
        int nameAndType = entry("N" + name + ' ' + descriptor, out -> {
            out.writeByte(12);
            out.writeShort(n);
            out.writeShort(d);
        });
        return entry(tag + owner + '.' + name + ' ' + descriptor, out -> {
            out.writeByte(tag);
            out.writeShort(cls);
            out.writeShort(nameAndType);
        });
    }

    /** A public method with the given straight-line code. */
    void method(String name, String descriptor, int maxStack, int maxLocals, byte[] code) {
        int n = utf8(name);
        int d = utf8(descriptor);
        int codeName = utf8("Code");
        try {
            methods.writeShort(0x0001);
            methods.writeShort(n);
            methods.writeShort(d);
            methods.writeShort(1);
            methods.writeShort(codeName);
            methods.writeInt(12 + code.length);
            methods.writeShort(maxStack);
            methods.writeShort(maxLocals);
            methods.writeInt(code.length);
            methods.write(code);
            methods.writeShort(0);
            methods.writeShort(0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        methodCount++;
    }

    /** The constructor {@code super()}. */
    void defaultConstructor() {
        int init = methodRef("java/lang/Object", "<init>", "()V");
        method("<init>", "()V", 1, 1, new byte[] {
            0x2a, (byte) INVOKESPECIAL, (byte) (init >>> 8), (byte) init, (byte) RETURN});
    }

    byte[] toBytes() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        try {
            out.writeInt(0xCAFEBABE);
            out.writeShort(0);
            out.writeShort(MAJOR_VERSION);
            out.writeShort(poolCount);
            poolBytes.writeTo(out);
            out.writeShort(0x0001 | 0x0010 | 0x0020);
            out.writeShort(thisClass);
            out.writeShort(superClass);
            out.writeShort(1);
            out.writeShort(iface);
            out.writeShort(0);
            out.writeShort(methodCount);
            methodBytes.writeTo(out);
            out.writeShort(0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    private interface EntryWriter {
        void write(DataOutputStream out) throws IOException;
    }

    /** The index of a constant, added once. */
    private int entry(String key, EntryWriter writer) {
        Integer index = entries.get(key);
        if (index != null) {
            return index;
        }
        if (poolCount >= 0xFFFF) {
            throw new IllegalStateException("constant pool full");
        }
        try {
            writer.write(pool);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        entries.put(key, poolCount);
        return poolCount++;
    }
}
