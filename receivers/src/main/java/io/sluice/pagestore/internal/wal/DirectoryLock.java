package io.sluice.pagestore.internal.wal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Holds the lock file of a persistence directory, so that one node at a time uses it: taken when the
 * log opens, released when it closes. The OS releases it too if the process dies.
 */
final class DirectoryLock implements AutoCloseable {

    private final Path directory;
    private final FileChannel channel;
    private final FileLock lock;

    /**
     * Creates the directory if it is missing and takes its lock file.
     *
     * @throws WalFailedException if the directory cannot be created or another process (or node) holds it
     */
    DirectoryLock(Path directory) {
        this.directory = directory;
        try {
            Files.createDirectories(directory);
            channel = FileChannel.open(directory.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock l;
            try {
                l = channel.tryLock();
            } catch (OverlappingFileLockException e) {
                l = null;
            }
            if (l == null) {
                channel.close();
                throw new WalFailedException("the persistence directory " + directory + " is in use by another node"
                        + " (its lock file is held); one node per directory", null);
            }
            lock = l;
        } catch (IOException e) {
            throw new WalFailedException("cannot open the persistence directory " + directory + ": " + e, e);
        }
    }

    /** Releases the lock (a failure to is logged by the caller's logger, not thrown). */
    @Override
    public void close() throws IOException {
        try {
            lock.release();
        } finally {
            channel.close();
        }
    }

    @Override
    public String toString() {
        return "the lock of " + directory;
    }
}
