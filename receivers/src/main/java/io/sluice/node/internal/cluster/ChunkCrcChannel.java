package io.sluice.node.internal.cluster;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * Writes through to a channel while computing the CRC32C of every chunk of {@code chunkSize} bytes and of the whole
 * stream, as the bytes go by (a partition file's checks, computed while it is written, not by reading it again).
 * One thread.
 */
final class ChunkCrcChannel implements WritableByteChannel {

    private final WritableByteChannel out;
    private final int chunkSize;
    private final CRC32C whole = new CRC32C();
    private final CRC32C chunk = new CRC32C();
    private int[] crcs = new int[16];
    private int chunks;
    private int inChunk;
    private long length;

    ChunkCrcChannel(WritableByteChannel out, int chunkSize) {
        this.out = out;
        this.chunkSize = chunkSize;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        int n = src.remaining();
        ByteBuffer view = src.duplicate();
        while (view.hasRemaining()) {
            int take = Math.min(view.remaining(), chunkSize - inChunk);
            ByteBuffer part = view.slice(view.position(), take);
            chunk.update(part.duplicate());
            whole.update(part);
            view.position(view.position() + take);
            inChunk += take;
            if (inChunk == chunkSize) {
                endChunk();
            }
        }
        while (src.hasRemaining()) {
            out.write(src);
        }
        length += n;
        return n;
    }

    private void endChunk() {
        if (chunks == crcs.length) {
            crcs = Arrays.copyOf(crcs, chunks * 2);
        }
        crcs[chunks++] = (int) chunk.getValue();
        chunk.reset();
        inChunk = 0;
    }

    /** The CRC32C of each chunk, the last one partial; call once the stream is written. */
    int[] chunkCrcs() {
        if (inChunk > 0) {
            endChunk();
        }
        return Arrays.copyOf(crcs, chunks);
    }

    int fileCrc() {
        return (int) whole.getValue();
    }

    long length() {
        return length;
    }

    @Override
    public boolean isOpen() {
        return out.isOpen();
    }

    @Override
    public void close() throws IOException {
        out.close();
    }
}
