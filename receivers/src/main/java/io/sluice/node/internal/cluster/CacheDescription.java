package io.sluice.node.internal.cluster;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.sluice.CacheConfig;
import io.sluice.CacheStoreConfig;
import io.sluice.protocol.internal.CacheStoreWire;
import io.sluice.protocol.internal.Wire;

/**
 * A cache as the cluster's catalogue holds it (the description bytes of
 * {@link io.sluice.cluster.internal.ClusterCatalogue}), big-endian:
 * <pre>
 * offset  size    field
 * 0       1       u8 format: 1
 * 1       2 + n   string: the cache's name
 * 3 + n   4       int32 partitions (the cluster's count)
 * 7 + n   ...     the cache store attachment as CREATE_CACHE carries it ({@link CacheStoreWire}); no bytes without
 *                 a store
 * </pre>
 */
final class CacheDescription {

    static final int FORMAT = 1;

    private CacheDescription() {
    }

    static byte[] encode(CacheConfig config) {
        ByteBuf out = Unpooled.buffer(64);
        try {
            out.writeByte(FORMAT);
            Wire.writeString(out, config.name());
            out.writeInt(config.partitions());
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
            if (format != FORMAT) {
                throw new IllegalArgumentException("cache description format " + format + " is not " + FORMAT
                        + " (a node of another version wrote the cluster's catalogue)");
            }
            String name = Wire.readString(in, "cache name");
            int partitions = Wire.readInt(in, "partitions");
            CacheStoreConfig store = CacheStoreWire.read(in);
            CacheConfig config = CacheConfig.named(name).withPartitions(partitions);
            return store == null ? config : config.withStore(store);
        } catch (Wire.MalformedFrameException e) {
            throw new IllegalArgumentException("a cache description in the cluster's catalogue is malformed: "
                    + e.getMessage(), e);
        } finally {
            in.release();
        }
    }
}
