package io.sluice.binary.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import io.sluice.binary.Binary;
import io.sluice.binary.BinaryFormatException;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.binary.BinaryType;

import java.util.Optional;

/**
 * The implementation of {@link Binary} and {@link ValueCodec}: owns the type registry. One
 * instance is shared by an embedded node and every client in its JVM. Thread-safe.
 *
 * <p>The encoding is described in {@code docs/binary-format.md}; {@link ValueEncoder} writes it,
 * {@link ValueReader} reads it, {@link ObjectLayout} lays out objects.
 */
public final class BinaryContext implements Binary, ValueCodec {

    private final TypeRegistry registry = new TypeRegistry();
    private final ValueEncoder encoder = new ValueEncoder(this);
    private final JsonConverter json = new JsonConverter(this);
    /** Class name to class, loaded through the thread's context class loader; empty if it cannot be loaded. */
    private final LoadingCache<String, Optional<Class<?>>> classes = Caffeine.newBuilder()
            .maximumSize(10_000)
            .build(BinaryContext::loadClass);
    /** Objects nested deeper than this while marshalling are taken for a cycle in the object graph. */
    static final int MAX_MARSHAL_DEPTH = 64;

    /** The name of the type an encoded value's first byte (its tag) stands for: "int", "String", ... */
    public static String tagName(int tag) {
        return BinaryTags.typeName((byte) tag);
    }

    /** Per thread: the buffer {@link #toBinary} writes into, how deep marshalling is nested, value offsets per depth. */
    private static final class MarshalState {
        final GrowableBuffer scratch = new GrowableBuffer(256);
        final int[][] offsets = new int[MAX_MARSHAL_DEPTH][];
        int depth;

        /** The offsets array of one nesting depth, at least n long: reused, so marshalling allocates nothing. */
        int[] offsets(int depth, int n) {
            int[] a = offsets[depth];
            if (a == null || a.length < n) {
                a = new int[Math.max(n, 16)];
                offsets[depth] = a;
            }
            return a;
        }
    }

    private final ThreadLocal<MarshalState> marshalState = ThreadLocal.withInitial(MarshalState::new);

    private final ThreadLocal<ValueValidator> validators = ThreadLocal.withInitial(() -> new ValueValidator(this));

    public BinaryContext() {
    }

    TypeRegistry registry() {
        return registry;
    }

    ValueEncoder encoder() {
        return encoder;
    }

    @Override
    public void encode(Object value, GrowableBuffer out) {
        encoder.encode(value, out);
    }

    @Override
    public Object decode(byte[] bytes, int offset, int length, boolean keepBinary) {
        if (offset < 0 || length < 0 || offset > bytes.length - length) {
            throw new IndexOutOfBoundsException("value at [" + offset + ", " + offset + " + " + length
                    + ") outside an array of " + bytes.length);
        }
        if (length == 0) {
            throw new BinaryFormatException("an encoded value needs at least its tag byte but has 0 bytes at offset 0");
        }
        return new ValueReader(this, bytes, offset, offset, offset + length, keepBinary).readWhole(null);
    }

    /**
     * Checks that {@code [offset, offset + length)} is exactly one well-formed value whose types and
     * schemas this context knows, without decoding it or allocating: how a node vets entries it
     * receives before storing them.
     *
     * @throws io.sluice.binary.BinaryFormatException naming what is wrong and where
     */
    public void checkValue(byte[] bytes, int offset, int length) {
        validators.get().checkWhole(bytes, offset, length);
    }

    /** The calling thread's validator (what {@link #checkValue} uses), for checking many values in a row. */
    public ValueValidator validator() {
        return validators.get();
    }

    @Override
    public BinaryObjectBuilder builder(String typeName) {
        return new BinaryObjectBuilderImpl(this, registry.register(typeName));
    }

    @Override
    public BinaryObject toBinary(Object pojo) {
        if (pojo instanceof BinaryObject) {
            return (BinaryObject) pojo;
        }
        if (pojo == null) {
            throw new NullPointerException("toBinary(null)");
        }
        GrowableBuffer buf = marshalState.get().scratch;
        buf.reset();
        marshal(pojo, buf);
        byte[] bytes = buf.toByteArray();
        return BinaryObjectImpl.wrap(this, bytes, 0, bytes.length, 0);
    }

