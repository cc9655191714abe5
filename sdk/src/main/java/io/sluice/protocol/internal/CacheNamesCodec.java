package io.sluice.protocol.internal;

import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.List;

/**
 * The answer body of CACHE_NAMES (op 16; its request body is empty), written by the node and read by the client.
 * <pre>
 * offset  size    field
 * 0       4       int32 n, the number of names
 * 4       ...     n strings (u16 byte length, UTF-8), the node's cache names in no particular order
 * </pre>
 */
public final class CacheNamesCodec {

    /** The least bytes a name takes: its length field. */
    private static final int MIN_NAME_BYTES = 2;

    private CacheNamesCodec() {
    }

    public static void write(ByteBuf out, List<String> names) {
        out.writeInt(names.size());
        for (String name : names) {
            Wire.writeString(out, name);
        }
    }

    /** @throws Wire.MalformedFrameException if the body does not hold what its count claims */
    public static List<String> read(ByteBuf in) {
        int n = Wire.readCount(in, MIN_NAME_BYTES, "cache names");
        List<String> names = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            names.add(Wire.readString(in, "cache name"));
        }
        return names;
    }
}
