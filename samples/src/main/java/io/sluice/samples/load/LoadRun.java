package io.sluice.samples.load;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.Receivers;
import io.sluice.Sluice;
import io.sluice.StreamerOptions;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Runs every mode of a {@link LoadSettings} one after the other, each into a fresh store, and
 * verifies each: the store's size must equal the distinct keys loaded, and a seeded sample of
 * values read back must equal their orders field by field.
 */
final class LoadRun {

    /** Values read back per mode. */
    static final int VERIFY_SAMPLE = 1000;
    private static final long VERIFY_SEED = 20_240_601L;
    /** Room per entry a node's data region is sized for, beyond the value: key, row header, tree, slack. */
    private static final long REGION_BYTES_PER_ENTRY = 256;
    private static final long MIN_REGION_BYTES = 64L << 20;
    /**
     * Warm-up rounds per mode at most. A new JVM needs millions of entries to reach its steady state:
     * the C2 compiler spent 1.35 CPU-seconds on the node's batch-apply path during the first timed
     * 2,000,000-entry streamed load (of 1.73 s), and pre-touching the heap (-XX:+AlwaysPreTouch) made
     * that load 1.8x faster (docs/benchmarks-results.md, 2026-11-23 18:15–19:20 entry). One fixed-size
     * warm-up either cost too much or left whichever mode ran first paying for it.
     */
    static final int MAX_WARMUP_ROUNDS = 6;
    /** Warm-up stops once a round's rate is within this fraction of the previous round's. */
    static final double STEADY = 0.10;

    private final LoadSettings settings;
    private final NodeLauncher nodes;
    private final ProgressReporter progress;
    private Consumer<Cache<Long, Object>> afterLoad = cache -> { };

    LoadRun(LoadSettings settings, NodeLauncher nodes, ProgressReporter progress) {
        this.settings = settings;
        this.nodes = nodes;
        this.progress = progress;
    }

    /** Test hook: runs on each cache after its load was measured and before it is verified. */
    void afterLoad(Consumer<Cache<Long, Object>> hook) {
        this.afterLoad = hook;
    }

    /**
     * Runs the modes: each warms up, then is timed {@code repeat} times, before the next mode runs.
     *
     * @return every run of each mode and value kind, in run order; a mode that failed has a run saying why
     *         (and no later runs)
     * @throws ValuePadding.ValueSizeException if --value-size is below a value's natural size
     */
    List<ModeRuns> run() {
        KeyPlan plan = settings.keyPlan();
        KeyPlan warmup = new KeyPlan(settings.warmupEntries(), settings.threads(), settings.collisionRatio());
        List<ModeRuns> results = new ArrayList<>();
        for (LoadMode mode : settings.modes()) {
            if (mode == LoadMode.RAW) {
                results.add(runMode(mode, RAW_VALUES, plan, warmup,
                        p -> new RawLoad(p, RawLoad.padFor(settings.valueSize()))));
            } else {
                for (ValueKind kind : settings.values()) {
                    results.add(runMode(mode, kind.cliName(), plan, warmup, p -> openCacheLoad(mode, kind, p)));
                }
            }
        }
        return results;
    }

    /** What the raw baseline's values column says: it writes the fields itself. */
    static final String RAW_VALUES = "fields";

    /** Opens a mode's load for a key plan. */
    private interface LoadOpener {
        ModeLoad open(KeyPlan plan) throws Exception;
    }

    private ModeRuns runMode(LoadMode mode, String values, KeyPlan plan, KeyPlan warmup, LoadOpener opener) {
        String label = mode.cliName() + '/' + values;
        double[] seconds = {0, 0};
        double previous = 0;
        for (int round = 1; round <= MAX_WARMUP_ROUNDS && warmup.entries() > 0; round++) {
            try (ModeLoad load = opener.open(warmup)) {
                // Brings the JVM to its steady state before the mode is timed; nothing of it is kept.
                measure(label + " warm-up", load, warmup, seconds, false);
            } catch (ValuePadding.ValueSizeException e) {
                throw e;
            } catch (Exception | Error e) {
                return ModeRuns.of(ModeResult.failed(mode.cliName(), values, plan.entries(), 0, plan.distinct(), e));
            } finally {
                System.gc();
            }
            double rate = warmup.entries() / seconds[0];
            if (round > 1 && Math.abs(rate - previous) <= STEADY * previous) {
                break;
            }
            previous = rate;
        }
        List<ModeResult> timings = new ArrayList<>(settings.repeat());
        for (int run = 0; run < settings.repeat(); run++) {
            ModeResult result = timeMode(mode, values, plan, opener,
                    settings.repeat() == 1 ? label : label + " #" + (run + 1));
            timings.add(result);
            if (!result.verified()) {
                break;
            }
        }
        return new ModeRuns(timings);
    }

