package io.sluice.binary.internal;

/**
 * Encodes keys and values into the one tagged binary encoding (see {@code docs/binary-format.md})
 * and decodes them. The streamer, the caches and the node all go through this interface, so an
 * entry is encoded once and its bytes are what travels and what the page stores.
 *
 * <p>Equal keys encode to equal bytes; {@code int} and {@code long} keys encode so that unsigned
 * byte order equals numeric order.
 */
public interface ValueCodec {

    /**
     * Appends the encoding of a value: any encodable type, a POJO or record (marshalled), or a
     * {@link io.sluice.binary.BinaryObject} (its bytes copied).
     *
     * @throws NullPointerException never for {@code null}: null has its own tag
     * @throws io.sluice.binary.BinaryTypeMismatchException if a POJO field conflicts with its registered type
     */
    void encode(Object value, GrowableBuffer out);

    /**
     * Decodes the value at {@code [offset, offset + length)}.
     *
     * @param keepBinary keep binary objects as {@link io.sluice.binary.BinaryObject}; otherwise a
     *                   binary object made from a class is deserialized to that class
     * @throws io.sluice.binary.BinaryFormatException if the bytes are not a valid encoding
     */
    Object decode(byte[] bytes, int offset, int length, boolean keepBinary);
}
