package io.sluice.protocol.internal;

import io.netty.buffer.ByteBuf;
import io.sluice.CacheConfig;
import io.sluice.CacheStoreConfig;

/**
 * The tail of a CREATE_CACHE request, after its {@code string} cache and {@code int32} partitions:
 *
 * <pre>
 * | bytes | meaning                                                                              |
 * |-------|--------------------------------------------------------------------------------------|
 * | 1     | u8 flags: bit 0 if absent (get-or-create), bit 1 the cache options follow            |
 * | ...   | with bit 1: the cache options ({@link CacheOptionsWire})                             |
 * | ...   | the rest, if any: the store attachment ({@link CacheStoreWire}); none without a store |
 * </pre>
 *
 * A request written before the options existed has flags 0 or 1 and reads as the default options. The client sets
 * bit 1 only when some option is not its default, so a node of before the options still creates every cache whose
 * options are the defaults (it would read bit 1 as "if absent" and the options as a store attachment: malformed, or
 * naming a store it does not have, so it refuses a cache with options).
 */
public final class CacheCreateWire {

    private static final int IF_ABSENT = 1;
    private static final int HAS_OPTIONS = 2;

    private CacheCreateWire() {
    }

    /** What the tail carries. */
    public record Tail(boolean ifAbsent, CacheOptionsWire.Options options, CacheStoreConfig store) {

        /** The config with the name and partitions of {@code base} and this tail's options and store. */
        public CacheConfig applyTo(CacheConfig base) {
            return options.applyTo(base.withStore(store));
        }
    }

    /** Writes the tail of a request creating {@code config}. */
    public static void writeTail(ByteBuf out, CacheConfig config, boolean ifAbsent) {
        CacheOptionsWire.Options options = CacheOptionsWire.Options.of(config);
        boolean hasOptions = !options.isDefault();
        out.writeByte((ifAbsent ? IF_ABSENT : 0) | (hasOptions ? HAS_OPTIONS : 0));
        if (hasOptions) {
            CacheOptionsWire.write(out, options);
        }
        CacheStoreWire.write(out, config.store());
    }

    /** @throws Wire.MalformedFrameException if it is cut short, sets unknown flags or a value is out of range */
    public static Tail readTail(ByteBuf in) {
        int flags = Wire.readByte(in, "create flags");
        if ((flags & ~(IF_ABSENT | HAS_OPTIONS)) != 0) {
            throw new Wire.MalformedFrameException("create flags " + flags + " set unknown bits");
        }
        CacheOptionsWire.Options options = (flags & HAS_OPTIONS) != 0 ? CacheOptionsWire.read(in)
                : CacheOptionsWire.DEFAULTS;
        return new Tail((flags & IF_ABSENT) != 0, options, CacheStoreWire.read(in));
    }
}
