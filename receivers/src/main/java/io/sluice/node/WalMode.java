package io.sluice.node;

/**
 * When a write to a persistent data region counts as done — when a streamed batch's future, a
 * {@code put} or a {@code putAll} returns — relative to its write-ahead log record. Every mode writes
 * the same log; they differ only in how long a caller waits and therefore in what a crash can take
 * away. See {@code docs/durability.md}.
 *
 * <table>
 * <caption>What an acknowledged write survives</caption>
 * <tr><th>mode</th><th>acknowledged after</th><th>process crash (kill -9)</th><th>OS crash, power loss</th></tr>
 * <tr><td>{@link #FSYNC}</td><td>the record is written and fsynced</td><td>yes</td><td>yes</td></tr>
 * <tr><td>{@link #LOG_ONLY}</td><td>the record is written (to the OS, or with direct I/O to the device)</td><td>yes</td><td>no</td></tr>
 * <tr><td>{@link #BACKGROUND}</td><td>the record is in the node's log buffer; written and fsynced every flush interval</td><td>all but the last interval</td><td>all but the last interval</td></tr>
 * <tr><td>{@link #NONE}</td><td>the write is in memory; the log is written when its buffer fills, never fsynced</td><td>what happened to reach the OS</td><td>no guarantee</td></tr>
 * </table>
 *
 * <p>Whatever the mode, a clean stop ({@link SluiceNode#close()}, SIGTERM of the node process)
 * writes and fsyncs the whole log, so nothing is lost by stopping a node.
 */
public enum WalMode {
    /** Acknowledged once its record is on disk (written and fsynced); concurrent writes share one fsync. */
    FSYNC,
    /**
     * Acknowledged once its record was written (to the OS, or with direct I/O to the device), not fsynced; survives a
     * crash of the process, not of the OS.
     */
    LOG_ONLY,
    /** Acknowledged at once; the log is written and fsynced every {@link PersistenceConfig#walFlushInterval()}. */
    BACKGROUND,
    /** Acknowledged at once; the log is written as its buffer fills and never fsynced except at a clean stop. */
    NONE
}
