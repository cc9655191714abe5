package io.sluice.node.internal;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.IndexQuery;
import io.sluice.node.NodeConfig;
import io.sluice.node.PersistenceConfig;
import io.sluice.node.WalMode;
import io.sluice.node.internal.IndexQueryNodeTest.Order;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static io.sluice.node.internal.IndexQueryNodeTest.keys;
import static io.sluice.node.internal.IndexQueryNodeTest.model;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A partition file written by another node (the real checkpoint writer of a second node in this JVM, whose cache id
 * and checkpoint numbers differ from the receiver's) adopted in place of the receiver's partitions: contents and
 * index answers equal the sender's, stale entries gone; the ADOPT record brings it back after a crash (a copy of the
 * live node's directory under LOG_ONLY, as {@link NodeCheckpointTest} takes one: what a kill -9 would leave), with
 * the writes logged after it; a checkpoint frees the adopted files; a damaged file leaves the partition empty (also
 * after a restart) and is deleted; leftovers in the moves directory are deleted at start.
 */
@Timeout(120)
class PartitionAdoptionTest {

    private static final int PARTITIONS = 4;

    @TempDir
    Path senderDir;
    @TempDir
    Path dir;
    @TempDir
    Path crashed;

    private NodeEngine sender;
    private NodeEngine node;

    @AfterEach
    void close() {
        for (NodeEngine n : new NodeEngine[] {sender, node}) {
            if (n != null) {
                n.close();
            }
        }
    }

    private static NodeEngine start(Path directory) {
        return new NodeEngine(NodeEngineTest.smallNode().persistence(PersistenceConfig.at(directory)
                .withWalMode(WalMode.LOG_ONLY).withWalSegmentSize(1 << 20)
                .withCheckpointInterval(Duration.ofHours(1)).withCheckOnRecovery(true)).build());
    }

    private static CacheConfig orders() {
        return CacheConfig.named("orders").withPartitions(PARTITIONS).index("secCode").index("account", "price");
    }

    /**
     * The sender's orders, checkpointed: its cache "orders" has id 1 (a cache made before it has 0), unlike the
     * receiver's, and its files are those of checkpoint 1.
     */
    private Map<Long, Order> startSender(int n) throws IOException {
        sender = start(senderDir);
        sender.createCache(CacheConfig.named("before").withPartitions(2));
        sender.createCache(orders());
        Map<Long, Order> orders = IndexQueryNodeTest.orders(n, 5);
        try (DataStreamer<Long, Order> s = sender.dataStreamer("orders")) {
            orders.forEach(s::addData);
        }
        sender.checkpoint();
        return orders;
    }

    /** The sender's file of the partition, as a transfer would write it into the receiver's incoming path. */
    private Path transfer(int partition, NodeEngine to) throws IOException {
        Path file;
        try (Stream<Path> files = Files.list(senderDir)) {
            file = files.filter(f -> f.getFileName().toString().startsWith("part-c1-p" + partition + "-"))
                    .findFirst().orElseThrow();
        }
        Path incoming = to.partitionAdoption().incomingFile("orders", partition);
        Files.copy(file, incoming);
        return incoming;
    }

    private long adoptAll(NodeEngine to) throws IOException {
        long total = 0;
        for (int p = 0; p < PARTITIONS; p++) {
            total += to.partitionAdoption().adopt("orders", p, transfer(p, to));
        }
        return total;
    }

    /** Receiver entries that the adoption must replace: other keys, and some of the sender's with other values. */
    private static void writeStale(NodeEngine to) {
        Cache<Long, Order> cache = to.getOrCreateCache(orders());
        Map<Long, Order> stale = IndexQueryNodeTest.orders(3_000, 77);
        try (DataStreamer<Long, Order> s = to.dataStreamer("orders")) {
            stale.forEach((k, v) -> s.addData(k * 3 + 1_000_000, v));
            stale.forEach((k, v) -> s.addData(k, v));
        }
        cache.remove(5L);
    }

    private static Map<Long, Order> contents(Cache<Long, Order> cache) {
        try (Stream<Map.Entry<Long, Order>> all = cache.scan()) {
            return all.collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, TreeMap::new));
        }
    }

    private static void assertAnswers(Cache<Long, Order> cache, Map<Long, Order> orders) {
        assertThat(contents(cache)).isEqualTo(new TreeMap<>(orders));
        assertThat(cache.size()).isEqualTo(orders.size());
        for (String code : IndexQueryNodeTest.CODES) {
            assertThat(keys(cache.query(IndexQuery.on("secCode").eq(code))))
                    .isEqualTo(model(orders, o -> o.secCode().equals(code), Comparator.comparing(Order::secCode)));
        }
        assertThat(keys(cache.query(IndexQuery.on("account", "price").eq("A4").lt(50.0))))
                .isEqualTo(model(orders, o -> o.account().equals("A4") && o.price() < 50,
                        Comparator.comparing(Order::account).thenComparingDouble(Order::price)));
    }

    /** The live node's files, the moves directory's too, as a kill -9 now would leave them (the lock excepted). */
    private void copyDirectoryTo(Path target) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.toList()) {
                Path to = target.resolve(dir.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(to);
                } else if (!f.getFileName().toString().equals("lock")) {
                    Files.copy(f, to, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    private static List<String> moves(Path directory) throws IOException {
        Path moves = directory.resolve("moves");
        if (!Files.isDirectory(moves)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(moves)) {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void adoptedPartitionsHoldTheSendersEntriesAndAnswerIndexQueries() throws IOException {
        Map<Long, Order> orders = startSender(6_000);
        node = start(dir);
        writeStale(node);

        long loaded = adoptAll(node);

        assertThat(loaded).isEqualTo(orders.size());
        assertAnswers(node.cache("orders"), orders);
        assertThat(node.checkConsistency().ok()).isTrue();
        // Each adopted file is in the moves directory, named by the log, until a checkpoint holds its partition; the
        // receiver's cache id is 0, the sender's (in the files' headers) 1.
        assertThat(moves(dir)).hasSize(PARTITIONS).allMatch(n -> n.startsWith("adopt-c0-p") && n.endsWith(".dat"));
    }

    @Test
    void aNodeInMemoryAdoptsAndDeletesTheFile() throws IOException {
        Map<Long, Order> orders = startSender(3_000);
        node = new NodeEngine(NodeEngineTest.smallNode().build());
        writeStale(node);
        List<Path> incoming = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            Path file = transfer(p, node);
            incoming.add(file);
            node.partitionAdoption().adopt("orders", p, file);
            assertThat(file).doesNotExist();
        }
        assertAnswers(node.cache("orders"), orders);
        Path temporary = incoming.get(0).getParent();
        node.close();
        node = null;
        assertThat(temporary).doesNotExist();
    }

    @Test
    void aCrashAfterAdoptionReplaysItThenTheWritesLoggedAfterIt() throws IOException {
        Map<Long, Order> orders = new HashMap<>(startSender(6_000));
        node = start(dir);
        writeStale(node);
        node.checkpoint(); // the stale entries are in the checkpoint too: the replayed adoption must replace them
        adoptAll(node);
        Cache<Long, Order> cache = node.cache("orders");
        Map<Long, Order> later = IndexQueryNodeTest.orders(300, 99);
        for (Map.Entry<Long, Order> e : later.entrySet()) {
            cache.put(e.getKey() * 11, e.getValue());
            orders.put(e.getKey() * 11, e.getValue());
        }
        for (long k = 2; k < 6_000; k += 17) {
            cache.remove(k);
            orders.remove(k);
        }
        assertAnswers(cache, orders);
        copyDirectoryTo(crashed);
        node.close();
        node = null;

        node = start(crashed);
        assertAnswers(node.cache("orders"), orders);
        assertThat(moves(crashed)).hasSize(PARTITIONS); // the log still names them until a checkpoint
        node.checkpoint();
        assertThat(moves(crashed)).isEmpty();
        node.close();
        node = start(crashed);
        assertAnswers(node.cache("orders"), orders);
    }

    @Test
    void aCheckpointPastTheAdoptionDeletesItsFileAndTheDataStays() throws IOException {
        Map<Long, Order> orders = startSender(6_000);
        node = start(dir);
        writeStale(node);
        adoptAll(node);
        assertThat(moves(dir)).hasSize(PARTITIONS);

        node.checkpoint();

        assertThat(moves(dir)).isEmpty();
        copyDirectoryTo(crashed);
        node.close(); // a clean stop: another checkpoint
        node = null;
        for (Path restartFrom : List.of(crashed, dir)) {
            node = start(restartFrom);
            assertAnswers(node.cache("orders"), orders);
            node.close();
            node = null;
        }
    }

    @Test
    void aDamagedFileFailsLeavesThePartitionEmptyAndIsDeleted() throws IOException {
        startSender(6_000);
        node = start(dir);
        writeStale(node);
        assertThat(node.nodeCache("orders").store(2).size()).isPositive();
        Path file = transfer(2, node);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            long at = 40 + 16 + 100; // inside the first block's payload
            raf.seek(at);
            int b = raf.read();
            raf.seek(at);
            raf.write(b ^ 0x40);
        }

        assertThatThrownBy(() -> node.partitionAdoption().adopt("orders", 2, file))
                .isInstanceOf(IOException.class).hasMessageContaining("CRC32C");

        assertThat(node.nodeCache("orders").store(2).size()).isZero();
        assertThat(file).doesNotExist();
        assertThat(moves(dir)).isEmpty();
        assertThat(node.checkConsistency().ok()).isTrue();
        Map<Long, Order> left = contents(node.cache("orders"));
        assertAnswers(node.cache("orders"), left); // the indexes lost the partition's entries too
        // The partition stays empty after a crash: the log says it was emptied, the stale entries do not come back.
        copyDirectoryTo(crashed);
        node.close();
        node = start(crashed);
        assertThat(node.nodeCache("orders").store(2).size()).isZero();
        assertAnswers(node.cache("orders"), left);
    }

    @Test
    void aFileCutShortFailsLeavesThePartitionEmptyAndIsDeleted() throws IOException {
        startSender(6_000);
        node = start(dir);
        writeStale(node);
        Path file = transfer(2, node);
        long size = Files.size(file);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.setLength(size - 40); // the end block's header and part of the last block: read block by block
        }

        assertThatThrownBy(() -> node.partitionAdoption().adopt("orders", 2, file))
                .isInstanceOf(IOException.class).hasMessageContaining("position");

        assertThat(node.nodeCache("orders").store(2).size()).isZero();
        assertThat(file).doesNotExist();
        assertThat(moves(dir)).isEmpty();
        assertThat(node.checkConsistency().ok()).isTrue();
    }

    @Test
    void aFileOfAnotherPartitionIsRefused() throws IOException {
        startSender(2_000);
        node = start(dir);
        writeStale(node);
        Path fileOf1 = transfer(1, node);
        assertThatThrownBy(() -> node.partitionAdoption().adopt("orders", 3, fileOf1))
                .isInstanceOf(IOException.class).hasMessageContaining("expected partition 3");
        assertThat(node.nodeCache("orders").store(3).size()).isZero();
        assertThat(fileOf1).doesNotExist();
    }

    @Test
    void leftoversInTheMovesDirectoryAreDeletedAtStart() throws IOException {
        startSender(2_000);
        node = start(dir);
        node.createCache(orders());
        Path unfinished = node.partitionAdoption().incomingFile("orders", 1);
        Files.write(unfinished, new byte[] {1, 2, 3});
        Path unlogged = dir.resolve("moves").resolve("adopt-c0-p1-crashed-before-its-record.dat");
        Files.copy(transfer(1, node), unlogged); // renamed, but the crash came before its ADOPT record
        node.close();
        node = null;
        assertThat(moves(dir)).hasSize(3);

        node = start(dir);

        assertThat(moves(dir)).isEmpty();
    }

    @Test
    void unknownCachesAndPartitionsAreRefused() throws IOException {
        node = new NodeEngine(NodeConfig.builder().build());
        node.createCache(CacheConfig.named("c").withPartitions(2));
        assertThatThrownBy(() -> node.partitionAdoption().incomingFile("none", 0))
                .isInstanceOf(io.sluice.CacheNotFoundException.class);
        assertThatThrownBy(() -> node.partitionAdoption().incomingFile("c", 2))
                .isInstanceOf(IllegalArgumentException.class);
        Path file = node.partitionAdoption().incomingFile("c", 1);
        Files.write(file, new byte[] {1});
        assertThatThrownBy(() -> node.partitionAdoption().adopt("none", 1, file))
                .isInstanceOf(io.sluice.CacheNotFoundException.class);
        assertThat(file).doesNotExist();
    }
}
