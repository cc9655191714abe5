package io.sluice;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * How a {@link DataStreamer} buffers and sends. Immutable; made with {@link #builder()} and
 * validated when built, so a streamer never runs with options out of range. Two options are equal
 * when every option has the same value.
 *
 * <pre>{@code
 * StreamerOptions options = StreamerOptions.builder()
 *         .perPartitionBufferSize(1024)
 *         .autoFlushInterval(Duration.ofMillis(200))
 *         .receiver(Receivers.batched())
 *         .build();
 * }</pre>
 *
 * <p>Each option is declared once, in the table below: its name, its default and its bounds. An
 * option the builder was not given takes its default when built; two defaults follow other options
 * (the receiver follows {@code allowOverwrite}, the entry limit follows a small {@code bufferMemory}).
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
     * (1.0 M vs 1.4-1.7 M entries/s in the same run, see docs/benchmarks-results.md). The buffers live
     * on the heap, so in a JVM whose maximum heap is under 768 MiB the default is a third of it (at
     * least 16 MiB): a node with {@code -Xmx256m} and a default streamer loads 10 million entries
     * instead of running out of heap with 288 MB of batches queued.
     */
    public static final long DEFAULT_BUFFER_MEMORY = Math.min(256L << 20,
            Math.max(16L << 20, Runtime.getRuntime().maxMemory() / 3));
    /** Default longest wait of {@code addData} for buffer memory: one minute. */
    public static final Duration DEFAULT_MAX_BLOCK = Duration.ofMinutes(1);
    /** Default bound of {@code flush}/{@code close}: five minutes. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(5);
    /** Default and largest size of one encoded entry (key and value): 64 MiB. */
    public static final int DEFAULT_MAX_ENTRY_SIZE = 64 * 1024 * 1024;

    // ---- the options: one row each (name, default, bounds); the order is toString's ----

    /** Marks an option the builder was not given (declared before the rows: DEFAULT builds with it). */
    private static final Object UNSET = new Object() {
        @Override
        public String toString() {
            return "unset";
        }
    };

    private static final List<Option<?>> OPTIONS = new ArrayList<>();

    private static final Option<Integer> PER_PARTITION_BUFFER_SIZE =
            Option.ofInt("perPartitionBufferSize", DEFAULT_PER_PARTITION_BUFFER_SIZE, 1, 1_000_000);
    private static final Option<Integer> PER_PARTITION_BUFFER_BYTES =
            Option.ofInt("perPartitionBufferBytes", DEFAULT_PER_PARTITION_BUFFER_BYTES, 64, 256 * 1024 * 1024);
    private static final Option<Duration> AUTO_FLUSH_INTERVAL =
            Option.ofDuration("autoFlushInterval", DEFAULT_AUTO_FLUSH_INTERVAL, true, "zero (off) or positive");
    private static final Option<Integer> PER_NODE_PARALLEL_OPERATIONS =
            Option.ofInt("perNodeParallelOperations", DEFAULT_PER_NODE_PARALLEL_OPERATIONS, 1, 1024);
    private static final Option<Long> BUFFER_MEMORY =
            Option.ofLong("bufferMemory", DEFAULT_BUFFER_MEMORY, 1024, Long.MAX_VALUE);
    private static final Option<Duration> MAX_BLOCK =
            Option.ofDuration("maxBlock", DEFAULT_MAX_BLOCK, true, "zero (fail at once) or positive");
    private static final Option<Boolean> ALLOW_OVERWRITE = Option.of("allowOverwrite", b -> false, v -> { });
    /** Default: {@link Receivers#individual()} if {@code allowOverwrite}, else {@link Receivers#isolated()}. */
    private static final Option<ReceiverRef> RECEIVER = Option.of("receiver",
            b -> b.resolved(ALLOW_OVERWRITE) ? Receivers.individual() : Receivers.isolated(),
            v -> Objects.requireNonNull(v, "receiver"));
    private static final Option<Boolean> SKIP_STORE = Option.of("skipStore", b -> false, v -> { });
    private static final Option<Duration> TIMEOUT =
            Option.ofDuration("timeout", DEFAULT_TIMEOUT, false, "positive");
    /** Default: {@value #DEFAULT_MAX_ENTRY_SIZE}, or bufferMemory if smaller (a larger entry could never be buffered). */
    private static final Option<Integer> MAX_ENTRY_SIZE = Option.ofInt("maxEntrySize",
            b -> (int) Math.min(DEFAULT_MAX_ENTRY_SIZE, b.resolved(BUFFER_MEMORY)), 16, DEFAULT_MAX_ENTRY_SIZE);

    /** The defaults. */
    public static final StreamerOptions DEFAULT = builder().build();

    /** Every option's value, in {@link #OPTIONS} order. */
    private final Object[] values;
    /** The values the builder was given ({@link #UNSET} for the others), for {@link #toBuilder()}. */
    private final Object[] given;

    private StreamerOptions(Object[] values, Object[] given) {
        this.values = values;
        this.given = given;
    }

    /** A builder holding the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder holding the options that were set to make these; the others keep following their defaults. */
    public Builder toBuilder() {
        Builder b = new Builder();
        System.arraycopy(given, 0, b.given, 0, given.length);
        return b;
    }

    /** Entries a partition buffer holds before it is sent. */
    public int perPartitionBufferSize() {
        return get(PER_PARTITION_BUFFER_SIZE);
    }

    /** Encoded bytes a partition buffer holds before it is sent. */
    public int perPartitionBufferBytes() {
        return get(PER_PARTITION_BUFFER_BYTES);
    }

    /** How long an entry may wait in a buffer before it is sent; zero means never by time. */
    public Duration autoFlushInterval() {
        return get(AUTO_FLUSH_INTERVAL);
    }

    /** Requests in flight to one node at most. */
    public int perNodeParallelOperations() {
        return get(PER_NODE_PARALLEL_OPERATIONS);
    }

    /** Encoded bytes buffered or in flight at most; {@code addData} blocks beyond it. */
    public long bufferMemory() {
        return get(BUFFER_MEMORY);
    }

    /** How long {@code addData} blocks for buffer memory before it throws. */
    public Duration maxBlock() {
        return get(MAX_BLOCK);
    }

    /** Whether existing keys are overwritten; chooses the default receiver. */
    public boolean allowOverwrite() {
        return get(ALLOW_OVERWRITE);
    }

    /**
     * The receiver applying batches on the node: the one set, else {@link Receivers#individual()}
     * when {@link #allowOverwrite()} is true and {@link Receivers#isolated()} when it is false.
     */
    public ReceiverRef receiver() {
        return get(RECEIVER);
    }

    /**
     * Whether the node leaves the cache's {@link CacheStore} alone for this streamer's batches: they
     * are written to memory only, neither written through nor queued for write-behind (a custom
     * receiver's cache operations included). For loading a cache from the database it sits in front of.
     */
    public boolean skipStore() {
        return get(SKIP_STORE);
    }

    /** Bound of {@code flush} and {@code close}. */
    public Duration timeout() {
        return get(TIMEOUT);
    }

    /** Largest encoded entry (key and value) accepted by {@code addData}. */
    public int maxEntrySize() {
        return get(MAX_ENTRY_SIZE);
    }

    @SuppressWarnings("unchecked")
    private <T> T get(Option<T> option) {
        return (T) values[option.index];
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StreamerOptions other && Arrays.equals(values, other.values);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(values);
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("StreamerOptions{");
        for (Option<?> option : OPTIONS) {
            Object v = values[option.index];
            s.append(option.index == 0 ? "" : ", ").append(option.name).append('=')
                    .append(v instanceof ReceiverRef r ? r.name() : v);
        }
        return s.append('}').toString();
    }

    /** Builds {@link StreamerOptions}; every setter checks its argument, {@link #build()} checks them together. */
    public static final class Builder {
        /** The values set, {@link #UNSET} for the options left to their defaults. */
        private final Object[] given = new Object[OPTIONS.size()];
        /** Only during {@link #build()}: the values being resolved. */
        private Object[] resolving;

        private Builder() {
            Arrays.fill(given, UNSET);
        }

        /** @param entries 1 to 1,000,000; default {@value #DEFAULT_PER_PARTITION_BUFFER_SIZE} */
        public Builder perPartitionBufferSize(int entries) {
            return set(PER_PARTITION_BUFFER_SIZE, entries);
        }

        /** @param bytes 64 bytes to 256 MiB; default 256 KiB */
        public Builder perPartitionBufferBytes(int bytes) {
            return set(PER_PARTITION_BUFFER_BYTES, bytes);
        }

        /** @param interval zero (off) or positive; default one second */
        public Builder autoFlushInterval(Duration interval) {
            return set(AUTO_FLUSH_INTERVAL, interval);
        }

        /** @param requests 1 to 1024; default {@value #DEFAULT_PER_NODE_PARALLEL_OPERATIONS} */
        public Builder perNodeParallelOperations(int requests) {
            return set(PER_NODE_PARALLEL_OPERATIONS, requests);
        }

        /** @param bytes at least 1 KiB; default 256 MiB */
        public Builder bufferMemory(long bytes) {
            return set(BUFFER_MEMORY, bytes);
        }

        /** @param maxBlock zero (fail at once) or positive; default one minute */
        public Builder maxBlock(Duration maxBlock) {
            return set(MAX_BLOCK, maxBlock);
        }

        /** @param allowOverwrite whether existing keys are overwritten (chooses the default receiver); default false */
        public Builder allowOverwrite(boolean allowOverwrite) {
            return set(ALLOW_OVERWRITE, allowOverwrite);
        }

        /** @param receiver a receiver from {@link Receivers}; null restores the default */
        public Builder receiver(ReceiverRef receiver) {
            if (receiver == null) {
                given[RECEIVER.index] = UNSET;
                return this;
            }
            return set(RECEIVER, receiver);
        }

        /** @param skipStore whether the node leaves the cache's store alone ({@link StreamerOptions#skipStore()}); default false */
        public Builder skipStore(boolean skipStore) {
            return set(SKIP_STORE, skipStore);
        }

        /** @param timeout positive; default five minutes */
        public Builder timeout(Duration timeout) {
            return set(TIMEOUT, timeout);
        }

        /** @param bytes 16 bytes to {@value #DEFAULT_MAX_ENTRY_SIZE}; default that, or bufferMemory if smaller */
        public Builder maxEntrySize(int bytes) {
            return set(MAX_ENTRY_SIZE, bytes);
        }

        private <T> Builder set(Option<T> option, T value) {
            option.check(value);
            given[option.index] = value;
            return this;
        }

        /**
         * Builds the options; the builder is left as it was (it may build again).
         *
         * @throws IllegalArgumentException if bufferMemory is smaller than perPartitionBufferBytes or
         *         than a maxEntrySize that was set (an entry or a full buffer could never be accepted)
         */
        public StreamerOptions build() {
            resolving = new Object[given.length];
            try {
                for (Option<?> option : OPTIONS) {
                    resolved(option);
                }
                long bufferMemory = (Long) resolving[BUFFER_MEMORY.index];
                int bufferBytes = (Integer) resolving[PER_PARTITION_BUFFER_BYTES.index];
                int maxEntrySize = (Integer) resolving[MAX_ENTRY_SIZE.index];
                if (bufferMemory < bufferBytes) {
                    throw new IllegalArgumentException("bufferMemory (" + bufferMemory
                            + " bytes) is smaller than perPartitionBufferBytes (" + bufferBytes
                            + " bytes); raise StreamerOptions.bufferMemory or lower perPartitionBufferBytes");
                }
                if (bufferMemory < maxEntrySize) {
                    throw new IllegalArgumentException("bufferMemory (" + bufferMemory
                            + " bytes) is smaller than maxEntrySize (" + maxEntrySize
                            + " bytes); raise StreamerOptions.bufferMemory or lower maxEntrySize");
                }
                return new StreamerOptions(resolving, given.clone());
            } finally {
                resolving = null;
            }
        }

        /** The option's value in the options being built: the one given, else its (possibly derived) default. */
        @SuppressWarnings("unchecked")
        private <T> T resolved(Option<T> option) {
            Object v = resolving[option.index];
            if (v == null) {
                v = given[option.index] != UNSET ? given[option.index] : option.defaultOf.apply(this);
                resolving[option.index] = v;
            }
            return (T) v;
        }
    }

    /**
     * One option: its name, how its default is found, and the check its values must pass (which
     * names the option and its bounds).
     */
    private static final class Option<T> {
        final int index;
        final String name;
        final Function<Builder, T> defaultOf;
        private final java.util.function.Consumer<T> check;

        private Option(String name, Function<Builder, T> defaultOf, java.util.function.Consumer<T> check) {
            this.index = OPTIONS.size();
            this.name = name;
            this.defaultOf = defaultOf;
            this.check = check;
            OPTIONS.add(this);
        }

        static <T> Option<T> of(String name, Function<Builder, T> defaultOf, java.util.function.Consumer<T> check) {
            return new Option<>(name, defaultOf, check);
        }

        static Option<Integer> ofInt(String name, int defaultValue, int min, int max) {
            return ofInt(name, b -> defaultValue, min, max);
        }

        static Option<Integer> ofInt(String name, Function<Builder, Integer> defaultOf, int min, int max) {
            return new Option<>(name, defaultOf, v -> {
                if (v < min || v > max) {
                    throw new IllegalArgumentException(name + " is " + v + "; it must be between " + min + " and "
                            + max + " (StreamerOptions." + name + ")");
                }
            });
        }

        static Option<Long> ofLong(String name, long defaultValue, long min, long max) {
            return new Option<>(name, b -> defaultValue, v -> {
                if (v < min || v > max) {
                    throw new IllegalArgumentException(name + " is " + v + "; it must be at least " + min
                            + (max < Long.MAX_VALUE ? " and at most " + max : "") + " (StreamerOptions." + name + ")");
                }
            });
        }

        static Option<Duration> ofDuration(String name, Duration defaultValue, boolean zeroAllowed, String bounds) {
            return new Option<>(name, b -> defaultValue, v -> {
                Objects.requireNonNull(v, name);
                if (v.isNegative() || (!zeroAllowed && v.isZero())) {
                    throw new IllegalArgumentException(name + " is " + v + "; it must be " + bounds
                            + " (StreamerOptions." + name + ")");
                }
            });
        }

        void check(T value) {
            check.accept(value);
        }
    }
}
