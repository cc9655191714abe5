package io.sluice.node.internal.cluster;

import io.sluice.CacheConfig;
import io.sluice.node.ClusterConfig;
import io.sluice.node.NodeConfig;
import io.sluice.node.PersistenceConfig;
import io.sluice.node.internal.NodeCache;
import io.sluice.node.internal.PartitionAdoption;
import io.sluice.pagestore.internal.PartitionStore;
import io.sluice.pagestore.internal.StoreCursor;
import io.sluice.server.internal.ServerConfig;
import io.sluice.server.internal.TlsConfig;
import io.sluice.testing.TestCertificates;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Partitions moved as their files (PARTITION_FILE) between real nodes in this JVM (engine + server on 127.0.0.1,
 * real files), the cluster in memory: the file path, its checks and its fallbacks. A demander in memory is told to
 * move by files (it would move by entries: {@code ClusterNode.movesBy}).
 */
@Timeout(120)
class PartitionFileMoveTest {

    private static final int PARTITIONS = 4;
    private static final String CACHE = "orders";

    @Test
    void aPartitionMovedByFileEqualsItsSource() throws Exception {
        try (TwoNodes c = new TwoNodes(PARTITIONS)) {
            TwoNodes.Node a = c.start("a");
            c.cluster.assign("a");
            NodeCache<Object, Object> onA = load(a, 20_000, 50, CacheConfig.named(CACHE));
            Watched adoption = new Watched();
            TwoNodes.Node b = c.start("b", cfg -> cfg, n -> n.moveMethod(ClusterConfig.MoveMethod.FILES).partitionAdoption(adoption.adoption())
                    .fileChunkSize(PartitionFileWire.MIN_CHUNK));
            adoption.of(b);
            List<String> source = entries(onA.store(1));

            c.cluster.move(1, "b");

            NodeCache<Object, Object> onB = b.engine().nodeCache(CACHE);
            assertThat(entries(onB.store(1))).isEqualTo(source);
            assertThat(onB.store(1).size()).isEqualTo(source.size());
            assertThat(adoption.adopted).hasValue(1); // by file, not by entries
            MoveStats sent = a.cluster().joinedParts().moves();
            MoveStats received = b.cluster().joinedParts().moves();
            // The supplier counts a chunk once its write completed, which may be after the demander counted it.
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
                    assertThat(received.bytesReceived()).isPositive().isEqualTo(sent.bytesSent()));
            assertThat(received.bytesReceived()).isGreaterThan(4L * PartitionFileWire.MIN_CHUNK); // several chunks
            await().atMost(Duration.ofSeconds(10)).until(() -> sent.transfers().isEmpty()
                    && received.transfers().isEmpty());
            adoption.assertNoIncomingLeft();
        }
    }

    @Test
    void partitionsMovedByFileOneAfterAnotherEachEqualTheirSource() throws Exception {
        try (TwoNodes c = new TwoNodes(PARTITIONS)) {
            TwoNodes.Node a = c.start("a");
            c.cluster.assign("a");
            NodeCache<Object, Object> onA = load(a, 20_000, 50, CacheConfig.named(CACHE));
            Watched adoption = new Watched();
            TwoNodes.Node b = c.start("b", cfg -> cfg, n -> n.moveMethod(ClusterConfig.MoveMethod.FILES)
                    .partitionAdoption(adoption.adoption()));
            adoption.of(b);
            List<List<String>> sources = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                sources.add(entries(onA.store(p)));
            }

            // The supplier copies each partition into an image kept from its earlier sends: none may carry over.
            for (int p = 0; p < PARTITIONS; p++) {
                c.cluster.move(p, "b");
            }

            NodeCache<Object, Object> onB = b.engine().nodeCache(CACHE);
            for (int p = 0; p < PARTITIONS; p++) {
                assertThat(entries(onB.store(p))).as("partition %d", p).isEqualTo(sources.get(p));
            }
            assertThat(adoption.adopted).hasValue(PARTITIONS);
        }
    }

    @Test
    void aPersistentNodeAdoptsTheFileAndKeepsItAfterARestart(@TempDir Path dir) throws Exception {
        List<String> source;
        try (TwoNodes c = new TwoNodes(PARTITIONS)) {
            TwoNodes.Node a = c.start("a");
            c.cluster.assign("a");
            NodeCache<Object, Object> onA = load(a, 20_000, 50, CacheConfig.named(CACHE));
            Watched adoption = new Watched();
            TwoNodes.Node b = c.start("b", cfg -> cfg.persistence(PersistenceConfig.at(dir)),
                    n -> n.moveMethod(ClusterConfig.MoveMethod.FILES).partitionAdoption(adoption.adoption()));
            adoption.of(b);
            source = entries(onA.store(2));

            c.cluster.move(2, "b");

            assertThat(entries(b.engine().nodeCache(CACHE).store(2))).isEqualTo(source);
            assertThat(adoption.adopted).hasValue(1);
            c.stop(b);
        }
        try (var restarted = new io.sluice.node.internal.NodeEngine(NodeConfig.builder()
                .dataRegionMaxSize(128L << 20).persistence(PersistenceConfig.at(dir)).build())) {
            assertThat(entries(restarted.nodeCache(CACHE).store(2))).isEqualTo(source);
        }
    }

    @Test
    void aNodeInMemoryMovesByEntriesUnlessTold() throws Exception {
        try (TwoNodes c = new TwoNodes(PARTITIONS)) {
            TwoNodes.Node a = c.start("a");
            c.cluster.assign("a");
            NodeCache<Object, Object> onA = load(a, 4_000, 50, CacheConfig.named(CACHE));
            TwoNodes.Node b = c.start("b");
            List<String> source = entries(onA.store(1));

            c.cluster.move(1, "b");

            assertThat(entries(b.engine().nodeCache(CACHE).store(1))).isEqualTo(source);
            assertThat(a.cluster().joinedParts().moves().bytesSent()).isZero();
        }
    }

    @Test
    void aPartitionMovesByFileBetweenMembersSpeakingTls(@TempDir Path dir) throws Exception {
        TestCertificates certs = TestCertificates.make(dir, "node");
        Path keys = certs.keyStore();
        Path cert = certs.certificate();
        UnaryOperator<ServerConfig> tls = s -> s.withTls(new TlsConfig(keys, "changeit")).withToken("s3cret");
        PeerAccess access = new PeerAccess("s3cret", true, cert);
        try (TwoNodes c = new TwoNodes(PARTITIONS)) {
            TwoNodes.Node a = c.start("a", cfg -> cfg, tls, n -> n.peerAccess(access));
            c.cluster.assign("a");
            NodeCache<Object, Object> onA = load(a, 8_000, 100, CacheConfig.named(CACHE));
            Watched adoption = new Watched();
            TwoNodes.Node b = c.start("b", cfg -> cfg, tls, n -> n.peerAccess(access)
                    .moveMethod(ClusterConfig.MoveMethod.FILES).partitionAdoption(adoption.adoption()).fileChunkSize(16 << 10));
            adoption.of(b);
            List<String> source = entries(onA.store(1));

            c.cluster.move(1, "b");

            assertThat(entries(b.engine().nodeCache(CACHE).store(1))).isEqualTo(source);
            assertThat(adoption.adopted).hasValue(1); // by file, through TLS (the chunks copied, not sendfile)
            assertThat(b.cluster().joinedParts().moves().bytesReceived()).isGreaterThan(16 << 10);
            adoption.assertNoIncomingLeft();
        }
    }

    @Test
    void aCorruptedChunkIsDetectedAndTheEntriesArePulledInstead() throws Exception {
        try (TwoNodes c = new TwoNodes(PARTITIONS)) {
            TwoNodes.Node a = c.start("a");
            c.cluster.assign("a");
            NodeCache<Object, Object> onA = load(a, 20_000, 50, CacheConfig.named(CACHE));
            List<Path> written = new CopyOnWriteArrayList<>();
            // After its CRCs were computed, before it is sent: one byte of the real file on disk flipped.
            a.cluster().joinedParts().files().afterWrite = file -> {
                written.add(file);
                flipByte(file, Files.exists(file) ? sizeOf(file) / 2 : 0);
            };
            Watched adoption = new Watched();
            TwoNodes.Node b = c.start("b", cfg -> cfg, n -> n.moveMethod(ClusterConfig.MoveMethod.FILES).partitionAdoption(adoption.adoption())
                    .fileChunkSize(PartitionFileWire.MIN_CHUNK));
            adoption.of(b);
            List<String> source = entries(onA.store(0));

            c.cluster.move(0, "b");

            assertThat(entries(b.engine().nodeCache(CACHE).store(0))).isEqualTo(source);
            assertThat(written).hasSize(1);
            assertThat(adoption.incoming).hasSize(1);
            assertThat(adoption.adopted).hasValue(0); // the damage was found in transfer; the entries were pulled
            adoption.assertNoIncomingLeft();
            await().atMost(Duration.ofSeconds(10)).until(() -> !Files.exists(written.get(0)));
        }
    }

    @Test
    void aSendWaitingForTheRateEndsWhenTheDemanderHangsUp() throws Exception {
        try (TwoNodes c = new TwoNodes(PARTITIONS)) {
            // 'a' sends 1 KiB/s in 64 KiB chunks: the first chunk goes at once, the second would wait a minute.
            TwoNodes.Node a = supplierAt(c, 1 << 10);
            c.cluster.assign("a");
            NodeCache<Object, Object> onA = load(a, 4_000, 200, CacheConfig.named(CACHE));
            List<Path> written = new CopyOnWriteArrayList<>();
            a.cluster().joinedParts().files().afterWrite = file -> {
                written.add(file);
                flipByte(file, 100); // in the first chunk: 'b' hangs up after it
            };
            Watched adoption = new Watched();
            TwoNodes.Node b = c.start("b", cfg -> cfg, n -> n.moveMethod(ClusterConfig.MoveMethod.FILES)
                    .partitionAdoption(adoption.adoption()).fileChunkSize(64 << 10));
            adoption.of(b);
            List<String> source = entries(onA.store(0));

            c.cluster.move(0, "b"); // the first chunk fails its check; 'b' pulls the entries

            assertThat(entries(b.engine().nodeCache(CACHE).store(0))).isEqualTo(source);
            assertThat(adoption.adopted).hasValue(0);
            assertThat(written).hasSize(1);
            // The send waiting out its second chunk's minute ends when 'b' closes the connection: the file goes.
            await().atMost(Duration.ofSeconds(20)).until(() -> !Files.exists(written.get(0)));
            assertThat(a.cluster().joinedParts().moves().bytesSent()).isLessThan(128 << 10);
        }
    }

    @Test
    void theSupplierGoingAwayMidTransferLeavesItToAnotherCopyInSync() throws Exception {
        try (TwoNodes c = new TwoNodes(PARTITIONS)) {
            // 'a' sends slowly (64 KiB/s in 16 KiB chunks): the transfer is under way long enough to stop 'a'.
            TwoNodes.Node a = supplierAt(c, 64 << 10);
            c.cluster.assign("a");
            NodeCache<Object, Object> onA = load(a, 4_000, 200, CacheConfig.named(CACHE).withBackups(1));
            TwoNodes.Node x = c.start("x");
            c.cluster.addBackup(3, "x");
            await().atMost(Duration.ofSeconds(20)).until(() ->
                    x.cluster().joinedParts().backup().state(3) == BackupReplication.IN_SYNC);
            Watched adoption = new Watched();
            TwoNodes.Node b = c.start("b", cfg -> cfg, n -> n.moveMethod(ClusterConfig.MoveMethod.FILES).partitionAdoption(adoption.adoption())
                    .fileChunkSize(16 << 10));
            adoption.of(b);
            List<String> source = entries(onA.store(3));
            MoveStats sent = a.cluster().joinedParts().moves();

            CompletableFuture<Void> move = CompletableFuture.runAsync(() -> {
                try {
                    c.cluster.move(3, "b");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, r -> new Thread(r, "test-move").start());
            await().atMost(Duration.ofSeconds(20)).until(() -> sent.bytesSent() > 0);
            a.server().closeConnections(); // the supplier goes away mid-transfer (its connections closed)
            move.get(60, TimeUnit.SECONDS);

            assertThat(entries(b.engine().nodeCache(CACHE).store(3))).isEqualTo(source);
            assertThat(adoption.incoming).hasSize(2); // from 'a', cut short; then from 'x', whole
            assertThat(adoption.adopted).hasValue(1);
            assertThat(x.cluster().joinedParts().moves().bytesSent()).isPositive();
            adoption.assertNoIncomingLeft();
        }
    }

    @Test
    void aFullDiskOnTheDemanderFallsBackToEntriesAndLeavesNothingBehind(@TempDir Path dir) throws Exception {
        Path moves = Files.createDirectories(dir.resolve("moves"));
        Assumptions.assumeTrue(mount(moves), "a 2 MiB tmpfs cannot be mounted here (needs root and mount): "
                + "the demander's disk cannot be filled");
        try (TwoNodes c = new TwoNodes(PARTITIONS)) {
            TwoNodes.Node a = c.start("a");
            c.cluster.assign("a");
            // About 3 MiB per partition of incompressible values: more than the 2 MiB the demander has.
            NodeCache<Object, Object> onA = load(a, 12_000, 1_000, CacheConfig.named(CACHE));
            Watched adoption = new Watched();
            TwoNodes.Node b = c.start("b", cfg -> cfg.persistence(PersistenceConfig.at(dir)),
                    n -> n.moveMethod(ClusterConfig.MoveMethod.FILES).partitionAdoption(adoption.adoption()));
            adoption.of(b);
            List<String> source = entries(onA.store(1));

            c.cluster.move(1, "b");

            assertThat(entries(b.engine().nodeCache(CACHE).store(1))).isEqualTo(source);
            assertThat(adoption.incoming).hasSize(1);
            assertThat(adoption.adopted).hasValue(0);
            try (var left = Files.list(moves)) {
                assertThat(left).isEmpty();
            }
        } finally {
            new ProcessBuilder("umount", moves.toString()).inheritIO().start().waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void theSendKeepsToTheNodesRate() throws Exception {
        try (TwoNodes c = new TwoNodes(PARTITIONS)) {
            TwoNodes.Node a = supplierAt(c, 1 << 20);
            c.cluster.assign("a");
            // About 4.3 MiB per partition of incompressible values.
            NodeCache<Object, Object> onA = load(a, 18_000, 1_000, CacheConfig.named(CACHE));
            TwoNodes.Node b = c.start("b", cfg -> cfg, n -> n.moveMethod(ClusterConfig.MoveMethod.FILES));
            List<String> source = entries(onA.store(2));

            long start = System.nanoTime();
            c.cluster.move(2, "b");
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

            MoveStats supplier = a.cluster().joinedParts().moves();
            // Counted once each chunk's write completed: the last may be counted just after the move returned.
            await().atMost(Duration.ofSeconds(10)).until(() -> supplier.bytesSent() > 4L << 20);
            // At 1 MiB/s, more than 4 MiB takes about 4 s: at least 2 s, loosely.
            assertThat(millis).isGreaterThanOrEqualTo(2_000);
            assertThat(entries(b.engine().nodeCache(CACHE).store(2))).isEqualTo(source);
        }
    }

    /** Starts node 'a', which sends partition files at most {@code bytesPerSecond}. */
    private static TwoNodes.Node supplierAt(TwoNodes c, long bytesPerSecond) {
        return c.start("a", cfg -> cfg.cluster(ClusterConfig.of("127.0.0.1:2181", "test", "a")
                .withMoveBytesPerSecond(bytesPerSecond)));
    }

    /** The node's own adoption, watched: the incoming files it gave out and how many it adopted. */
    private static final class Watched {
        final List<Path> incoming = new CopyOnWriteArrayList<>();
        final AtomicInteger adopted = new AtomicInteger();
        final AtomicReference<PartitionAdoption> inner = new AtomicReference<>();

        /** Around the node's own adoption, which {@link #of} names once the node has started. */
        PartitionAdoption adoption() {
            return new PartitionAdoption() {
                @Override
                public Path incomingFile(String cache, int partition) throws IOException {
                    Path p = inner.get().incomingFile(cache, partition);
                    incoming.add(p);
                    return p;
                }

                @Override
                public long adopt(String cache, int partition, Path file) throws IOException {
                    adopted.incrementAndGet();
                    return inner.get().adopt(cache, partition, file);
                }
            };
        }

        void of(TwoNodes.Node node) {
            inner.set(node.engine().partitionAdoption());
        }

        void assertNoIncomingLeft() {
            for (Path p : incoming) {
                assertThat(p).doesNotExist();
            }
        }
    }

    private static boolean mount(Path dir) throws InterruptedException {
        try {
            Process p = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", dir.toString())
                    .redirectErrorStream(true).start();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        }
    }

    private static long sizeOf(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void flipByte(Path file, long at) {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(at);
            int b = f.read();
            f.seek(at);
            f.write(b ^ 0x40);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Creates the cache through the cluster and puts {@code count} entries of random values of {@code size}. */
    private static NodeCache<Object, Object> load(TwoNodes.Node node, int count, int size, CacheConfig config) {
        NodeCache<Object, Object> cache = node.cluster().createCache(config, true);
        Random random = new Random(42);
        Map<Object, Object> batch = new LinkedHashMap<>();
        for (long k = 0; k < count; k++) {
            byte[] value = new byte[size];
            random.nextBytes(value);
            batch.put(k, value);
            if (batch.size() == 1_000) {
                cache.putAll(batch);
                batch.clear();
            }
        }
        cache.putAll(batch);
        return cache;
    }

    private static List<String> entries(PartitionStore store) {
        List<String> out = new ArrayList<>();
        StoreCursor cursor = store.cursor();
        while (cursor.next()) {
            out.add(HexFormat.of().formatHex(cursor.key()) + "=" + HexFormat.of().formatHex(cursor.value()));
        }
        return out;
    }
}