    /** One timed load of a mode into a fresh store, verified. */
    private ModeResult timeMode(LoadMode mode, String values, KeyPlan plan, LoadOpener opener, String label) {
        double[] seconds = {0, 0};
        try (ModeLoad load = opener.open(plan)) {
            ProgressTimeline samples = measure(label, load, plan, seconds, true);
            if (load instanceof CacheLoad cacheLoad) {
                afterLoad.accept(cacheLoad.cache());
            }
            return verify(mode.cliName(), values, plan, load, seconds[0]).withProgress(samples, seconds[1]);
        } catch (ValuePadding.ValueSizeException e) {
            throw e;
        } catch (Exception | Error e) {
            if (e instanceof OutOfMemoryError) {
                System.err.println(label + " ran out of memory: " + e.getMessage()
                        + " (see docs/benchmarks.md for -Xmx)");
            }
            return ModeResult.failed(mode.cliName(), values, plan.entries(), seconds[0], plan.distinct(), e);
        } finally {
            // The closed store's direct buffers are freed when collected; free them before the next mode runs.
            System.gc();
        }
    }

    /**
     * Runs the producers and the load's finish, timed: {@code elapsed[1]} holds the process's CPU
     * seconds, {@code elapsed[0]} the time taken, or the
     * time so far if it throws.
     *
     * @return the progress samples of the load ({@link ProgressTimeline#NONE} if not reported or recorded)
     */
    private ProgressTimeline measure(String label, ModeLoad load, KeyPlan plan, double[] elapsed, boolean report)
            throws Exception {
        LongAdder done = new LongAdder();
        CountDownLatch go = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread[] producers = new Thread[plan.threads()];
        for (int t = 0; t < producers.length; t++) {
            int thread = t;
            producers[t] = new Thread(() -> {
                try {
                    go.await();
                    load.load(thread, done);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            }, "sluice-load-" + label + "-" + t);
            producers[t].start();
        }
        ProgressReporter.Report shown = report ? progress.start(label, plan.entries(), done::sum) : () -> { };
        long cpuStart = ProcessCpu.nanos();
        long start = System.nanoTime();
        try {
            go.countDown();
            for (Thread producer : producers) {
                producer.join();
            }
            if (failure.get() == null) {
                load.finish();
            }
        } finally {
            elapsed[0] = (System.nanoTime() - start) / 1e9;
            elapsed[1] = (ProcessCpu.nanos() - cpuStart) / 1e9;
            shown.close();
        }
        Throwable failed = failure.get();
        if (failed instanceof Exception e) {
            throw e;
        }
        if (failed instanceof Error e) {
            throw e;
        }
        return shown.timeline();
    }

    private ModeResult verify(String mode, String values, KeyPlan plan, ModeLoad load, double seconds) {
        long expected = plan.distinct();
        long actual = load.storedSize();
        Random random = new Random(VERIFY_SEED);
        int sampled = (int) Math.min(VERIFY_SAMPLE, expected);
        int mismatched = 0;
        String firstMismatch = null;
        for (int i = 0; i < sampled; i++) {
            long key = sampleKey(plan, random);
            Function<String, Object> stored = load.read(key);
            String difference = stored == null ? "key " + key + " is missing"
                    : StockOrderFields.difference(key, stored, load.pad());
            if (difference != null) {
                mismatched++;
                if (firstMismatch == null) {
                    firstMismatch = difference;
                }
            }
        }
        String problem = null;
        if (actual != expected) {
            problem = actual < expected
                    ? String.format("LOST %,d entries: the store holds %,d, expected %,d distinct keys",
                            expected - actual, actual, expected)
                    : String.format("the store holds %,d entries, more than the %,d distinct keys loaded",
                            actual, expected);
        }
        if (mismatched > 0) {
            String sample = String.format("%,d of %,d values read back are missing or wrong (seed %d), first: %s",
                    mismatched, sampled, VERIFY_SEED, firstMismatch);
            problem = problem == null ? sample : problem + "; " + sample;
        }
        return new ModeResult(mode, values, plan.entries(), seconds, load.encodedBytes(), expected, actual, sampled,
                mismatched, problem);
    }

    /** A distinct key chosen uniformly over all threads' keys. */
    private static long sampleKey(KeyPlan plan, Random random) {
        long index = (long) (random.nextDouble() * plan.distinct());
        for (int t = 0; t < plan.threads(); t++) {
            if (index < plan.distinct(t)) {
                return plan.distinctKey(t, index);
            }
            index -= plan.distinct(t);
        }
        return plan.distinctKey(plan.threads() - 1, plan.distinct(plan.threads() - 1) - 1);
    }

    /** The most off-heap memory a node's data region may take for a plan: room for every distinct key. */
    static long regionBytes(LoadSettings settings, KeyPlan plan) {
        long valueBytes = settings.valueSize() > 0 ? settings.valueSize() : 128;
        return Math.max(MIN_REGION_BYTES, plan.distinct() * (valueBytes + REGION_BYTES_PER_ENTRY));
    }

    private static final java.util.concurrent.atomic.AtomicLong LOADS = new java.util.concurrent.atomic.AtomicLong();
    /** Tells this process's caches from another run's on the same remote node. */
    private static final String RUN = Long.toString(ProcessHandle.current().pid(), 36) + "x"
            + Long.toString(System.currentTimeMillis() % 1_000_000, 36);

    private ModeLoad openCacheLoad(LoadMode mode, ValueKind kind, KeyPlan plan) {
        Sluice sluice = nodes.start(settings.pageSize(), regionBytes(settings, plan));
        try {
            // A name of its own per load: a remote node keeps the caches of earlier loads.
            String name = "orders-" + mode.cliName() + "-" + kind.cliName() + "-" + RUN + "-" + LOADS.incrementAndGet();
            Cache<Long, Object> cache = sluice.createCache(CacheConfig.named(name).withPartitions(settings.partitions()));
            String pad = CacheLoad.padFor(sluice.binary(), kind, settings.valueSize());
            return switch (mode) {
                case PUT -> new PutLoad(sluice, cache, plan, kind, pad);
                case PUT_ALL -> new PutAllLoad(sluice, cache, plan, kind, pad, settings.bufferSize());
                case STREAMER_ISOLATED, STREAMER_INDIVIDUAL, STREAMER_BATCHED -> new StreamerLoad(sluice, cache, plan,
                        kind, pad, sluice.<Long, Object>dataStreamer(name, streamerOptions(mode)));
                case RAW -> throw new IllegalArgumentException("the raw baseline needs no node");
            };
        } catch (RuntimeException e) {
            sluice.close();
            throw e;
        }
    }

    /** The streamer options of a streamer mode: its receiver and the run's buffer settings. */
    StreamerOptions streamerOptions(LoadMode mode) {
        StreamerOptions.Builder options = StreamerOptions.builder()
                .perPartitionBufferSize(settings.bufferSize())
                .autoFlushInterval(Duration.ofMillis(settings.flushIntervalMs()))
                .perNodeParallelOperations(settings.parallelOps());
        return switch (mode) {
            case STREAMER_ISOLATED -> options.receiver(Receivers.isolated()).build();
            case STREAMER_INDIVIDUAL -> options.allowOverwrite(true).receiver(Receivers.individual()).build();
            case STREAMER_BATCHED -> options.allowOverwrite(true).receiver(Receivers.batched()).build();
            default -> throw new IllegalArgumentException(mode + " is not a streamer mode");
        };
    }
}
