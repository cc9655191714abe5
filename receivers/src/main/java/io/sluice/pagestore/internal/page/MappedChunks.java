package io.sluice.pagestore.internal.page;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Chunks mapped from files of a memory file system ({@code /dev/shm} on Linux), the way off-heap
 * stores get memory that the JVM's direct-memory limit does not count. Each chunk's file is written
 * full of zeros first — so that a full file system is an {@link IOException} now, not a fault on
 * some later page access — then mapped and deleted at once: nothing is left behind, even after
 * kill -9, and the memory goes back to the system when the chunk is unmapped ({@link #free}).
 *
 * <p>Every page of a new chunk is mapped at once ({@code MappedByteBuffer.load}): left to fault in one
 * page at a time, the faults landed in batch writes under the partition locks, and a load into fresh
 * memory ran at about half the rate of one into reused pages (docs/benchmarks-results.md, 17:05 entry).
 * {@code -Dsluice.pageMemory.noPrefault=true} turns it off, to compare.
 */
final class MappedChunks implements ChunkAllocator {

    static final Path DEFAULT_DIRECTORY = Path.of("/dev/shm");
    private static final int ZERO_BLOCK = 1 << 20;
    private static final boolean PREFAULT = !Boolean.getBoolean("sluice.pageMemory.noPrefault");

    private final Path directory;
    private ByteBuffer zeros; // guarded by this; taken at the first chunk

    MappedChunks(Path directory) {
        this.directory = directory;
    }

    /** Chunks in {@code /dev/shm}, or null if it is not a writable directory (or buffers cannot be unmapped). */
    static MappedChunks inDefaultDirectory() {
        if (!Files.isDirectory(DEFAULT_DIRECTORY) || !Files.isWritable(DEFAULT_DIRECTORY) || !Cleaners.available()) {
            return null;
        }
        return new MappedChunks(DEFAULT_DIRECTORY);
    }

    @Override
    public synchronized ByteBuffer allocate(int bytes) {
        Path file = null;
        if (zeros == null) {
            zeros = ByteBuffer.allocateDirect(ZERO_BLOCK);
        }
        try {
            file = Files.createTempFile(directory, "sluice-pages-", ".mem");
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                for (long at = 0; at < bytes; ) {
                    zeros.clear().limit((int) Math.min(ZERO_BLOCK, bytes - at));
                    at += channel.write(zeros, at);
                }
                java.nio.MappedByteBuffer chunk = channel.map(FileChannel.MapMode.READ_WRITE, 0, bytes);
                if (PREFAULT) {
                    chunk.load(); // map every page now, not one fault at a time under the partition locks
                }
                return chunk;
            }
        } catch (IOException e) {
            throw new ChunkRefusedException("no room for " + bytes + " bytes of page memory in " + directory
                    + " (" + e.getMessage() + "; its free space: " + freeSpace() + " bytes)", e);
        } finally {
            if (file != null) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException e) {
                    // the mapping keeps the memory; the name goes with the process at the latest
                }
            }
        }
    }

    private long freeSpace() {
        try {
            return Files.getFileStore(directory).getUsableSpace();
        } catch (IOException e) {
            return -1;
        }
    }

    @Override
    public void free(ByteBuffer chunk) {
        Cleaners.clean(chunk);
    }

    @Override
    public String describe() {
        return "files mapped from " + directory + " (not bounded by -XX:MaxDirectMemorySize)";
    }
}
