package io.sluice.binary;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Makes and converts binary objects; obtained from {@code Sluice.binary()}. Type metadata
 * registered through it is shared by the client and the node.
 */
public interface Binary {

    /**
     * A builder for a new object of the named type. The builder may be kept and reused: after
     * {@link BinaryObjectBuilder#build()} it is ready for the next object of the same type.
     */
    BinaryObjectBuilder builder(String typeName);

    /**
     * Converts a POJO or record to a binary object, using accessors cached per class.
     *
     * @throws BinaryTypeMismatchException if a field's type differs from the one registered for the type
     */
    BinaryObject toBinary(Object pojo);

    /** Builds a binary object of the named type from a JSON object. */
    BinaryObject fromJson(String json, String typeName);

    /** Builds a binary object of the named type from a JSON object node. */
    BinaryObject fromJson(JsonNode json, String typeName);

    /** The object as JSON, one property per field. */
    String toJson(BinaryObject object);

    /** The registered type with this name, or {@code null}. */
    BinaryType type(String typeName);
}
