package io.sluice.binary;

/**
 * An immutable object in its stored form. Fields are read from the bytes through the footer
 * without deserializing the others.
 *
 * <p>Two binary objects are equal when their bytes are equal, and {@link #hashCode()} is a hash of
 * those bytes (computed when first asked: no hash is stored in the object). The bytes follow the order in which the fields were set, so objects used
 * as keys should always set their fields in one order (objects made from POJOs and records do).
 * Thread-safe.
 */
public interface BinaryObject {

    /** The field's value, or {@code null} if the object has no such field (or it is null). */
    <T> T field(String name);

    /** Whether the object has the field. */
    boolean hasField(String name);

    /** The object's type: its name, fields and their types. */
    BinaryType type();

    /** A builder initialised with this object's fields. */
    BinaryObjectBuilder toBuilder();

    /**
     * The object as an instance of the class (a POJO with a no-argument constructor, or a record).
     *
     * @throws BinaryTypeMismatchException if a field cannot be assigned to the class's field
     */
    <T> T deserialize(Class<T> type);

    /** The stored form: a copy of the object's bytes as {@code docs/binary-format.md} lays them out. */
    byte[] toBytes();
}
