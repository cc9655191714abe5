package io.sluice.cachestore.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.sluice.CacheStoreConfig;
import io.sluice.protocol.internal.CacheStoreWire;
import io.sluice.protocol.internal.Wire;

/**
 * A cache's store attachment as the bytes the log (STORE record) and the checkpoint manifest keep: the
 * {@link CacheStoreWire} layout, the same bytes a CREATE_CACHE request carries, so there is one definition.
 */
public final class StoreAttachment {

    private StoreAttachment() {
    }

    /** The attachment's bytes. */
    public static byte[] toBytes(CacheStoreConfig store) {
        ByteBuf buf = Unpooled.buffer(64);
        try {
            CacheStoreWire.write(buf, store);
            byte[] bytes = new byte[buf.readableBytes()];
            buf.readBytes(bytes);
            return bytes;
        } finally {
            buf.release();
        }
    }

    /**
     * @param where what held the bytes, for the error
     * @throws IllegalStateException naming where, if the bytes are not a whole attachment
     */
    public static CacheStoreConfig fromBytes(byte[] bytes, String where) {
        ByteBuf buf = Unpooled.wrappedBuffer(bytes);
        try {
            CacheStoreConfig store = CacheStoreWire.read(buf);
            if (store == null || buf.isReadable()) {
                throw new Wire.MalformedFrameException(store == null ? "no bytes"
                        : buf.readableBytes() + " bytes after its end");
            }
            return store;
        } catch (Wire.MalformedFrameException e) {
            throw new IllegalStateException(where + " holds a cache's store attachment that cannot be read: "
                    + e.getMessage(), e);
        }
    }
}
