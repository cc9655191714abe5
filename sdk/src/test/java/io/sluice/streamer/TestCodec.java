package io.sluice.streamer;

import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.binary.internal.ValueCodec;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A test-only codec: a one-byte tag, then the value. Enough for the streamer's tests, which only
 * need equal keys to encode to equal bytes and the transport side to decode what was sent.
 *
 * <pre>
 * tag  type     then
 * 0    null     -
 * 1    Long     8 bytes
 * 2    Integer  4 bytes
 * 3    String   int length, UTF-8 bytes
 * 4    byte[]   int length, bytes
 * </pre>
 */
final class TestCodec implements ValueCodec {

    @Override
    public void encode(Object value, GrowableBuffer out) {
        if (value == null) {
            out.putByte(0);
        } else if (value instanceof Long l) {
            out.putByte(1).putLong(l);
        } else if (value instanceof Integer i) {
            out.putByte(2).putInt(i);
        } else if (value instanceof String s) {
            byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
            out.putByte(3).putInt(bytes.length).putBytes(bytes);
        } else if (value instanceof byte[] b) {
            out.putByte(4).putInt(b.length).putBytes(b);
        } else {
            throw new IllegalArgumentException("the test codec cannot encode " + value.getClass());
        }
    }

    @Override
    public Object decode(byte[] bytes, int offset, int length, boolean keepBinary) {
        switch (bytes[offset]) {
            case 0:
                return null;
            case 1:
                return GrowableBuffer.getLong(bytes, offset + 1);
            case 2:
                return GrowableBuffer.getInt(bytes, offset + 1);
            case 3:
                return new String(bytes, offset + 5, GrowableBuffer.getInt(bytes, offset + 1), StandardCharsets.UTF_8);
            case 4:
                int n = GrowableBuffer.getInt(bytes, offset + 1);
                return Arrays.copyOfRange(bytes, offset + 5, offset + 5 + n);
            default:
                throw new IllegalArgumentException("unknown tag " + bytes[offset] + " at " + offset);
        }
    }

    /** The encoded bytes of a key, as the streamer hashes them. */
    byte[] bytes(Object value) {
        GrowableBuffer out = new GrowableBuffer(16);
        encode(value, out);
        return out.toByteArray();
    }
}
