package io.sluice.samples.bench;

import io.sluice.binary.internal.BinaryContext;
import io.sluice.pagestore.internal.BatchMode;
import io.sluice.pagestore.internal.DataRegion;
import io.sluice.pagestore.internal.DataRegionConfig;
import io.sluice.pagestore.internal.PartitionStore;
import io.sluice.pagestore.internal.RowByRowBaseline;
import io.sluice.pagestore.internal.StoreJournal;
import io.sluice.pagestore.internal.index.IndexSpec;
import io.sluice.protocol.internal.EntryBatch;
import io.sluice.samples.StockOrder;
import java.util.List;
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
 * Field indexes on the store's batch path (issue 31): StockOrder values (binary objects of the record) under
 * random long keys, 65,536 entries in batches of 512 into a fresh partition (INSERT_IF_ABSENT, as the isolated
 * receiver does), with indexes on {@code secCode} and {@code account}, three ways:
 * <ul>
 *   <li>{@code noIndexes}: the partition without indexes (what the indexes cost is measured against);</li>
 *   <li>{@code sortedPass}: {@link PartitionStore#applyBatch}: each batch's index keys taken from the bytes,
 *       sorted once per index and applied in one ordered walk of the index tree;</li>
 *   <li>{@code entryByEntry}: the same rows in the same sorted pass, but every index change applied on its own,
 *       a descent of the index tree each, in the order the batch's pass made them (the entries' key order:
 *       for random keys as unrelated to the index order as the batch's own order), each new index row written on
 *       its own ({@link RowByRowBaseline#applyIndexesEntryByEntry}). Both variants take the same index keys from
 *       the same bytes; they differ only in how the changes reach the index trees.</li>
 * </ul>
 * {@code values=stock}: {@link StockOrder#forKey} (one secCode and one account for every entry: index keys in
 * entry-key order); {@code values=varied}: 40 security codes and 5,000 accounts, drawn at random. ops/s are
 * entries/s. The index pass's own gain is {@code (entryByEntry - noIndexes) / (sortedPass - noIndexes)} in time
 * per entry; compare the methods of one run. {@link #main} is a CPU-time cross-check for busy machines.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class IndexBatchBenchmark {

    static final int ROWS = 65_536;
    static final int BATCH = 512;
    static final List<IndexSpec> INDEXES = List.of(new IndexSpec(0, List.of("secCode")),
            new IndexSpec(1, List.of("account")));

    @Param({"stock", "varied"})
    public String values;

    @Param({"random", "ascending"})
    public String keys;

    private DataRegion region;
    private EntryBatch[] batches;
    private PartitionStore plain;
    private PartitionStore indexed;

    @Setup(Level.Trial)
    public void setUp() {
        BinaryContext binary = new BinaryContext();
        batches = batches(binary, values.equals("varied"), keys.equals("ascending"));
        region = new DataRegion(new DataRegionConfig(4096, 256L << 20, 2L << 30), binary);
    }

    @Setup(Level.Invocation)
    public void freshPartitions() {
        plain = region.createPartition();
        indexed = region.createPartition(StoreJournal.NONE, INDEXES);
    }

    @TearDown(Level.Invocation)
    public void dropPartitions() {
        plain.destroy();
        indexed.destroy();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        region.close();
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public long noIndexes() {
        return load(plain, 0);
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public long sortedPass() {
        return load(indexed, 1);
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public long entryByEntry() {
        return load(indexed, 2);
    }

    private long load(PartitionStore p, int variant) {
        return load(p, batches, variant);
    }

    static long load(PartitionStore p, EntryBatch[] batches, int variant) {
        for (EntryBatch b : batches) {
            apply(p, b, variant);
        }
        if (variant == 1) { // index changes the partition still holds (HeldIndexChanges) are part of the load
            p.index().applyHeld();
        }
        return p.size();
    }

    /** One batch as the variant applies it (0 and 1: the store's batch path; 2: index changes entry by entry). */
    static void apply(PartitionStore p, EntryBatch b, int variant) {
        if (variant == 2) {
            RowByRowBaseline.applyIndexesEntryByEntry(p, b, BatchMode.INSERT_IF_ABSENT);
        } else {
            p.applyBatch(b, BatchMode.INSERT_IF_ABSENT);
        }
    }

    /** The benchmark's batches: StockOrder values (binary objects registered in {@code binary}). */
    static EntryBatch[] batches(BinaryContext binary, boolean varied, boolean ascending) {
        return StockOrderBatches.make(binary, ROWS, BATCH, varied, ascending);
    }

    /**
     * A cross-check for noisy machines (not JMH): per value shape, alternates the three loads into fresh
     * partitions and compares the median thread CPU time of each. Prints entries/s per variant, the cost of the
     * two indexes on the batch apply (entries/s with them / without), and the index pass's gain (index time per
     * entry applied entry by entry / in the sorted pass). Arguments: rounds per variant (default 20).
     */
    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
        System.out.printf("%-7s %-9s %14s %14s %14s %13s %11s%n", "values", "keys", "none rows/s", "sorted rows/s",
                "each rows/s", "with/without", "index pass");
        for (String order : new String[] {"random", "ascending"}) {
          for (String shape : new String[] {"stock", "varied"}) {
            BinaryContext binary = new BinaryContext();
            EntryBatch[] batches = batches(binary, shape.equals("varied"), order.equals("ascending"));
            long[][] nanos = new long[3][rounds];
            try (DataRegion region = new DataRegion(new DataRegionConfig(4096, 256L << 20, 2L << 30), binary)) {
                for (int r = -rounds / 2; r < rounds; r++) { // the first half-round set warms up
                    for (int variant = 0; variant < 3; variant++) {
                        PartitionStore p = variant == 0 ? region.createPartition()
                                : region.createPartition(StoreJournal.NONE, INDEXES);
                        long start = cpu.getCurrentThreadCpuTime();
                        load(p, batches, variant);
                        long took = cpu.getCurrentThreadCpuTime() - start;
                        if (r >= 0) {
                            nanos[variant][r] = took;
                        }
                        p.destroy();
                    }
                }
            }
            double[] median = new double[3];
            for (int v = 0; v < 3; v++) {
                java.util.Arrays.sort(nanos[v]);
                median[v] = nanos[v][rounds / 2];
            }
            System.out.printf("%-7s %-9s %,14.0f %,14.0f %,14.0f %12.0f%% %10.2fx%n", shape, order,
                    ROWS * 1e9 / median[0], ROWS * 1e9 / median[1], ROWS * 1e9 / median[2],
                    100 * median[0] / median[1], (median[2] - median[0]) / (median[1] - median[0]));
          }
        }
    }
}
