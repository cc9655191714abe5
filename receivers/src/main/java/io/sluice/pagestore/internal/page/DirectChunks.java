package io.sluice.pagestore.internal.page;

import java.nio.ByteBuffer;

/** Chunks as direct buffers, freed at once through their cleaner. Bounded by {@code -XX:MaxDirectMemorySize}. */
final class DirectChunks implements ChunkAllocator {

    static final DirectChunks INSTANCE = new DirectChunks();

    private DirectChunks() {
    }

    @Override
    public ByteBuffer allocate(int bytes) {
        try {
            return ByteBuffer.allocateDirect(bytes);
        } catch (OutOfMemoryError e) {
            throw new ChunkRefusedException("the JVM refused " + bytes + " bytes of direct memory ("
                    + "-XX:MaxDirectMemorySize, by default the heap size)", e);
        }
    }

    @Override
    public void free(ByteBuffer chunk) {
        Cleaners.clean(chunk);
    }

    @Override
    public String describe() {
        return "direct buffers (bounded by -XX:MaxDirectMemorySize)";
    }
}
