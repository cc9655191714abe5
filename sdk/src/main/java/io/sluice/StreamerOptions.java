package io.sluice;

import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link DataStreamer} buffers and sends. Immutable; made with {@link #builder()} and
 * validated when built, so a streamer never runs with options out of range.
 *
 * <pre>{@code
 * StreamerOptions options = StreamerOptions.builder()
 *         .perPartitionBufferSize(1024)
 *         .autoFlushInterval(Duration.ofMillis(200))
 *         .receiver(Receivers.batched())
 *         .build();
 * }</pre>
 */
public final class StreamerOptions {

    /** Default per-partition buffer size in entries. */
    public static final int DEFAULT_PER_PARTITION_BUFFER_SIZE = 512;
    /** Default per-partition buffer size in bytes: 256 KiB. */
    public static final int DEFAULT_PER_PARTITION_BUFFER_BYTES = 256 * 1024;
    /** Default auto-flush interval: one second. */
    public static final Duration DEFAULT_AUTO_FLUSH_INTERVAL = Duration.ofSeconds(1);
    /** Default in-flight requests per node. */
    public static final int DEFAULT_PER_NODE_PARALLEL_OPERATIONS = 8;
    /**
     * Default total buffered bytes: 256 MiB. Enough for every partition buffer of a 1,024-partition
     * cache to fill by count (512 entries of ~150 bytes each is ~75 MiB) with batches in flight besides:
     * at 64 MiB, half-full buffers held all the memory and loading stalled while the node idled
     * (1.0 M vs 1.4-1.7 M entries/s in the same run, see docs/benchmarks.md).
     */
    public static final long DEFAULT_BUFFER_MEMORY = 256L * 1024 * 1024;
    /** Default longest wait of {@code addData} for buffer memory: one minute. */
    public static final Duration DEFAULT_MAX_BLOCK = Duration.ofMinutes(1);
    /** Default bound of {@code flush}/{@code close}: five minutes. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(5);
    /** Default and largest size of one encoded entry (key and value): 64 MiB. */
    public static final int DEFAULT_MAX_ENTRY_SIZE = 64 * 1024 * 1024;

    /** The defaults. */
    public static final StreamerOptions DEFAULT = builder().build();

    private final int perPartitionBufferSize;
    private final int perPartitionBufferBytes;
    private final Duration autoFlushInterval;
    private final int perNodeParallelOperations;
    private final long bufferMemory;
    private final Duration maxBlock;
    private final boolean allowOverwrite;
    private final ReceiverRef receiver;
    private final boolean skipStore;
    private final Duration timeout;
    private final int maxEntrySize;

    private StreamerOptions(Builder b) {
        this.perPartitionBufferSize = b.perPartitionBufferSize;
        this.perPartitionBufferBytes = b.perPartitionBufferBytes;
        this.autoFlushInterval = b.autoFlushInterval;
        this.perNodeParallelOperations = b.perNodeParallelOperations;
        this.bufferMemory = b.bufferMemory;
        this.maxBlock = b.maxBlock;
        this.allowOverwrite = b.allowOverwrite;
        this.receiver = b.receiver;
        this.skipStore = b.skipStore;
        this.timeout = b.timeout;
        this.maxEntrySize = b.maxEntrySize;
    }

    /** A builder holding the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding these options. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.perPartitionBufferSize = perPartitionBufferSize;
        b.perPartitionBufferBytes = perPartitionBufferBytes;
        b.autoFlushInterval = autoFlushInterval;
        b.perNodeParallelOperations = perNodeParallelOperations;
        b.bufferMemory = bufferMemory;
        b.maxBlock = maxBlock;
        b.allowOverwrite = allowOverwrite;
        b.receiver = receiver;
        b.skipStore = skipStore;
        b.timeout = timeout;
        b.maxEntrySize = maxEntrySize;
        b.maxEntrySizeSet = maxEntrySize != DEFAULT_MAX_ENTRY_SIZE;
        return b;
    }

    /** Entries a partition buffer holds before it is sent. */
    public int perPartitionBufferSize() {
        return perPartitionBufferSize;
    }

    /** Encoded bytes a partition buffer holds before it is sent. */
    public int perPartitionBufferBytes() {
        return perPartitionBufferBytes;
    }

    /** How long an entry may wait in a buffer before it is sent; zero means never by time. */
    public Duration autoFlushInterval() {
        return autoFlushInterval;
    }

    /** Requests in flight to one node at most. */
    public int perNodeParallelOperations() {
        return perNodeParallelOperations;
    }

    /** Encoded bytes buffered or in flight at most; {@code addData} blocks beyond it. */
    public long bufferMemory() {
        return bufferMemory;
    }

    /** How long {@code addData} blocks for buffer memory before it throws. */
    public Duration maxBlock() {
        return maxBlock;
    }

    /** Whether existing keys are overwritten; chooses the default receiver. */
    public boolean allowOverwrite() {
        return allowOverwrite;
    }

    /**
     * The receiver applying batches on the node: the one set, else {@link Receivers#individual()}
     * when {@link #allowOverwrite()} is true and {@link Receivers#isolated()} when it is false.
     */
    public ReceiverRef receiver() {
        if (receiver != null) {
            return receiver;
        }
        return allowOverwrite ? Receivers.individual() : Receivers.isolated();
    }

    /** Whether the node skips its write-through store (reserved; no store is attached yet). */
    public boolean skipStore() {
        return skipStore;
    }

    /** Bound of {@code flush} and {@code close}. */
    public Duration timeout() {
        return timeout;
    }

    /** Largest encoded entry (key and value) accepted by {@code addData}. */
    public int maxEntrySize() {
        return maxEntrySize;
    }

    @Override
    public String toString() {
        return "StreamerOptions{perPartitionBufferSize=" + perPartitionBufferSize
                + ", perPartitionBufferBytes=" + perPartitionBufferBytes
                + ", autoFlushInterval=" + autoFlushInterval
                + ", perNodeParallelOperations=" + perNodeParallelOperations
                + ", bufferMemory=" + bufferMemory
                + ", maxBlock=" + maxBlock
                + ", allowOverwrite=" + allowOverwrite
                + ", receiver=" + receiver().name()
                + ", skipStore=" + skipStore
                + ", timeout=" + timeout
                + ", maxEntrySize=" + maxEntrySize + '}';
    }

    /** Builds {@link StreamerOptions}; every setter checks its argument, {@link #build()} checks them together. */
    public static final class Builder {
        private int perPartitionBufferSize = DEFAULT_PER_PARTITION_BUFFER_SIZE;
        private int perPartitionBufferBytes = DEFAULT_PER_PARTITION_BUFFER_BYTES;
        private Duration autoFlushInterval = DEFAULT_AUTO_FLUSH_INTERVAL;
        private int perNodeParallelOperations = DEFAULT_PER_NODE_PARALLEL_OPERATIONS;
        private long bufferMemory = DEFAULT_BUFFER_MEMORY;
        private Duration maxBlock = DEFAULT_MAX_BLOCK;
        private boolean allowOverwrite;
        private ReceiverRef receiver;
        private boolean skipStore;
        private Duration timeout = DEFAULT_TIMEOUT;
        private int maxEntrySize = DEFAULT_MAX_ENTRY_SIZE;
        private boolean maxEntrySizeSet;

        private Builder() {
        }

        /** @param entries 1 to 1,000,000 */
        public Builder perPartitionBufferSize(int entries) {
            this.perPartitionBufferSize = requireRange("perPartitionBufferSize", entries, 1, 1_000_000);
            return this;
        }

        /** @param bytes 64 bytes to 256 MiB */
        public Builder perPartitionBufferBytes(int bytes) {
            this.perPartitionBufferBytes = requireRange("perPartitionBufferBytes", bytes, 64, 256 * 1024 * 1024);
            return this;
        }

        /** @param interval zero (off) or positive */
        public Builder autoFlushInterval(Duration interval) {
            Objects.requireNonNull(interval, "autoFlushInterval");
            if (interval.isNegative()) {
                throw new IllegalArgumentException("autoFlushInterval is " + interval
                        + "; it must be zero (off) or positive (StreamerOptions.autoFlushInterval)");
            }
            this.autoFlushInterval = interval;
            return this;
        }

        /** @param requests 1 to 1024 */
        public Builder perNodeParallelOperations(int requests) {
            this.perNodeParallelOperations = requireRange("perNodeParallelOperations", requests, 1, 1024);
            return this;
        }

        /** @param bytes at least 1 KiB */
        public Builder bufferMemory(long bytes) {
            if (bytes < 1024) {
                throw new IllegalArgumentException("bufferMemory is " + bytes
                        + " bytes; it must be at least 1024 (StreamerOptions.bufferMemory)");
            }
            this.bufferMemory = bytes;
            return this;
        }

        /** @param maxBlock zero (fail at once) or positive */
        public Builder maxBlock(Duration maxBlock) {
            this.maxBlock = requireNotNegative("maxBlock", maxBlock);
            return this;
        }

        public Builder allowOverwrite(boolean allowOverwrite) {
            this.allowOverwrite = allowOverwrite;
            return this;
        }

        /** @param receiver a receiver from {@link Receivers}; null restores the default */
        public Builder receiver(ReceiverRef receiver) {
            this.receiver = receiver;
            return this;
        }

        public Builder skipStore(boolean skipStore) {
            this.skipStore = skipStore;
            return this;
        }

        /** @param timeout positive */
        public Builder timeout(Duration timeout) {
            requireNotNegative("timeout", timeout);
            if (timeout.isZero()) {
                throw new IllegalArgumentException("timeout must be positive (StreamerOptions.timeout)");
            }
            this.timeout = timeout;
            return this;
        }

        /** @param bytes 16 bytes to {@value #DEFAULT_MAX_ENTRY_SIZE} */
        public Builder maxEntrySize(int bytes) {
            this.maxEntrySize = requireRange("maxEntrySize", bytes, 16, DEFAULT_MAX_ENTRY_SIZE);
            this.maxEntrySizeSet = true;
            return this;
        }

        /**
         * Builds the options.
         *
         * <p>When maxEntrySize was not set and bufferMemory is smaller than its default, the limit
         * becomes bufferMemory.
         *
         * @throws IllegalArgumentException if bufferMemory is smaller than perPartitionBufferBytes or
         *         than a maxEntrySize that was set (an entry or a full buffer could never be accepted)
         */
        public StreamerOptions build() {
            if (bufferMemory < perPartitionBufferBytes) {
                throw new IllegalArgumentException("bufferMemory (" + bufferMemory
                        + " bytes) is smaller than perPartitionBufferBytes (" + perPartitionBufferBytes
                        + " bytes); raise StreamerOptions.bufferMemory or lower perPartitionBufferBytes");
            }
            if (bufferMemory < maxEntrySize) {
                if (maxEntrySizeSet) {
                    throw new IllegalArgumentException("bufferMemory (" + bufferMemory
                            + " bytes) is smaller than maxEntrySize (" + maxEntrySize
                            + " bytes); raise StreamerOptions.bufferMemory or lower maxEntrySize");
                }
                // The default entry limit follows a small buffer memory down: a larger entry could never be buffered.
                maxEntrySize = (int) bufferMemory;
            }
            return new StreamerOptions(this);
        }

        private static int requireRange(String name, int value, int min, int max) {
            if (value < min || value > max) {
                throw new IllegalArgumentException(name + " is " + value + "; it must be between "
                        + min + " and " + max + " (StreamerOptions." + name + ")");
            }
            return value;
        }

        private static Duration requireNotNegative(String name, Duration value) {
            Objects.requireNonNull(value, name);
            if (value.isNegative()) {
                throw new IllegalArgumentException(name + " is " + value
                        + "; it must not be negative (StreamerOptions." + name + ")");
            }
            return value;
        }
    }
}