    /** Writes a POJO or record as a binary object at the buffer's position. */
    void marshal(Object pojo, GrowableBuffer out) {
        Class<?> cls = pojo.getClass();
        if (cls.getName().startsWith("java.")) {
            throw new IllegalArgumentException("values of " + cls.getName() + " have no binary encoding; "
                    + "use one of the types in docs/binary-format.md");
        }
        ClassLayout layout = ClassLayout.of(cls);
        marshal(pojo, layout, layout.writer(), out);
    }

    /**
     * Writes the object with the given writer: its values after the smallest header, then the header and footer
     * ({@link ObjectLayout#finishInPlace}). The type and its fields are registered before any value is written.
     */
    void marshal(Object pojo, ClassLayout layout, PojoWriter writer, GrowableBuffer out) {
        MarshalState state = marshalState.get();
        int depth = state.depth;
        if (depth >= MAX_MARSHAL_DEPTH) {
            throw new IllegalArgumentException("objects nested deeper than " + MAX_MARSHAL_DEPTH + " while marshalling "
                    + layout.cls.getName() + "; does the object graph have a cycle?");
        }
        ClassLayout.Binding b = layout.binding(this);
        int n = layout.properties.length;
        int[] offsets = state.offsets(depth, n);
        state.depth = depth + 1;
        try {
            int start = out.position();
            out.position(start + ObjectLayout.MIN_HEADER);
            writer.write(pojo, out, this, offsets, start + ObjectLayout.MIN_HEADER);
            ObjectLayout.finishInPlace(out, start, b.type.id, b.schema.id, offsets, n);
        } finally {
            state.depth = depth;
        }
    }

    /** The object as an instance of the class its type was registered from, or itself if there is none. */
    Object deserializeIfClass(BinaryObjectImpl object) {
        String className = object.type.className();
        if (className == null) {
            return object;
        }
        Optional<Class<?>> cls = classes.get(className);
        return cls.isPresent() ? deserialize(object, cls.get()) : object;
    }

    private static Optional<Class<?>> loadClass(String name) {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        try {
            return Optional.of(Class.forName(name, true, loader != null ? loader : BinaryContext.class.getClassLoader()));
        } catch (ClassNotFoundException | LinkageError e) {
            return Optional.empty();
        }
    }

    /** The object's fields, by name, as an instance of the class. */
    <T> T deserialize(BinaryObjectImpl object, Class<T> cls) {
        if (cls.isInstance(object)) {
            return cls.cast(object);
        }
        return cls.cast(Deserializer.deserialize(object, cls));
    }

    @Override
    public BinaryObject fromJson(String text, String typeName) {
        return json.fromJson(text, typeName);
    }

    @Override
    public BinaryObject fromJson(JsonNode node, String typeName) {
        return json.fromJson(node, typeName);
    }

    @Override
    public String toJson(BinaryObject object) {
        return json.toJson(object);
    }

    /**
     * Every registered type, field and schema as bytes (layout in {@link TypeMetadata} and
     * {@code docs/binary-format.md}), for {@link #importTypes} in another process.
     */
    public byte[] exportTypes() {
        return TypeMetadata.export(this);
    }

    /**
     * Registers the types, fields and schemas another context exported, so that objects built
     * there decode here. Registering what is already known is harmless.
     *
     * @throws BinaryFormatException                            if the bytes are not exported type metadata
     * @throws io.sluice.binary.BinaryTypeMismatchException if a field is registered here with another type
     */
    public void importTypes(byte[] metadata) {
        TypeMetadata.importTypes(this, metadata);
    }

    /**
     * A number that grows whenever a type, field, schema or class name is registered: a transport
     * compares it with the value it last sent to know whether to send {@link #exportTypes()} again.
     */
    public long typesVersion() {
        return registry.version();
    }

    @Override
    public BinaryType type(String typeName) {
        return registry.byName(typeName);
    }
}
