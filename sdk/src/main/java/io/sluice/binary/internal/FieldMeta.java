package io.sluice.binary.internal;

/**
 * A registered field: its name, id and type tag. The tag of a field first seen only with
 * {@code null} is {@link BinaryTags#UNSET} until a value fixes it.
 */
final class FieldMeta {

    final String name;
    final int id;
    /** Whether null is allowed: false only for fields registered from a primitive Java field. */
    final boolean nullable;
    private volatile byte tag;

    FieldMeta(String name, int id, byte tag, boolean nullable) {
        this.name = name;
        this.id = id;
        this.tag = tag;
        this.nullable = nullable;
    }

    byte tag() {
        return tag;
    }

    /** Fixes the type of an UNSET field; returns the tag now registered. */
    synchronized byte settle(byte actual) {
        if (tag == BinaryTags.UNSET && actual != BinaryTags.NULL) {
            tag = actual;
        }
        return tag;
    }
}
