package io.sluice;

import java.time.Duration;
import java.util.Objects;

/**
 * How a cache uses its {@link CacheStore}: the store's name (registered on the node), whether a
 * miss reads through, and how writes reach the store. Immutable.
 *
 * <pre>{@code
 * CacheConfig.named("orders").withStore(CacheStoreConfig.writeThrough("pg").withReadThrough(true))
 * CacheConfig.named("orders").withStore(CacheStoreConfig.writeBehind("pg")
 *         .withFlushSize(10_240).withFlushInterval(Duration.ofSeconds(1)).withQueueBound(100_000))
 * }</pre>
 *
 * <h2>What each mode guarantees</h2>
 * <ul>
 *   <li>{@link WriteMode#WRITE_THROUGH}: the store is written <b>first</b>, then memory. A streamed
 *   batch, {@code put}, {@code putAll}, {@code remove} or {@code removeAll} that completes normally is
 *   in the store; one that fails (its cause is the store's error) left nothing in memory, though the
 *   store may hold the chunks ({@link CacheStore#maxBatchSize()}) written before the failing one:
 *   retrying the batch rewrites them (upserts are idempotent). Acknowledged means stored.</li>
 *   <li>{@link WriteMode#WRITE_BEHIND}: memory first; the change joins a bounded queue per partition,
 *   coalesced by key (the last change of a key wins), flushed by size and by time in
 *   {@code writeBatch}/{@code deleteBatch} calls. Writers block while the queue is full. A key's
 *   changes reach the store in the order they were made. A failed flush is retried, then reported
 *   (an error log naming the keys, and a counter) — never dropped silently. A clean node close drains
 *   the queue; a crash loses what was queued.</li>
 *   <li>{@link WriteMode#NONE}: the store is only read (with read-through).</li>
 * </ul>
 * A streamer with {@code StreamerOptions.skipStore(true)} writes memory only, in every mode.
 */
public final class CacheStoreConfig {

    /** How writes reach the store. */
    public enum WriteMode {
        /** The store is never written. */
        NONE,
        /** Store first, then memory; an operation completes once both are done. */
        WRITE_THROUGH,
        /** Memory first; the store later, in coalesced batches. */
        WRITE_BEHIND
    }

    /** Write-behind flushes once this many keys are queued, unless set otherwise. */
    public static final int DEFAULT_FLUSH_SIZE = 10_240;
    /** Write-behind flushes what is queued at least this often, unless set otherwise. */
    public static final Duration DEFAULT_FLUSH_INTERVAL = Duration.ofSeconds(5);
    /** Write-behind blocks writers once this many keys are queued or being flushed, unless set otherwise. */
    public static final int DEFAULT_QUEUE_BOUND = 100_000;
    /** Write-behind tries a failing flush this many times in all, unless set otherwise. */
    public static final int DEFAULT_FLUSH_ATTEMPTS = 3;
    /** Write-behind writes a flush's store calls on this many threads at once, unless set otherwise. */
    public static final int DEFAULT_FLUSH_THREADS = 1;

    private final String storeName;
    private final boolean readThrough;
    private final WriteMode writeMode;
    private final int flushSize;
    private final Duration flushInterval;
    private final int queueBound;
    private final int flushAttempts;
    private final int flushThreads;

    private CacheStoreConfig(String storeName, boolean readThrough, WriteMode writeMode, int flushSize,
                             Duration flushInterval, int queueBound, int flushAttempts) {
        this(storeName, readThrough, writeMode, flushSize, flushInterval, queueBound, flushAttempts,
                DEFAULT_FLUSH_THREADS);
    }

    private CacheStoreConfig(String storeName, boolean readThrough, WriteMode writeMode, int flushSize,
                             Duration flushInterval, int queueBound, int flushAttempts, int flushThreads) {
        this.storeName = storeName;
        this.readThrough = readThrough;
        this.writeMode = writeMode;
        this.flushSize = flushSize;
        this.flushInterval = flushInterval;
        this.queueBound = queueBound;
        this.flushAttempts = flushAttempts;
        this.flushThreads = flushThreads;
    }

    /** Write-through to the named store, no read-through. @throws IllegalArgumentException if the name is blank */
    public static CacheStoreConfig writeThrough(String storeName) {
        return new CacheStoreConfig(checkName(storeName), false, WriteMode.WRITE_THROUGH, DEFAULT_FLUSH_SIZE,
                DEFAULT_FLUSH_INTERVAL, DEFAULT_QUEUE_BOUND, DEFAULT_FLUSH_ATTEMPTS);
    }

    /** Write-behind to the named store with the default flush settings, no read-through. */
    public static CacheStoreConfig writeBehind(String storeName) {
        return writeThrough(storeName).withWriteMode(WriteMode.WRITE_BEHIND);
    }

    /** Read-through from the named store, which is never written. */
    public static CacheStoreConfig readThrough(String storeName) {
        return writeThrough(storeName).withWriteMode(WriteMode.NONE).withReadThrough(true);
    }

