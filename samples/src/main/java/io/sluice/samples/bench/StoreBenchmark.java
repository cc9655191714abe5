package io.sluice.samples.bench;

import io.sluice.pagestore.internal.DataRegion;
import io.sluice.pagestore.internal.DataRegionConfig;
import io.sluice.pagestore.internal.PartitionStore;
import io.sluice.pagestore.internal.StoreCursor;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * The page-memory store row by row: put of 100-byte rows (9-byte long keys + 91-byte values, keys
 * ascending or random) into a fresh partition, get of present keys, and a cursor scan; ops/s are
 * rows/s. {@link #main} prints page memory per row.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class StoreBenchmark {

    static final int ROWS = 100_000;
    static final int VALUE = 100 - StoreKeys.KEY_LENGTH;

    @Param({"ascending", "random"})
    public String keys;

    private DataRegion region;
    private long[] order;
    private final byte[] key = new byte[StoreKeys.KEY_LENGTH];
    private final byte[] value = new byte[VALUE];
    private PartitionStore loaded;
    private int next;

    @Setup(Level.Trial)
    public void setUp() {
        region = new DataRegion(new DataRegionConfig(4096, 64L << 20, 1L << 30));
        order = StoreKeys.keys(ROWS, keys.equals("ascending"), 42);
        new java.util.Random(7).nextBytes(value);
        loaded = region.createPartition();
        for (long k : order) {
            StoreKeys.key(key, k);
            loaded.put(key, 0, key.length, value, 0, value.length);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        region.close();
    }

    /** A fresh partition per insert invocation; creating and dropping it is not measured. */
    @State(Scope.Thread)
    public static class Fresh {
        PartitionStore partition;

        @Setup(Level.Invocation)
        public void create(StoreBenchmark bench) {
            partition = bench.region.createPartition();
        }

        @TearDown(Level.Invocation)
        public void drop() {
            partition.destroy();
        }
    }

    /**
     * Page memory per row (not a JMH measurement): loads 100,000 rows of 100 bytes row by row and
     * prints the bytes of pages in use per row, for ascending and random keys.
     */
    public static void main(String[] args) {
        for (String keys : new String[] {"ascending", "random"}) {
            try (DataRegion region = new DataRegion(new DataRegionConfig(4096, 0, 1L << 30))) {
                long[] order = StoreKeys.keys(ROWS, keys.equals("ascending"), 42);
                byte[] key = new byte[StoreKeys.KEY_LENGTH];
                byte[] value = new byte[VALUE];
                PartitionStore p = region.createPartition();
                for (long k : order) {
                    StoreKeys.key(key, k);
                    p.put(key, 0, key.length, value, 0, value.length);
                }
                System.out.printf("%-9s keys: %d rows of 100 bytes in %d pages of 4 KiB: %.1f bytes/row%n", keys, ROWS,
                        region.usedPages(), (double) region.usedPages() * region.pageSize() / ROWS);
            }
        }
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public long insert(Fresh fresh) {
        PartitionStore p = fresh.partition;
        for (long k : order) {
            StoreKeys.key(key, k);
            p.put(key, 0, key.length, value, 0, value.length);
        }
        return p.size();
    }

    @Benchmark
    public byte[] get() {
        StoreKeys.key(key, order[next]);
        next = next + 1 == ROWS ? 0 : next + 1;
        return loaded.get(key, 0, key.length);
    }

    @Benchmark
    @OperationsPerInvocation(ROWS)
    public void scan(Blackhole bh) {
        StoreCursor cursor = loaded.cursor();
        while (cursor.next()) {
            bh.consume(cursor.value());
        }
    }
}
