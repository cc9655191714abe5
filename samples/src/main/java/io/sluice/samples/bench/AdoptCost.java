package io.sluice.samples.bench;

import io.sluice.binary.internal.BinaryContext;
import io.sluice.node.internal.cluster.PartitionFileSupplier;
import io.sluice.pagestore.internal.BatchMode;
import io.sluice.pagestore.internal.DataRegion;
import io.sluice.pagestore.internal.DataRegionConfig;
import io.sluice.pagestore.internal.EntryImage;
import io.sluice.pagestore.internal.PartitionStore;
import io.sluice.pagestore.internal.StoreJournal;
import io.sluice.pagestore.internal.checkpoint.CheckpointLoader;
import io.sluice.pagestore.internal.checkpoint.PartitionFile;
import io.sluice.pagestore.internal.index.IndexSpec;
import io.sluice.protocol.internal.EntryBatch;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;

/**
 * What adopting a partition file costs per entry (issue 28), at the store, without the node or the log: N StockOrders
 * under random long keys written as one partition file (the checkpoint format a move sends), then, alternating in
 * one JVM, into fresh partitions of one region:
 * <ul>
 *   <li>{@code adopt}: {@link CheckpointLoader#adopt} (what a demander runs: the store's bulk build of an empty
 *       partition from the file's sorted entries);</li>
 *   <li>{@code batches}: {@link CheckpointLoader#adoptByBatches}: the same file applied as sorted insert-if-absent
 *       batches through the normal batch write path (the adoption before the bulk build);</li>
 *   <li>{@code apply}: the same entries as {@link PartitionStore#applyBatch} batches of 4096 in random key order (a
 *       move by entries' store work, without its network and log).</li>
 * </ul>
 * Each with and without two field indexes (secCode, account; varied values). Prints the median thread CPU and wall
 * time per entry of each. Arguments: entries (default 1,000,000), rounds (default 5), {@code indexes}
 * ({@code none}, {@code two} or {@code both}, default {@code both}).
 */
public final class AdoptCost {

    private static final List<IndexSpec> INDEXES = List.of(new IndexSpec(0, List.of("secCode")),
            new IndexSpec(1, List.of("account")));
    private static final int BATCH = 4096;

    private AdoptCost() {
    }

    public static void main(String[] args) throws IOException {
        int entries = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        String which = args.length > 2 ? args[2] : "both";
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        BinaryContext binary = new BinaryContext();
        EntryBatch[] batches = batches(binary, entries);
        Path file = Files.createTempFile("adopt-cost-", ".dat");
        try (DataRegion region = new DataRegion(new DataRegionConfig(4096, 256L << 20, 6L << 30), binary)) {
            writeFile(region, batches, file);
            System.out.printf("%,d StockOrders, file %.1f MB%n", entries, Files.size(file) / 1e6);
            String[] variants = {"adopt", "batches", "apply"};
            for (boolean indexed : which.equals("both") ? new boolean[] {false, true}
                    : new boolean[] {which.equals("two")}) {
                long[][] cpuNanos = new long[variants.length][rounds];
                long[][] wallNanos = new long[variants.length][rounds];
                for (int r = -1; r < rounds; r++) { // round -1 warms up
                    for (int v = 0; v < variants.length; v++) {
                        PartitionStore p = indexed ? region.createPartition(StoreJournal.NONE, INDEXES)
                                : region.createPartition();
                        long c0 = cpu.getCurrentThreadCpuTime();
                        long w0 = System.nanoTime();
                        long loaded = switch (v) {
                            case 0 -> CheckpointLoader.adopt(p, 0, file, "x");
                            case 1 -> CheckpointLoader.adoptByBatches(p, 0, file, "x");
                            default -> apply(p, batches);
                        };
                        long w = System.nanoTime() - w0;
                        long c = cpu.getCurrentThreadCpuTime() - c0;
                        if (loaded != entries || p.size() != entries) {
                            throw new IllegalStateException(variants[v] + ": " + loaded + " / " + p.size());
                        }
                        if (r >= 0) {
                            cpuNanos[v][r] = c;
                            wallNanos[v][r] = w;
                        }
                        p.destroy();
                    }
                }
                double[] cpuMedian = new double[variants.length];
                for (int v = 0; v < variants.length; v++) {
                    Arrays.sort(cpuNanos[v]);
                    Arrays.sort(wallNanos[v]);
                    cpuMedian[v] = (double) cpuNanos[v][rounds / 2] / entries;
                    System.out.printf("%-5s %-8s CPU %7.1f ns/entry (%7.1f-%7.1f)  wall %7.1f ns/entry%n",
                            indexed ? "2 idx" : "no idx", variants[v], cpuMedian[v],
                            (double) cpuNanos[v][0] / entries, (double) cpuNanos[v][rounds - 1] / entries,
                            (double) wallNanos[v][rounds / 2] / entries);
                }
                System.out.printf("%-5s adopt vs batches %.2fx, adopt vs apply %.2fx (CPU, medians of %d rounds)%n",
                        indexed ? "2 idx" : "no idx", cpuMedian[1] / cpuMedian[0], cpuMedian[2] / cpuMedian[0],
                        rounds);
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    private static long apply(PartitionStore p, EntryBatch[] batches) {
        for (EntryBatch b : batches) {
            p.applyBatch(b, BatchMode.INSERT_IF_ABSENT);
        }
        return p.size();
    }

    /** The entries loaded into a partition, copied out in key order and written as a partition file. */
    private static void writeFile(DataRegion region, EntryBatch[] batches, Path file) throws IOException {
        PartitionStore p = region.createPartition();
        apply(p, batches);
        EntryImage image = new EntryImage();
        p.copyIfChanged(-1, image);
        p.destroy();
        try (FileChannel out = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            PartitionFile.write(out, 1, 0, 1, image, PartitionFileSupplier.LEVEL); // as a moved file's blocks
        }
    }

    /** StockOrders under random keys, 40 security codes and 5,000 accounts, in batches of {@value #BATCH}. */
    private static EntryBatch[] batches(BinaryContext binary, int entries) {
        return StockOrderBatches.make(binary, entries, BATCH, true, false);
    }
}
