package io.sluice.node;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;

/**
 * Whether a node's data region survives a restart, and how: its directory and its write-ahead log's
 * {@link WalMode}. Immutable. The default, {@link #disabled()}, keeps everything in memory only
 * (nothing is written to disk, a restart starts empty). With persistence on, every write is logged
 * (one record per applied batch), checkpoints write changed partitions to files every
 * {@link #checkpointInterval()} and on a clean stop (then the log before them is deleted), and a node
 * started on the same directory loads the last checkpoint and replays the log after it, so it comes back
 * with every acknowledged write (per the mode's guarantee, see {@link WalMode}).
 *
 * <pre>{@code
 * NodeConfig.builder()
 *         .persistence(PersistenceConfig.at(Path.of("/var/lib/sluice")).withWalMode(WalMode.FSYNC))
 *         .build();
 * }</pre>
 * Each setting's bounds and documentation are declared once, in {@link NodeOptions} (its {@code PERSISTENCE} rows).
 */
public final class PersistenceConfig {

    /** The mode unless set otherwise. */
    public static final WalMode DEFAULT_WAL_MODE = WalMode.LOG_ONLY;
    /** How often {@link WalMode#BACKGROUND} writes and fsyncs the log unless set otherwise. */
    public static final Duration DEFAULT_FLUSH_INTERVAL = Duration.ofSeconds(1);
    /** Log segment size unless set otherwise: 64 MiB. */
    public static final long DEFAULT_SEGMENT_SIZE = 64L << 20;
    /** The smallest segment size: 1 MiB. */
    public static final long MIN_SEGMENT_SIZE = 1L << 20;
    /** How often a checkpoint starts unless set otherwise. */
    public static final Duration DEFAULT_CHECKPOINT_INTERVAL = Duration.ofMinutes(1);

    /** Heap for the keys recovery notes for write-behind stores unless set otherwise: 64 MiB. */
    public static final long DEFAULT_RECOVERED_KEYS_MEMORY = 64L << 20;

    private static final PersistenceConfig DISABLED = new PersistenceConfig(null, DEFAULT_WAL_MODE,
            DEFAULT_FLUSH_INTERVAL, DEFAULT_SEGMENT_SIZE, DEFAULT_CHECKPOINT_INTERVAL, false,
            DEFAULT_RECOVERED_KEYS_MEMORY);

    private final Path directory;
    private final WalMode walMode;
    private final Duration walFlushInterval;
    private final long walSegmentSize;
    private final Duration checkpointInterval;
    private final boolean checkOnRecovery;
    private final long recoveredKeysMemory;

    private PersistenceConfig(Path directory, WalMode walMode, Duration walFlushInterval, long walSegmentSize,
                              Duration checkpointInterval, boolean checkOnRecovery, long recoveredKeysMemory) {
        this.checkOnRecovery = checkOnRecovery;
        this.recoveredKeysMemory = recoveredKeysMemory;
        this.directory = directory;
        this.walMode = walMode;
        this.walFlushInterval = walFlushInterval;
        this.walSegmentSize = walSegmentSize;
        this.checkpointInterval = checkpointInterval;
    }

    /** In memory only: nothing is written to disk (the default). */
    public static PersistenceConfig disabled() {
        return DISABLED;
    }

    /**
     * Persistence on, in this directory (created at start if missing; one node per directory), with
     * mode {@link #DEFAULT_WAL_MODE}.
     *
     * @throws NullPointerException if directory is null
     */
    public static PersistenceConfig at(Path directory) {
        Objects.requireNonNull(directory, "directory");
        return new PersistenceConfig(directory, DEFAULT_WAL_MODE, DEFAULT_FLUSH_INTERVAL, DEFAULT_SEGMENT_SIZE,
                DEFAULT_CHECKPOINT_INTERVAL, false, DEFAULT_RECOVERED_KEYS_MEMORY);
    }

    /**
     * A copy with this WAL mode.
     *
     * @throws NullPointerException if mode is null
     * @throws IllegalStateException if persistence is disabled (a mode needs a directory)
     */
    public PersistenceConfig withWalMode(WalMode mode) {
        Objects.requireNonNull(mode, "mode");
        requireEnabled("walMode");
        return new PersistenceConfig(directory, mode, walFlushInterval, walSegmentSize,
                checkpointInterval, checkOnRecovery, recoveredKeysMemory);
    }

    /**
     * A copy with this flush interval ({@link WalMode#BACKGROUND} writes and fsyncs the log this often).
     *
     * @throws IllegalArgumentException unless 1 ms &lt;= interval &lt;= 1 hour
     */
    public PersistenceConfig withWalFlushInterval(Duration interval) {
        Objects.requireNonNull(interval, "interval");
        requireEnabled("walFlushInterval");
        NodeOptions.WAL_FLUSH_INTERVAL.check(interval);
        return new PersistenceConfig(directory, walMode, interval, walSegmentSize,
                checkpointInterval, checkOnRecovery, recoveredKeysMemory);
    }

