package io.sluice.binary;

import java.util.Collection;

/** What is registered for a type: its name and id, its fields and their types. */
public interface BinaryType {

    /** The type's name, e.g. {@code "StockOrder"} or a class's name. */
    String typeName();

    /** The type's id, derived from its name. */
    int typeId();

    /** The names of the fields registered for the type, in registration order. */
    Collection<String> fieldNames();

    /** The name of the field's type (e.g. {@code "double"}, {@code "String"}), or {@code null} if the type has no such field. */
    String fieldTypeName(String fieldName);
}
