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
     * Converts a POJO or record to a binary object, using accessors cached per class. A record's
     * components, or a class's non-static non-transient fields (superclass fields first), become
     * the fields of a type named by the class's name; nested objects become nested binary objects.
     * No {@code --add-opens} is needed for application classes; a class whose fields cannot be made
     * accessible is refused.
     *
     * @throws BinaryTypeMismatchException if a field's type differs from the one registered for the type
     * @throws io.sluice.SluiceException   if the class's members cannot be made accessible
     * @throws IllegalArgumentException    for a JDK class that has no encoding of its own (e.g. {@code java.util.Date}),
     *                                     or objects nested more than 64 deep (a cycle in the object graph)
     */
    BinaryObject toBinary(Object pojo);

    /**
     * Builds a binary object of the named type from a JSON object. A property of a registered
     * field takes the field's type (ISO-8601 text for dates and times, base64 for byte arrays);
     * otherwise text becomes a String, an integral number a long, another number a double, an
     * array a list and an object a nested binary object of type {@code <typeName>.<property>}.
     *
     * @throws BinaryTypeMismatchException if a property cannot be converted to its field's registered type
     * @throws IllegalArgumentException    if the text is not JSON or not a JSON object
     */
    BinaryObject fromJson(String json, String typeName);

    /** Builds a binary object of the named type from a JSON object node. */
    BinaryObject fromJson(JsonNode json, String typeName);

    /**
     * The object as JSON, one property per field in footer order; nested objects as JSON objects,
     * dates, times and UUIDs as their ISO-8601/canonical text, byte arrays as base64.
     */
    String toJson(BinaryObject object);

    /** The registered type with this name, or {@code null}. */
    BinaryType type(String typeName);
}
