package io.sluice.binary.internal;

/**
 * The writes that generated {@link PojoWriter}s call, one per declared property type: the same bytes as
 * {@link ValueEncoder#encode} of the property's value. Public only because generated classes live in the
 * marshalled class's package; not an API.
 */
public final class PojoWriteOps {

    private PojoWriteOps() {
    }

    public static void writeLong(GrowableBuffer out, long v) {
        ValueEncoder.writeLong(out, v);
    }

    public static void writeInt(GrowableBuffer out, int v) {
        ValueEncoder.writeInt(out, v);
    }

    public static void writeDouble(GrowableBuffer out, double v) {
        ValueEncoder.writeDouble(out, v);
    }

    public static void writeFloat(GrowableBuffer out, float v) {
        ValueEncoder.writeFloat(out, v);
    }

    public static void writeShort(GrowableBuffer out, short v) {
        ValueEncoder.writeShort(out, v);
    }

    public static void writeByte(GrowableBuffer out, byte v) {
        ValueEncoder.writeByte(out, v);
    }

    public static void writeChar(GrowableBuffer out, char v) {
        ValueEncoder.writeChar(out, v);
    }

    public static void writeBoolean(GrowableBuffer out, boolean v) {
        ValueEncoder.writeBoolean(out, v);
    }

    /** A property declared {@code String}: NULL or the string. */
    public static void writeString(GrowableBuffer out, String v) {
        if (v == null) {
            out.putByte(BinaryTags.NULL);
        } else {
            ValueEncoder.writeString(out, v);
        }
    }

    /** Any other property: the codec's encoding of its value. */
    public static void writeValue(GrowableBuffer out, Object v, BinaryContext context) {
        context.encoder().encode(v, out);
    }
}
