package io.sluice.node.internal.cluster;

import io.netty.buffer.ByteBuf;
import io.sluice.protocol.internal.Wire;

import java.io.IOException;

/**
 * The layout of PARTITION_FILE (op 28, issue 28): one cache's partition sent as a partition file (the checkpoint's
 * format, {@code CheckpointFormat}) on a connection of its own; all numbers big-endian. This class is the one
 * definition; docs/protocol.md repeats it.
 *
 * <p>Request body:
 * <pre>
 * size    meaning
 * string  cache
 * 4       partition
 * 4       chunk size asked for ({@value #MIN_CHUNK} .. {@value #MAX_CHUNK})
 * 1       flags: bit 0 in sync only (refused unless the node serves the partition or backs it caught up)
 * </pre>
 * Answer: a response frame (status 0) whose body is the header, then {@code chunk count} chunk frames:
 * <pre>
 * header  size  meaning               chunk frame  size  meaning
 *         8     file length                        4     frame length L = 8 + n
 *         8     entries in the file                4     chunk index (0, 1, ...)
 *         4     chunk size                         4     CRC32C of the n bytes
 *         4     chunk count                        n     the file's bytes [index x chunk size, + n): n is the
 *         4     CRC32C of the whole file                 chunk size but for the last chunk
 *         4     the sender's cache id
 * </pre>
 * A refusal is an error response (kind 17 MOVE_REFUSED, 1 cache not found, 11 ...) and nothing follows. A sender
 * that fails after its header closes the connection: the receiver sees a short stream.
 */
public final class PartitionFileWire {

    /** The chunk size a demander asks for unless told otherwise. */
    public static final int DEFAULT_CHUNK = 1 << 20;
    public static final int MIN_CHUNK = 4 << 10;
    public static final int MAX_CHUNK = 16 << 20;
    /** Bit 0 of the request's flags. */
    public static final int IN_SYNC_ONLY = 1;
    /** Bytes of a chunk frame before the chunk's bytes: length, index, CRC32C. */
    public static final int CHUNK_HEAD = 12;

    private PartitionFileWire() {
    }

    /** The answer's header. */
    public record Header(long length, long entries, int chunkSize, int chunks, int fileCrc, int cacheId) {

        /** The chunk count a file of this length has in chunks of this size (an empty file has none). */
        public static int chunksOf(long length, int chunkSize) {
            return (int) ((length + chunkSize - 1) / chunkSize);
        }

        /** Bytes of chunk {@code index}. */
        public int chunkLength(int index) {
            return (int) Math.min(chunkSize, length - (long) index * chunkSize);
        }

        public void write(ByteBuf out) {
            out.writeLong(length).writeLong(entries).writeInt(chunkSize).writeInt(chunks).writeInt(fileCrc)
                    .writeInt(cacheId);
        }

        /** @throws IOException if the header is inconsistent */
        public static Header read(ByteBuf in) throws IOException {
            if (in.readableBytes() != 32) {
                throw new IOException("malformed PARTITION_FILE header: " + in.readableBytes() + " bytes, not 32");
            }
            Header h = new Header(in.readLong(), in.readLong(), in.readInt(), in.readInt(), in.readInt(), in.readInt());
            if (h.length < 0 || h.entries < 0 || h.chunkSize < MIN_CHUNK || h.chunkSize > MAX_CHUNK
                    || h.chunks != chunksOf(h.length, h.chunkSize)) {
                throw new IOException("malformed PARTITION_FILE header: " + h);
            }
            return h;
        }
    }

    /** The request's body. */
    public record Request(String cache, int partition, int chunkSize, boolean inSyncOnly) {

        public void write(ByteBuf out) {
            Wire.writeString(out, cache);
            out.writeInt(partition).writeInt(chunkSize).writeByte(inSyncOnly ? IN_SYNC_ONLY : 0);
        }

        /** @throws Wire.MalformedFrameException if the body does not follow the layout */
        public static Request read(ByteBuf in) {
            String cache = Wire.readString(in, "cache");
            int partition = Wire.readInt(in, "partition");
            int chunk = Wire.readInt(in, "chunk size");
            int flags = Wire.readByte(in, "flags");
            if (chunk < MIN_CHUNK || chunk > MAX_CHUNK || (flags & ~IN_SYNC_ONLY) != 0 || in.isReadable()) {
                throw new Wire.MalformedFrameException("PARTITION_FILE: chunk size " + chunk + " (" + MIN_CHUNK + ".."
                        + MAX_CHUNK + "), flags " + flags + ", " + in.readableBytes() + " bytes after the body");
            }
            return new Request(cache, partition, chunk, (flags & IN_SYNC_ONLY) != 0);
        }
    }
}