    private static String checkName(String storeName) {
        Objects.requireNonNull(storeName, "storeName");
        if (storeName.isBlank()) {
            throw new IllegalArgumentException("store name must not be blank (CacheStoreConfig.storeName)");
        }
        return storeName;
    }

    /** A copy with that write mode. */
    public CacheStoreConfig withWriteMode(WriteMode mode) {
        return new CacheStoreConfig(storeName, readThrough, Objects.requireNonNull(mode, "mode"), flushSize,
                flushInterval, queueBound, flushAttempts, flushThreads);
    }

    /** A copy that loads a missing key from the store on {@code get}/{@code getAll} (and keeps it in memory). */
    public CacheStoreConfig withReadThrough(boolean readThrough) {
        return new CacheStoreConfig(storeName, readThrough, writeMode, flushSize, flushInterval, queueBound,
                flushAttempts, flushThreads);
    }

    /** @param keys write-behind flushes once this many keys are queued; at least 1 */
    public CacheStoreConfig withFlushSize(int keys) {
        if (keys < 1) {
            throw new IllegalArgumentException("flushSize is " + keys + "; it must be at least 1 (CacheStoreConfig.flushSize)");
        }
        return new CacheStoreConfig(storeName, readThrough, writeMode, keys, flushInterval, queueBound, flushAttempts,
                flushThreads);
    }

    /** @param interval write-behind flushes what is queued at least this often; positive */
    public CacheStoreConfig withFlushInterval(Duration interval) {
        Objects.requireNonNull(interval, "interval");
        if (interval.isNegative() || interval.isZero()) {
            throw new IllegalArgumentException("flushInterval is " + interval
                    + "; it must be positive (CacheStoreConfig.flushInterval)");
        }
        return new CacheStoreConfig(storeName, readThrough, writeMode, flushSize, interval, queueBound, flushAttempts,
                flushThreads);
    }

    /** @param keys write-behind blocks writers once this many keys are queued or in flight; at least 1 */
    public CacheStoreConfig withQueueBound(int keys) {
        if (keys < 1) {
            throw new IllegalArgumentException("queueBound is " + keys + "; it must be at least 1 (CacheStoreConfig.queueBound)");
        }
        return new CacheStoreConfig(storeName, readThrough, writeMode, flushSize, flushInterval, keys, flushAttempts,
                flushThreads);
    }

    /** @param attempts write-behind tries a failing flush this many times in all before reporting it; at least 1 */
    public CacheStoreConfig withFlushAttempts(int attempts) {
        if (attempts < 1) {
            throw new IllegalArgumentException("flushAttempts is " + attempts
                    + "; it must be at least 1 (CacheStoreConfig.flushAttempts)");
        }
        return new CacheStoreConfig(storeName, readThrough, writeMode, flushSize, flushInterval, queueBound, attempts,
                flushThreads);
    }

    /**
     * @param threads write-behind writes the store calls of one flush (of {@code maxBatchSize} each) on
     *                this many threads at once; 1 to 64. A key is in one call of a flush and the next
     *                flush starts when all calls are done, so each key's order is kept.
     */
    public CacheStoreConfig withFlushThreads(int threads) {
        if (threads < 1 || threads > 64) {
            throw new IllegalArgumentException("flushThreads is " + threads
                    + "; it must be between 1 and 64 (CacheStoreConfig.flushThreads)");
        }
        return new CacheStoreConfig(storeName, readThrough, writeMode, flushSize, flushInterval, queueBound,
                flushAttempts, threads);
    }

    public int flushThreads() {
        return flushThreads;
    }

    public String storeName() {
        return storeName;
    }

    public boolean readThrough() {
        return readThrough;
    }

    public WriteMode writeMode() {
        return writeMode;
    }

    public int flushSize() {
        return flushSize;
    }

    public Duration flushInterval() {
        return flushInterval;
    }

    public int queueBound() {
        return queueBound;
    }

    public int flushAttempts() {
        return flushAttempts;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CacheStoreConfig c && c.storeName.equals(storeName) && c.readThrough == readThrough
                && c.writeMode == writeMode && c.flushSize == flushSize && c.flushInterval.equals(flushInterval)
                && c.queueBound == queueBound && c.flushAttempts == flushAttempts && c.flushThreads == flushThreads;
    }

    @Override
    public int hashCode() {
        return Objects.hash(storeName, readThrough, writeMode, flushSize, flushInterval, queueBound, flushAttempts,
                flushThreads);
    }

    @Override
    public String toString() {
        return "CacheStoreConfig{store=" + storeName + ", readThrough=" + readThrough + ", writeMode=" + writeMode
                + (writeMode == WriteMode.WRITE_BEHIND ? ", flushSize=" + flushSize + ", flushInterval=" + flushInterval
                + ", queueBound=" + queueBound + ", flushAttempts=" + flushAttempts + ", flushThreads=" + flushThreads : "")
                + '}';
    }
}
