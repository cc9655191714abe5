package io.sluice.binary.internal;

import io.sluice.affinity.internal.Murmur3;

import java.util.concurrent.ConcurrentHashMap;

/** Type name and type id to {@link TypeMeta}. Types are only ever added. Thread-safe. */
final class TypeRegistry {

    private final ConcurrentHashMap<String, TypeMeta> byName = new ConcurrentHashMap<>();
    private final IntMap<TypeMeta> byId = new IntMap<>();
    private final java.util.concurrent.atomic.AtomicLong version = new java.util.concurrent.atomic.AtomicLong();
    private final Runnable bump = version::incrementAndGet;

    /** The type with this name, registered if new. */
    TypeMeta register(String typeName) {
        TypeMeta t = byName.get(typeName);
        if (t != null) {
            return t;
        }
        if (typeName.isEmpty()) {
            throw new IllegalArgumentException("a type name must not be empty");
        }
        synchronized (this) {
            t = byName.get(typeName);
            if (t == null) {
                int typeId = Murmur3.ofName(typeName);
                TypeMeta clash = byId.get(typeId);
                if (clash != null) {
                    throw new IllegalArgumentException("type '" + typeName + "' has the same id " + typeId
                            + " as type '" + clash.name + "'; rename one");
                }
                t = new TypeMeta(typeName, typeId, bump);
                byId.putIfAbsent(typeId, t);
                byName.put(typeName, t);
                version.incrementAndGet();
            }
            return t;
        }
    }

    /** Increases whenever a type, field, schema or class name is registered. */
    long version() {
        return version.get();
    }

    java.util.Collection<TypeMeta> types() {
        return byName.values();
    }

    TypeMeta byName(String typeName) {
        return byName.get(typeName);
    }

    TypeMeta byId(int typeId) {
        return byId.get(typeId);
    }
}
