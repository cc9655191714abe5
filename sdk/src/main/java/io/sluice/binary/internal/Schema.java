package io.sluice.binary.internal;

import io.sluice.affinity.internal.Murmur3;

/**
 * An ordered set of fields of one type: the order of an object's values and footer entries.
 * Objects name their schema by id, so a field's footer index is found here without scanning.
 */
final class Schema {

    /** The type whose field order this is (an object's type is found from its schema). */
    final TypeMeta type;
    final int id;
    final FieldMeta[] fields;
    private final int[] fieldIds;
    /** For wide schemas only: field to footer index (narrow ones scan, which is faster). */
    private final java.util.IdentityHashMap<FieldMeta, Integer> wideIndex;

    Schema(TypeMeta type, int id, FieldMeta[] fields) {
        this.type = type;
        this.id = id;
        this.fields = fields;
        this.fieldIds = new int[fields.length];
        for (int i = 0; i < fields.length; i++) {
            fieldIds[i] = fields[i].id;
        }
        if (fields.length > 16) {
            wideIndex = new java.util.IdentityHashMap<>();
            for (int i = 0; i < fields.length; i++) {
                wideIndex.put(fields[i], i);
            }
        } else {
            wideIndex = null;
        }
    }

    static int idOf(FieldMeta[] fields, int count) {
        int[] ids = new int[count];
        for (int i = 0; i < count; i++) {
            ids[i] = fields[i].id;
        }
        return Murmur3.ofInts(ids, count);
    }

    int size() {
        return fieldIds.length;
    }

    int fieldId(int index) {
        return fieldIds[index];
    }

    /** The footer index of the field, or -1. */
    int indexOf(FieldMeta field) {
        if (wideIndex != null) {
            Integer i = wideIndex.get(field);
            return i == null ? -1 : i;
        }
        FieldMeta[] f = fields;
        for (int i = 0; i < f.length; i++) {
            if (f[i] == field) {
                return i;
            }
        }
        return -1;
    }

    boolean sameFields(FieldMeta[] other, int count) {
        if (count != fields.length) {
            return false;
        }
        for (int i = 0; i < count; i++) {
            if (fields[i] != other[i]) {
                return false;
            }
        }
        return true;
    }
}
