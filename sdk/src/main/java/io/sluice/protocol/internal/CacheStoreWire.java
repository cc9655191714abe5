package io.sluice.protocol.internal;

import io.netty.buffer.ByteBuf;
import io.sluice.CacheStoreConfig;

import java.time.Duration;

/**
 * A cache's store attachment ({@link CacheStoreConfig}) in a CREATE_CACHE request, after its
 * {@code u8} if-absent. Absent (no bytes) when the cache has no store, so a node of before this
 * field still creates store-less caches and refuses a store-backed one (bytes after the body).
 *
 * <pre>
 * | bytes | meaning                                                   |
 * |-------|-----------------------------------------------------------|
 * | 2 + n | string: the store's name, registered on the node          |
 * | 1     | write mode: 0 none (read-through only), 1 write-through, 2 write-behind |
 * | 1     | read-through: 0 or 1                                      |
 * | 4     | int32 write-behind flush size (keys)                      |
 * | 8     | int64 write-behind flush interval (ms)                    |
 * | 4     | int32 write-behind queue bound (keys)                     |
 * | 4     | int32 write-behind flush attempts                         |
 * | 4     | int32 write-behind flush threads                          |
 * </pre>
 */
public final class CacheStoreWire {

    private CacheStoreWire() {
    }

    /** Writes the attachment, or nothing when {@code store} is null. */
    public static void write(ByteBuf out, CacheStoreConfig store) {
        if (store == null) {
            return;
        }
        Wire.writeString(out, store.storeName());
        out.writeByte(store.writeMode().ordinal());
        out.writeByte(store.readThrough() ? 1 : 0);
        out.writeInt(store.flushSize());
        out.writeLong(store.flushInterval().toMillis());
        out.writeInt(store.queueBound());
        out.writeInt(store.flushAttempts());
        out.writeInt(store.flushThreads());
    }

    /**
     * Reads an attachment if the request has one, or returns null.
     *
     * @throws Wire.MalformedFrameException if it is cut short or a value is out of range
     */
    public static CacheStoreConfig read(ByteBuf in) {
        if (!in.isReadable()) {
            return null;
        }
        String name = Wire.readString(in, "store name");
        int mode = Wire.readByte(in, "store write mode");
        CacheStoreConfig.WriteMode[] modes = CacheStoreConfig.WriteMode.values();
        if (mode >= modes.length) {
            throw new Wire.MalformedFrameException("store write mode " + mode + " is not one of 0.." + (modes.length - 1));
        }
        boolean readThrough = Wire.readByte(in, "store read-through") != 0;
        int flushSize = Wire.readInt(in, "store flush size");
        long flushInterval = Wire.readLong(in, "store flush interval");
        int queueBound = Wire.readInt(in, "store queue bound");
        int flushAttempts = Wire.readInt(in, "store flush attempts");
        int flushThreads = Wire.readInt(in, "store flush threads");
        try {
            return CacheStoreConfig.writeThrough(name).withWriteMode(modes[mode]).withReadThrough(readThrough)
                    .withFlushSize(flushSize).withFlushInterval(Duration.ofMillis(flushInterval))
                    .withQueueBound(queueBound).withFlushAttempts(flushAttempts).withFlushThreads(flushThreads);
        } catch (IllegalArgumentException e) {
            throw new Wire.MalformedFrameException("store attachment: " + e.getMessage());
        }
    }
}
