package io.sluice.pagestore.internal.page;

import java.nio.ByteBuffer;

/**
 * Where page memory comes from: chunks of bytes outside the Java heap, freed when the region that
 * holds them is closed (not when the garbage collector gets to them).
 *
 * <p>{@link #mapped()} is the default on systems with a memory file system: its chunks are not
 * direct buffers, so {@code -XX:MaxDirectMemorySize} (by default the heap size) does not bound the
 * data region; {@link #direct()} is the fallback. {@code -Dsluice.pageMemory=direct|mapped} chooses.
 */
public interface ChunkAllocator {

    /** The system property that chooses the allocator: {@code mapped} or {@code direct}. */
    String PROPERTY = "sluice.pageMemory";

    /**
     * A zero-filled chunk of exactly {@code bytes}, big-endian.
     *
     * @throws ChunkRefusedException if the system has no memory for it
     */
    ByteBuffer allocate(int bytes);

    /** Gives the chunk's memory back now; the chunk must not be used again. */
    void free(ByteBuffer chunk);

    /** What this allocator takes memory from, for logs and errors. */
    String describe();

    /** The allocator the system property names, else mapped memory where the system offers it, else direct. */
    static ChunkAllocator fromSystem() {
        String choice = System.getProperty(PROPERTY, "");
        switch (choice) {
            case "direct":
                return direct();
            case "mapped":
            case "":
                ChunkAllocator mapped = MappedChunks.inDefaultDirectory();
                if (mapped != null) {
                    return mapped;
                }
                if (choice.equals("mapped")) {
                    throw new IllegalStateException("-D" + PROPERTY + "=mapped, but there is no writable memory file"
                            + " system (" + MappedChunks.DEFAULT_DIRECTORY + ")");
                }
                return direct();
            default:
                throw new IllegalArgumentException("-D" + PROPERTY + "=" + choice + ": expected 'mapped' or 'direct'");
        }
    }

    /** Whether regions made now take direct buffers (and so count against {@code -XX:MaxDirectMemorySize}). */
    static boolean regionsUseDirectMemory() {
        String choice = System.getProperty(PROPERTY, "");
        return choice.equals("direct") || (choice.isEmpty() && MappedChunks.inDefaultDirectory() == null);
    }

    /** Direct buffers: bounded by {@code -XX:MaxDirectMemorySize}. */
    static ChunkAllocator direct() {
        return DirectChunks.INSTANCE;
    }

    /** Memory-file-system files mapped and unlinked at once, or null if the system has none. */
    static ChunkAllocator mapped() {
        return MappedChunks.inDefaultDirectory();
    }

    /** The system refused memory for a chunk. */
    final class ChunkRefusedException extends RuntimeException {
        public ChunkRefusedException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
