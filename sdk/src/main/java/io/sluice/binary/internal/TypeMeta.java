package io.sluice.binary.internal;

import io.sluice.affinity.internal.Murmur3;

import io.sluice.binary.BinaryType;
import io.sluice.binary.BinaryTypeMismatchException;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A registered type: name, id, fields (name to id and type), schemas, and the Java class it was
 * registered from, if any. Fields and schemas are only ever added; lookups do not lock.
 */
final class TypeMeta implements BinaryType {

    final String name;
    final int id;
    private volatile String className;
    private final ConcurrentHashMap<String, FieldMeta> fieldsByName = new ConcurrentHashMap<>();
    private final IntMap<FieldMeta> fieldsById = new IntMap<>();
    private volatile List<String> fieldOrder = List.of();
    private final IntMap<Schema> schemas = new IntMap<>();
    /** Every schema, in registration order, for {@link TypeMetadata} export. */
    private final java.util.concurrent.CopyOnWriteArrayList<Schema> schemaList =
            new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Runnable onChange;
    /** The schema most recently looked up: objects of a type almost always share one. */
    private volatile Schema lastSchema;

    /**
     * @param onChange run after a field or schema is registered (the registry counts changes)
     */
    TypeMeta(String name, int id, Runnable onChange) {
        this.name = name;
        this.id = id;
        this.onChange = onChange;
    }

    @Override
    public String typeName() {
        return name;
    }

    @Override
    public int typeId() {
        return id;
    }

    @Override
    public Collection<String> fieldNames() {
        return fieldOrder;
    }

    @Override
    public String fieldTypeName(String fieldName) {
        FieldMeta f = fieldsByName.get(fieldName);
        return f == null ? null : BinaryTags.typeName(f.tag());
    }

    /** The class this type was registered from, or null for types made by builders or JSON. */
    String className() {
        return className;
    }

    void className(String className) {
        if (!className.equals(this.className)) {
            this.className = className;
            onChange.run();
        }
    }

    FieldMeta field(String fieldName) {
        return fieldsByName.get(fieldName);
    }

    FieldMeta fieldById(int fieldId) {
        return fieldsById.get(fieldId);
    }

    /**
     * Registers a field, or returns the registered one after checking that the type agrees.
     *
     * @throws BinaryTypeMismatchException if the field is registered with another type
     */
    FieldMeta register(String fieldName, byte tag, boolean nullable) {
        FieldMeta f = fieldsByName.get(fieldName);
        if (f == null) {
            synchronized (this) {
                f = fieldsByName.get(fieldName);
                if (f == null) {
                    int fieldId = Murmur3.ofName(fieldName);
                    FieldMeta clash = fieldsById.get(fieldId);
                    if (clash != null) {
                        throw new IllegalArgumentException("field '" + fieldName + "' of type '" + name
                                + "' has the same id " + fieldId + " as field '" + clash.name + "'; rename one");
                    }
                    f = new FieldMeta(fieldName, fieldId, tag == BinaryTags.NULL ? BinaryTags.UNSET : tag, nullable);
                    fieldsById.putIfAbsent(fieldId, f);
                    fieldsByName.put(fieldName, f);
                    List<String> order = new ArrayList<>(fieldOrder);
                    order.add(fieldName);
                    fieldOrder = Collections.unmodifiableList(order);
                    onChange.run();
                }
                return f;
            }
        }
        check(f, tag);
        return f;
    }

    /** Checks a value's tag against the field's registered type (settling an UNSET field). */
    void check(FieldMeta f, byte actual) {
        byte registered = f.tag();
        if (registered == actual) {
            return;
        }
        if (registered == BinaryTags.UNSET) {
            registered = f.settle(actual);
        }
        if (!BinaryTags.accepts(registered, f.nullable, actual)) {
            throw new BinaryTypeMismatchException(name, f.name, BinaryTags.typeName(registered),
                    BinaryTags.typeName(actual));
        }
    }

    /** The schema of these fields in this order, registered if new. */
    Schema schema(FieldMeta[] fields, int count) {
        Schema last = lastSchema;
        if (last != null && last.sameFields(fields, count)) {
            return last;
        }
        int schemaId = Schema.idOf(fields, count);
        Schema s = schemas.get(schemaId);
        if (s == null) {
            synchronized (this) {
                s = schemas.get(schemaId);
                if (s == null) {
                    s = schemas.putIfAbsent(schemaId, new Schema(this, schemaId, java.util.Arrays.copyOf(fields, count)));
                    schemaList.add(s);
                    onChange.run();
                }
            }
        }
        if (!s.sameFields(fields, count)) {
            throw new IllegalArgumentException("two field orders of type '" + name + "' have the same schema id "
                    + schemaId);
        }
        lastSchema = s;
        return s;
    }

    List<Schema> schemas() {
        return schemaList;
    }

    /** The registered schema with this id, or null. */
    Schema schema(int schemaId) {
        Schema last = lastSchema;
        if (last != null && last.id == schemaId) {
            return last;
        }
        return schemas.get(schemaId);
    }

    @Override
    public String toString() {
        return name + fieldOrder;
    }
}
