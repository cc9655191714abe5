package io.sluice.pagestore.internal.wal;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * What the write-ahead log is told by whoever opens it: its directory, its durability, how often it
 * forces in {@link Durability#BACKGROUND}, and the size at which it starts a new segment. The log's
 * own type, so that it sees nothing of the node: the node maps its {@code PersistenceConfig} (where
 * these options are declared, with their defaults and bounds) onto it.
 *
 * @param directory     the persistence directory (the segments and the lock file live in it)
 * @param durability    when a write counts as done relative to its record
 * @param flushInterval in {@link Durability#BACKGROUND}, how often the log is written and fsynced
 * @param segmentSize   bytes after which the next write starts a new segment
 */
public record WalSettings(Path directory, Durability durability, Duration flushInterval, long segmentSize) {

    /**
     * When a write counts as done relative to its log record (the node's {@code WalMode}, one to one; what each
     * survives: {@code docs/durability.md}).
     */
    public enum Durability {
        /** Once its record is written and fsynced; concurrent writes share one fsync. */
        FSYNC,
        /** Once its record was handed to the OS (written). */
        LOG_ONLY,
        /** At once; the log is written and fsynced every flush interval. */
        BACKGROUND,
        /** At once; the log is written as its buffer fills and never fsynced except at a clean stop. */
        NONE
    }

    /** @throws NullPointerException if a part is missing */
    public WalSettings {
        Objects.requireNonNull(directory, "directory");
        Objects.requireNonNull(durability, "durability");
        Objects.requireNonNull(flushInterval, "flushInterval");
    }
}
