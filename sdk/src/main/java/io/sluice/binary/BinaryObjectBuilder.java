package io.sluice.binary;

/**
 * Writes a binary object's stored form field by field. Reusable: {@link #build()} leaves the
 * builder empty and ready for the next object of the same type; reuse does not allocate per field.
 * Setting a field that is already set replaces its value. Not thread-safe: keep one builder per thread.
 * A failed {@code setField} leaves the builder as it was before the call.
 */
public interface BinaryObjectBuilder {

    /**
     * Sets a field; its type is the value's class.
     *
     * @throws BinaryTypeMismatchException if the type registers the field with another type
     */
    BinaryObjectBuilder setField(String name, Object value);

    /**
     * Sets a field with an explicit type (so that a {@code null} value still has one).
     *
     * @throws BinaryTypeMismatchException if the type registers the field with another type
     */
    <T> BinaryObjectBuilder setField(String name, T value, Class<? super T> type);

    /**
     * Sets a {@code long} field without boxing (same result as {@code setField(name, (Long) value)}).
     *
     * @throws BinaryTypeMismatchException if the type registers the field with another type
     */
    default BinaryObjectBuilder setLong(String name, long value) {
        return setField(name, value);
    }

    /**
     * Sets an {@code int} field without boxing.
     *
     * @throws BinaryTypeMismatchException if the type registers the field with another type
     */
    default BinaryObjectBuilder setInt(String name, int value) {
        return setField(name, value);
    }

    /**
     * Sets a {@code double} field without boxing.
     *
     * @throws BinaryTypeMismatchException if the type registers the field with another type
     */
    default BinaryObjectBuilder setDouble(String name, double value) {
        return setField(name, value);
    }

    /**
     * Sets a {@code boolean} field without boxing.
     *
     * @throws BinaryTypeMismatchException if the type registers the field with another type
     */
    default BinaryObjectBuilder setBoolean(String name, boolean value) {
        return setField(name, value);
    }

    /**
     * Sets a String field from {@code length} chars of {@code chars} starting at {@code offset}, without
     * making the String (same result as {@code setField(name, new String(chars, offset, length))}): a
     * parser's text buffer is written straight into the object. The chars are not kept.
     *
     * @throws BinaryTypeMismatchException if the type registers the field with another type
     * @throws IndexOutOfBoundsException   if the range is not inside {@code chars}
     */
    default BinaryObjectBuilder setString(String name, char[] chars, int offset, int length) {
        return setField(name, new String(chars, offset, length));
    }

    /** Removes a field set earlier (or taken from the object this builder was made from). */
    BinaryObjectBuilder removeField(String name);

    /** The object; the builder is then empty and may build the next one. */
    BinaryObject build();
}