    /**
     * A copy with this log segment size (a segment is closed and the next one started once it is this big).
     *
     * @throws IllegalArgumentException unless {@value #MIN_SEGMENT_SIZE} &lt;= bytes &lt;= 1 GiB
     */
    public PersistenceConfig withWalSegmentSize(long bytes) {
        requireEnabled("walSegmentSize");
        NodeOptions.WAL_SEGMENT_SIZE.check(bytes);
        return new PersistenceConfig(directory, walMode, walFlushInterval, bytes,
                checkpointInterval, checkOnRecovery, recoveredKeysMemory);
    }

    /**
     * A copy with this checkpoint interval: a checkpoint (every partition changed since the last one written
     * to its partition file, then the log before it deleted) starts this long after the previous one ended,
     * and once more on a clean stop. Shorter means less log to replay at a restart and more disk writes.
     *
     * @throws IllegalArgumentException unless 10 ms &lt;= interval &lt;= 24 hours
     */
    public PersistenceConfig withCheckpointInterval(Duration interval) {
        Objects.requireNonNull(interval, "interval");
        requireEnabled("checkpointInterval");
        NodeOptions.CHECKPOINT_INTERVAL.check(interval);
        return new PersistenceConfig(directory, walMode, walFlushInterval, walSegmentSize,
                interval, checkOnRecovery, recoveredKeysMemory);
    }

    /** Time from the end of one checkpoint to the start of the next. */
    public Duration checkpointInterval() {
        return checkpointInterval;
    }

    /**
     * A copy that checks the store's consistency once recovery has loaded the checkpoint and replayed the log,
     * before the node serves: every partition's B+ tree, every row it refers to, the free list (see
     * {@code DataRegion.checkConsistency}). A problem stops the start with an {@link IllegalStateException}
     * listing what is wrong, naming cache, partition and page. Costs about a second per million entries
     * (measured in {@code docs/durability.md}); off by default. Config file key {@code checkOnRecovery}.
     *
     * @throws IllegalStateException if persistence is disabled
     */
    public PersistenceConfig withCheckOnRecovery(boolean check) {
        requireEnabled("checkOnRecovery");
        return new PersistenceConfig(directory, walMode, walFlushInterval, walSegmentSize,
                checkpointInterval, check, recoveredKeysMemory);
    }

    /**
     * A copy with this much heap for the keys recovery notes for write-behind stores (the changes replayed
     * from the log, which a write-behind store may not have confirmed; queued again when the cache is in front
     * of its store). Past it the keys go to a file in the directory ({@code recovered-keys.spill}, deleted once
     * they are queued), so none is lost however long the log replayed. Config file key
     * {@code recoveredKeysMemory}.
     *
     * @throws IllegalArgumentException unless 0 &lt;= bytes &lt;= 1 GiB
     * @throws IllegalStateException if persistence is disabled
     */
    public PersistenceConfig withRecoveredKeysMemory(long bytes) {
        requireEnabled("recoveredKeysMemory");
        NodeOptions.RECOVERED_KEYS_MEMORY.check(bytes);
        return new PersistenceConfig(directory, walMode, walFlushInterval, walSegmentSize, checkpointInterval,
                checkOnRecovery, bytes);
    }

    /** Heap for the keys recovery notes for write-behind stores ({@link #withRecoveredKeysMemory}). */
    public long recoveredKeysMemory() {
        return recoveredKeysMemory;
    }

    /** Whether the start checks the store's consistency after recovery ({@link #withCheckOnRecovery}). */
    public boolean checkOnRecovery() {
        return checkOnRecovery;
    }

    /** Whether the region is persisted. */
    public boolean enabled() {
        return directory != null;
    }

    /** The directory of the log (null when disabled). */
    public Path directory() {
        return directory;
    }

    public WalMode walMode() {
        return walMode;
    }

    public Duration walFlushInterval() {
        return walFlushInterval;
    }

    public long walSegmentSize() {
        return walSegmentSize;
    }

    private void requireEnabled(String setting) {
        if (directory == null) {
            throw new IllegalStateException(setting + " needs persistence on: start from PersistenceConfig.at(directory)");
        }
    }

    @Override
    public String toString() {
        return directory == null ? "PersistenceConfig{disabled}" : "PersistenceConfig{directory=" + directory
                + ", walMode=" + walMode + ", walFlushInterval=" + walFlushInterval + ", walSegmentSize="
                + walSegmentSize + ", checkpointInterval=" + checkpointInterval + ", checkOnRecovery=" + checkOnRecovery
                + ", recoveredKeysMemory=" + recoveredKeysMemory + '}';
    }
}
