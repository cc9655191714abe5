package io.sluice.samples.bench;

import io.sluice.protocol.internal.EntryBatch;
import io.sluice.pagestore.internal.BatchMode;
import io.sluice.pagestore.internal.DataRegion;
import io.sluice.pagestore.internal.DataRegionConfig;
import io.sluice.pagestore.internal.PartitionStore;
import io.sluice.pagestore.internal.RowByRowBaseline;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Batch page writes vs row by row: the same 32,768 rows, in batches of 512, inserted
 * (INSERT_IF_ABSENT, as the isolated receiver does) into a fresh partition with
 * {@link PartitionStore#applyBatch} and with {@link RowByRowBaseline#apply}. Row size is
 * key (9 bytes) + value bytes; 4 KiB pages; ops/s are rows/s. Dropping the partition after each
 * invocation is not measured. Compare the two methods of one run.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class BatchInsertBenchmark {

    static final int ROWS = 32_768;
    static final int BATCH = 512;

    @Param({"44-104", "140-340", "340-740", "740-1240", "1240-3040", "2000-3000"})
    public String rowSize;

    @Param({"random", "ascending"})
    public String keys;

    private DataRegion region;
    private EntryBatch[] batches;
    private PartitionStore partition;

    @Setup(Level.Trial)
    public void setUp() {
        String[] range = rowSize.split("-");
        int min = Integer.parseInt(range[0]);
        int max = Integer.parseInt(range[1]);
        batches = StoreKeys.batches(StoreKeys.keys(ROWS, keys.equals("ascending"), 42), BATCH, min, max, 7);
        region = new DataRegion(new DataRegionConfig(4096, 256L << 20, 1L << 30));
    }

    @Setup(Level.Invocation)
    public void freshPartition() {
        partition = region.createPartition();
    }

    @TearDown(Level.Invocation)
    public void dropPartition() {
        partition.destroy(); // its pages go back to the free list for the next invocation
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        region.close();
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public long batch() {
        for (EntryBatch b : batches) {
            partition.applyBatch(b, BatchMode.INSERT_IF_ABSENT);
        }
        return partition.size();
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public long rowByRow() {
        for (EntryBatch b : batches) {
            RowByRowBaseline.apply(partition, b, BatchMode.INSERT_IF_ABSENT);
        }
        return partition.size();
    }

    /**
     * A cross-check for noisy machines (not JMH): per row size and key order, alternates batch and
     * row-by-row loads of the same rows into fresh partitions and compares the median thread CPU time
     * of each, so that other processes on the machine disturb the ratio less than wall-clock time. Both paths
     * are warmed up first ({@link #WARM_UP_ROUNDS} rounds of each at 44-104 B rows, both key orders).
     * Arguments: rounds per variant (default 30).
     */
    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 30;
        java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
        String[] sizes = {"44-104", "140-340", "340-740", "740-1240", "1240-3040", "2000-3000"};
        System.out.printf("%-10s %-9s %14s %14s %6s%n", "rows", "keys", "batch rows/s", "row rows/s", "ratio");
        warmUp(WARM_UP_ROUNDS);
        for (String keys : new String[] {"random", "ascending"}) {
            for (String size : sizes) {
                String[] range = size.split("-");
                EntryBatch[] batches = StoreKeys.batches(StoreKeys.keys(ROWS, keys.equals("ascending"), 42), BATCH,
                        Integer.parseInt(range[0]), Integer.parseInt(range[1]), 7);
                long[][] nanos = new long[2][rounds];
                try (DataRegion region = new DataRegion(new DataRegionConfig(4096, 256L << 20, 1L << 30))) {
                    for (int r = -rounds / 2; r < rounds; r++) { // the first half-round set warms up
                        for (int variant = 0; variant < 2; variant++) {
                            PartitionStore p = region.createPartition();
                            long start = cpu.getCurrentThreadCpuTime();
                            for (EntryBatch b : batches) {
                                if (variant == 0) {
                                    p.applyBatch(b, BatchMode.INSERT_IF_ABSENT);
                                } else {
                                    RowByRowBaseline.apply(p, b, BatchMode.INSERT_IF_ABSENT);
                                }
                            }
                            long took = cpu.getCurrentThreadCpuTime() - start;
                            if (r >= 0) {
                                nanos[variant][r] = took;
                            }
                            p.destroy();
                        }
                    }
                }
                java.util.Arrays.sort(nanos[0]);
                java.util.Arrays.sort(nanos[1]);
                double batch = ROWS * 1e9 / nanos[0][rounds / 2];
                double row = ROWS * 1e9 / nanos[1][rounds / 2];
                System.out.printf("%-10s %-9s %,14.0f %,14.0f %5.2fx%n", size, keys, batch, row, batch / row);
            }
        }
    }

    /**
     * Rounds of both paths, at the first row size and both key orders, before anything is measured: with only the
     * first configuration's half-round warm-up, its batch path was measured while still being compiled (on a busy
     * 2-core machine, 44-104 B random rows then came out slower than 140-340 B ones).
     */
    static final int WARM_UP_ROUNDS = 20;

    private static void warmUp(int rounds) {
        for (boolean ascending : new boolean[] {false, true}) {
            EntryBatch[] batches = StoreKeys.batches(StoreKeys.keys(ROWS, ascending, 42), BATCH, 44, 104, 7);
            try (DataRegion region = new DataRegion(new DataRegionConfig(4096, 256L << 20, 1L << 30))) {
                for (int r = 0; r < rounds; r++) {
                    for (int variant = 0; variant < 2; variant++) {
                        PartitionStore p = region.createPartition();
                        for (EntryBatch b : batches) {
                            if (variant == 0) {
                                p.applyBatch(b, BatchMode.INSERT_IF_ABSENT);
                            } else {
                                RowByRowBaseline.apply(p, b, BatchMode.INSERT_IF_ABSENT);
                            }
                        }
                        p.destroy();
                    }
                }
            }
        }
    }

    /**
     * The isolated receiver's initial load: 2,000,000 entries of 100 bytes (random long keys) in batches
     * of 512 into a fresh partition, batch path vs row by row. Select it alone with
     * {@code BatchInsertBenchmark.IsolatedLoad}; exclude it with {@code BatchInsertBenchmark.[br]}.
     */
    @State(Scope.Thread)
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public static class IsolatedLoad {

        static final int ENTRIES = 2_000_000;

        private DataRegion region;
        private EntryBatch[] batches;
        private PartitionStore partition;

        @Setup(Level.Trial)
        public void setUp() {
            batches = StoreKeys.batches(StoreKeys.keys(ENTRIES, false, 42), BATCH, 100, 100, 7);
            region = new DataRegion(new DataRegionConfig(4096, 512L << 20, 2L << 30));
        }

        @Setup(Level.Invocation)
        public void freshPartition() {
            partition = region.createPartition();
        }

        @TearDown(Level.Invocation)
        public void dropPartition() {
            partition.destroy();
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            region.close();
        }

        @Benchmark
        @OperationsPerInvocation(ENTRIES)
        public long batch() {
            for (EntryBatch b : batches) {
                partition.applyBatch(b, BatchMode.INSERT_IF_ABSENT);
            }
            return partition.size();
        }

        @Benchmark
        @OperationsPerInvocation(ENTRIES)
        public long rowByRow() {
            for (EntryBatch b : batches) {
                RowByRowBaseline.apply(partition, b, BatchMode.INSERT_IF_ABSENT);
            }
            return partition.size();
        }
    }
}
