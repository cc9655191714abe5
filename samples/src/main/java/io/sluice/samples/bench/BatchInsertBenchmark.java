package io.sluice.samples.bench;

import io.sluice.protocol.EntryBatch;
import io.sluice.store.BatchMode;
import io.sluice.store.DataRegion;
import io.sluice.store.DataRegionConfig;
import io.sluice.store.PartitionStore;
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
 * {@link PartitionStore#applyBatch} and with {@link PartitionStore#applyBatchRowByRow}. Row size is
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
            partition.applyBatchRowByRow(b, BatchMode.INSERT_IF_ABSENT);
        }
        return partition.size();
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
                partition.applyBatchRowByRow(b, BatchMode.INSERT_IF_ABSENT);
            }
            return partition.size();
        }
    }
}
