package io.sluice.pagestore.internal.wal;

import io.sluice.pagestore.internal.wal.WalSettings.Durability;

import java.nio.file.Path;

/**
 * How far the log got: the positions the writer thread has written and synced, its sticky failure, and
 * whether it has ended. Only the writer moves them (and recovery, before the writer starts); any thread
 * reads them without a lock, to answer whether a write at a position counts as done in the log's mode.
 */
final class WalProgress {

    private final Durability mode;
    private final Path directory;
    private volatile long written;
    private volatile long synced;
    private volatile WalFailedException failure;
    /** The writer thread has ended (closed or failed): nobody will complete a new waiter. */
    private volatile boolean writerEnded;

    WalProgress(Durability mode, Path directory) {
        this.mode = mode;
        this.directory = directory;
    }

    Durability mode() {
        return mode;
    }

    Path directory() {
        return directory;
    }

    /** Whether a write at or before this position counts as done in this mode. */
    boolean acknowledged(long position) {
        return switch (mode) {
            case FSYNC -> synced >= position;
            case LOG_ONLY -> written >= position;
            case BACKGROUND, NONE -> true;
        };
    }

    long written() {
        return written;
    }

    long synced() {
        return synced;
    }

    /** Recovery: the log ends here, all of it on disk. */
    void startAt(long position) {
        written = position;
        synced = position;
    }

    void written(long position) {
        written = position;
    }

    void synced(long position) {
        synced = position;
    }

    /** The failure that stopped the writer, or null. */
    WalFailedException failure() {
        return failure;
    }

    void fail(WalFailedException e) {
        failure = e;
    }

    boolean writerEnded() {
        return writerEnded;
    }

    void writerEnded(boolean ended) {
        writerEnded = ended;
    }

    /** @throws WalFailedException if the log failed (its cause) */
    void checkWritable() {
        WalFailedException f = failure;
        if (f != null) {
            throw new WalFailedException("the write-ahead log in " + directory + " failed earlier; no write is accepted"
                    + " until the node restarts: " + f.getMessage(), f.getCause());
        }
    }

    /** The failure a write that the closed log never wrote gets. */
    WalFailedException closed() {
        return new WalFailedException("the write-ahead log in " + directory + " is closed", null);
    }
}
