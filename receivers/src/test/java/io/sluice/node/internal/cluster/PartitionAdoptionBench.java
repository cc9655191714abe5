package io.sluice.node.internal.cluster;

import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.node.NodeConfig;
import io.sluice.node.PersistenceConfig;
import io.sluice.node.internal.NodeEngine;
import io.sluice.pagestore.internal.StoreCursor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The load rate of {@code PartitionAdoption.adopt} for one partition file of another node (default 1,000,000
 * entries) against applying the same entries as PartitionPull does (logged UPSERT batches of a scan page, 4096
 * entries, through {@link LocalPartitions#apply}, then a wait for durability), on the same persistent receiver, in the
 * same run, alternating. The baseline's pages are in memory before it is timed (the network's part is left out of
 * both). Run with {@code -Dsluice.bench.adoption=true [-Dsluice.bench.adoption.entries=N]}; prints its figures.
 */
@EnabledIfSystemProperty(named = "sluice.bench.adoption", matches = "true")
@Timeout(600)
class PartitionAdoptionBench {

    private static final int ROUNDS = 3;

    @TempDir
    Path senderDir;
    @TempDir
    Path receiverDir;

    private static NodeConfig persistent(Path dir) {
        return NodeConfig.builder().dataRegionInitialSize(64L << 20).dataRegionMaxSize(1536L << 20).applyThreads(2)
                .persistence(PersistenceConfig.at(dir).withCheckpointInterval(Duration.ofHours(1))).build();
    }

    @Test
    void adoptionAgainstLoggedBatches() throws IOException {
        int entries = Integer.getInteger("sluice.bench.adoption.entries", 1_000_000);
        String pad = "-".repeat(40);
        java.util.Random random = new java.util.Random(1); // a random part: the file compresses ~4.7x, not ~17x
        Path file;
        List<List<byte[]>> pages = new ArrayList<>();
        try (NodeEngine sender = new NodeEngine(persistent(senderDir))) {
            sender.createCache(CacheConfig.named("orders").withPartitions(1));
            try (DataStreamer<Long, String> s = sender.dataStreamer("orders")) {
                for (long k = 0; k < entries; k++) {
                    s.addData(k, "value-" + k + "-" + Long.toHexString(random.nextLong()) + pad);
                }
            }
            sender.checkpoint();
            try (Stream<Path> files = Files.list(senderDir)) {
                file = files.filter(f -> f.getFileName().toString().startsWith("part-c0-p0-")).findFirst().orElseThrow();
            }
            file = Files.copy(file, senderDir.resolve("kept.dat"));
            StoreCursor cursor = sender.nodeCache("orders").store(0).cursor();
            List<byte[]> page = new ArrayList<>();
            while (cursor.next()) {
                page.add(cursor.key());
                page.add(cursor.value());
                if (page.size() == 2 * PartitionPull.PAGE) {
                    pages.add(page);
                    page = new ArrayList<>();
                }
            }
            if (!page.isEmpty()) {
                pages.add(page);
            }
        }
        long fileBytes = Files.size(file);
        long entryBytes = 0;
        for (List<byte[]> page : pages) {
            for (byte[] b : page) {
                entryBytes += b.length + 4;
            }
        }
        try (NodeEngine node = new NodeEngine(persistent(receiverDir))) {
            LocalPartitions local = new LocalPartitions(node);
            GrowableBuffer scratch = new GrowableBuffer(1 << 20);
            for (int round = 0; round < ROUNDS; round++) {
                String adopted = "adopted" + round;
                node.createCache(CacheConfig.named(adopted).withPartitions(1));
                Path incoming = node.partitionAdoption().incomingFile(adopted, 0);
                Files.copy(file, incoming);
                long t0 = System.nanoTime();
                long loaded = node.partitionAdoption().adopt(adopted, 0, incoming);
                long adoptNanos = System.nanoTime() - t0;
                assertThat(loaded).isEqualTo(entries);

                String pulled = "pulled" + round;
                node.createCache(CacheConfig.named(pulled).withPartitions(1));
                long t1 = System.nanoTime();
                for (List<byte[]> page : pages) {
                    local.apply(pulled, 0, page, scratch);
                }
                local.awaitDurable();
                long pullNanos = System.nanoTime() - t1;
                assertThat(node.nodeCache(pulled).size()).isEqualTo(entries);

                System.out.printf("round %d: %d entries, file %.1f MB (entries %.1f MB): adopt %d ms = %.0f entries/s,"
                                + " %.1f MB/s of file; logged batches of %d: %d ms = %.0f entries/s; adopt %.2fx%n",
                        round, entries, fileBytes / 1e6, entryBytes / 1e6, adoptNanos / 1_000_000,
                        entries / (adoptNanos / 1e9), fileBytes / 1e6 / (adoptNanos / 1e9), PartitionPull.PAGE,
                        pullNanos / 1_000_000, entries / (pullNanos / 1e9), (double) pullNanos / adoptNanos);
                node.destroyCache(adopted);
                node.destroyCache(pulled);
                node.checkpoint(); // frees the log and the adopted file between rounds
            }
        }
    }
}
