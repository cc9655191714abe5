package io.sluice.node.internal.cluster;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.sluice.CacheConfig;
import io.sluice.CacheStoreConfig;
import io.sluice.protocol.internal.CacheOptionsWire;
import io.sluice.protocol.internal.CacheStoreWire;
import io.sluice.protocol.internal.Wire;

/**
 * A cache as the cluster's catalogue holds it (the description bytes of
 * {@link io.sluice.cluster.internal.ClusterCatalogue}), big-endian:
 * <pre>
 * offset  size    field
 * 0       1       u8 format: 1, or 2 with cache options
 * 1       2 + n   string: the cache's name
 * 3 + n   4       int32 partitions (the cluster's count)
 * 7 + n   ...     format 2 only: the cache options ({@link CacheOptionsWire}: backups, write sync, reads from
 *                 backups, indexes)
 * ...     ...     the cache store attachment as CREATE_CACHE carries it ({@link CacheStoreWire}); no bytes without
 *                 a store
 * </pre>
 * Format 1 is written when every option is its default (a node of before the options reads it), and reads as the
 * default options.
 */
final class CacheDescription {

    static final int FORMAT = 1;
    static final int FORMAT_WITH_OPTIONS = 2;

    private CacheDescription() {
    }

    static byte[] encode(CacheConfig config) {
        ByteBuf out = Unpooled.buffer(64);
        try {
            CacheOptionsWire.Options options = CacheOptionsWire.Options.of(config);
            out.writeByte(options.isDefault() ? FORMAT : FORMAT_WITH_OPTIONS);
            Wire.writeString(out, config.name());
            out.writeInt(config.partitions());
            if (!options.isDefault()) {
                CacheOptionsWire.write(out, options);
            }
            CacheStoreWire.write(out, config.store());
            byte[] bytes = new byte[out.readableBytes()];
            out.readBytes(bytes);
            return bytes;
        } finally {
            out.release();
        }
    }

    /** @throws IllegalArgumentException if the bytes are not a description this node reads */
    static CacheConfig decode(byte[] description) {
        ByteBuf in = Unpooled.wrappedBuffer(description);
        try {
            int format = Wire.readByte(in, "cache description format");
            if (format != FORMAT && format != FORMAT_WITH_OPTIONS) {
                throw new IllegalArgumentException("cache description format " + format + " is not " + FORMAT
                        + " or " + FORMAT_WITH_OPTIONS + " (a node of another version wrote the cluster's catalogue)");
            }
            String name = Wire.readString(in, "cache name");
            int partitions = Wire.readInt(in, "partitions");
            CacheOptionsWire.Options options = format == FORMAT_WITH_OPTIONS ? CacheOptionsWire.read(in)
                    : CacheOptionsWire.DEFAULTS;
            CacheStoreConfig store = CacheStoreWire.read(in);
            return options.applyTo(CacheConfig.named(name).withPartitions(partitions).withStore(store));
        } catch (Wire.MalformedFrameException e) {
            throw new IllegalArgumentException("a cache description in the cluster's catalogue is malformed: "
                    + e.getMessage(), e);
        } finally {
            in.release();
        }
    }
}
