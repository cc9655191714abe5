package io.sluice.binary.internal;

import io.sluice.binary.BinaryObjectBuilder;

/**
 * A builder for a reader that writes each value as it reads it (the Kafka sink's JSON reader): text fields as
 * ASCII bytes copied into the object as they are, without decoding them to chars and encoding them back, and a way
 * ({@link DirectBuilder#clear()}) to drop what it set when the record turns out to be one it does not read. The
 * builders {@link io.sluice.binary.Binary#builder} returns implement it.
 */
public interface AsciiStringBuilder extends DirectBuilder {

    /**
     * Sets a text field to the String of {@code length} bytes of {@code ascii} from {@code offset}: the same field
     * as {@link BinaryObjectBuilder#setField(String, Object)} with that String.
     *
     * @param ascii bytes each in 0x01..0x7F: the caller guarantees it, nothing checks it (another byte makes a
     *              value that does not decode to that String)
     * @throws IndexOutOfBoundsException if the range is outside {@code ascii}
     * @throws io.sluice.binary.BinaryTypeMismatchException if the type has the field with another type
     */
    BinaryObjectBuilder setAsciiString(String name, byte[] ascii, int offset, int length);
}
