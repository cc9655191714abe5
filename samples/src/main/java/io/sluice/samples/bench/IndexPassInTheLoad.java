package io.sluice.samples.bench;

import io.sluice.CacheConfig;
import io.sluice.StreamerOptions;
import io.sluice.affinity.internal.Partitioner;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.pagestore.internal.DataRegion;
import io.sluice.pagestore.internal.DataRegionConfig;
import io.sluice.pagestore.internal.PartitionStore;
import io.sluice.pagestore.internal.StoreJournal;
import io.sluice.pagestore.internal.index.HeldChangesBudget;
import io.sluice.protocol.internal.EntryBatch;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Issue 31's index pass against entry by entry on the data of the indexed load ({@code IndexBench load-one}), where
 * {@link IndexBatchBenchmark} loads one partition that stays in the caches: {@code entries} StockOrders with
 * {@link IndexBench#order}'s values under the keys 0, 1, 2, ..., spread over {@value CacheConfig#DEFAULT_PARTITIONS}
 * partitions by the streamer's partition function and cut into the batches a streamer with the default options seals
 * ({@value StreamerOptions#DEFAULT_PER_PARTITION_BUFFER_SIZE} entries of a partition, in the order they fill, the
 * rest at its close), applied in that order on one thread to the partitions of one region, three ways as in
 * {@link IndexBatchBenchmark}: without indexes, with indexes on {@code secCode} and {@code account} through the
 * store's batch path (held changes included: every partition applies what it holds at the end, as the load's closing
 * query makes it), and with every index change applied on its own. A partition's trees are cold when its next batch
 * comes (the other partitions' batches came between), as in a streamed load.
 *
 * <pre>
 * java -Xmx2g -XX:MaxDirectMemorySize=4g -cp samples/target/benchmarks.jar \
 *     io.sluice.samples.bench.IndexPassInTheLoad [entries (2000000)] [rounds (5)]
 * </pre>
 * {@code -Dsluice.bench.heldLimit=N}: the region's limit on held index changes in bytes (default
 * {@link HeldChangesBudget#DEFAULT_LIMIT}; 0 applies each batch's changes in a pass of its own). Prints per round and as medians the thread CPU per entry of each way, the indexes' cost ({@code with/without}:
 * CPU without ÷ with the sorted pass) and the index pass's gain ({@code (each - none) / (sorted - none)}). The ways
 * alternate within a round; the first round warms up and is not counted.
 */
public final class IndexPassInTheLoad {

    private static final String[] WAYS = {"none", "sorted", "each"};

    private IndexPassInTheLoad() {
    }

    public static void main(String[] args) {
        int entries = args.length > 0 ? Integer.parseInt(args[0]) : 2_000_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        long heldLimit = Long.getLong("sluice.bench.heldLimit", HeldChangesBudget.DEFAULT_LIMIT);
        BinaryContext binary = new BinaryContext();
        List<Sealed> batches = sealedBatches(binary, entries, CacheConfig.DEFAULT_PARTITIONS,
                StreamerOptions.DEFAULT_PER_PARTITION_BUFFER_SIZE);
        System.out.printf("%,d entries in %,d batches over %,d partitions; held index changes up to %,d bytes%n",
                entries, batches.size(), CacheConfig.DEFAULT_PARTITIONS, heldLimit);
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        double[][] nsPerEntry = new double[WAYS.length][rounds];
        for (int round = -1; round < rounds; round++) {
            for (int way = 0; way < WAYS.length; way++) {
                try (DataRegion region = new DataRegion(new DataRegionConfig(4096, 256L << 20,
                        Math.max(1L << 30, entries * 400L)), binary, new HeldChangesBudget(heldLimit))) {
                    PartitionStore[] partitions = new PartitionStore[CacheConfig.DEFAULT_PARTITIONS];
                    for (int p = 0; p < partitions.length; p++) {
                        partitions[p] = way == 0 ? region.createPartition()
                                : region.createPartition(StoreJournal.NONE, IndexBatchBenchmark.INDEXES);
                    }
                    long start = cpu.getCurrentThreadCpuTime();
                    load(partitions, batches, way);
                    long took = cpu.getCurrentThreadCpuTime() - start;
                    long size = 0;
                    for (PartitionStore p : partitions) {
                        size += p.size();
                    }
                    if (size != entries) {
                        throw new IllegalStateException("loaded " + entries + " entries, the partitions hold " + size);
                    }
                    if (round >= 0) {
                        nsPerEntry[way][round] = (double) took / entries;
                    }
                    System.out.printf("round %d %-6s %7.1f ns of CPU per entry%s%n", round, WAYS[way],
                            (double) took / entries, round < 0 ? " (warm-up)" : "");
                }
            }
        }
        double none = median(nsPerEntry[0]);
        double sorted = median(nsPerEntry[1]);
        double each = median(nsPerEntry[2]);
        System.out.printf("median of %d: none %.1f, sorted %.1f, each %.1f ns per entry; with/without %.0f%%;"
                + " index pass %.2fx (the indexes' extra: sorted %.1f, each %.1f ns per entry)%n", rounds, none,
                sorted, each, 100 * none / sorted, (each - none) / (sorted - none), sorted - none, each - none);
    }

    /** A batch and the partition it goes to. */
    private record Sealed(int partition, EntryBatch batch) {
    }

    private static void load(PartitionStore[] partitions, List<Sealed> batches, int way) {
        for (Sealed s : batches) {
            IndexBatchBenchmark.apply(partitions[s.partition()], s.batch(), way);
        }
        if (way == 1) {
            for (PartitionStore p : partitions) {
                p.index().applyHeld();
            }
        }
    }

    /** The batches a streamer seals for keys 0 .. entries - 1 with the default options, in the order it seals them. */
    private static List<Sealed> sealedBatches(BinaryContext binary, int entries, int partitions, int batchSize) {
        BinaryObjectBuilder builder = binary.builder("StockOrder");
        GrowableBuffer[] open = new GrowableBuffer[partitions];
        int[] counts = new int[partitions];
        List<Sealed> sealed = new ArrayList<>();
        GrowableBuffer key = new GrowableBuffer(16);
        GrowableBuffer value = new GrowableBuffer(256);
        for (long k = 0; k < entries; k++) {
            key.reset();
            binary.encode(k, key);
            value.reset();
            binary.encode(IndexBench.order(builder, k), value);
            int p = Partitioner.partition(key.array(), 0, key.position(), partitions);
            if (open[p] == null) {
                open[p] = new GrowableBuffer(batchSize * 128);
            }
            EntryBatch.appendHeader(open[p], key.position(), value.position());
            open[p].putBytes(key.array(), 0, key.position());
            open[p].putBytes(value.array(), 0, value.position());
            if (++counts[p] == batchSize) {
                sealed.add(new Sealed(p, new EntryBatch(open[p].toByteArray(), open[p].position(), batchSize)));
                open[p].reset();
                counts[p] = 0;
            }
        }
        for (int p = 0; p < partitions; p++) {
            if (counts[p] > 0) {
                sealed.add(new Sealed(p, new EntryBatch(open[p].toByteArray(), open[p].position(), counts[p])));
            }
        }
        return sealed;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
