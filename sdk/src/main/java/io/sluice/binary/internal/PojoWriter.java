package io.sluice.binary.internal;

/**
 * Writes the property values of one class's instances as tagged values, back to back, in the order of
 * {@link ClassLayout#properties}: the part of a marshalled object between its header and its footer. One per
 * class, built once ({@link PojoWriters#of}): a generated class that reads each property directly, or the
 * reflective writer where one cannot be generated. Public only because generated classes live in the
 * marshalled class's package and implement it; not an API.
 */
public interface PojoWriter {

    /**
     * Writes every property of {@code pojo} at {@code out}'s position, recording where value i starts, relative
     * to {@code base}, in {@code offsets[i]}.
     *
     * @param pojo    an instance of the class this writer was made for
     * @param context the codec that writes values other than primitives and strings (nested objects included)
     * @throws RuntimeException what a property's value throws while it is encoded (the buffer is then left
     *                          partly written)
     */
    void write(Object pojo, GrowableBuffer out, BinaryContext context, int[] offsets, int base);
}
