package io.sluice.cachestore.internal;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.CacheStoreConfig;
import io.sluice.CacheStoreException;
import io.sluice.DataStreamer;
import io.sluice.EntryProcessorException;
import io.sluice.MutableEntry;
import io.sluice.Processors;
import io.sluice.ReceiverRef;
import io.sluice.Receivers;
import io.sluice.StreamerException;
import io.sluice.StreamerOptions;
import io.sluice.node.NodeConfig;
import io.sluice.node.PersistenceConfig;
import io.sluice.node.WalMode;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.node.internal.NodeCache;
import io.sluice.node.internal.NodeEngine;
import io.sluice.pagestore.internal.checkpoint.CheckpointDeferredException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** What each store mode does, with a store in a map: every write path, skipStore, failures, read-through, write-behind. */
@Timeout(60)
class CacheStoreModesTest {

    private final AtomicReference<MapStore> lastStore = new AtomicReference<>();
    private NodeEngine node;

    private Cache<Long, String> start(CacheStoreConfig store, int maxBatchSize) {
        node = new NodeEngine(NodeConfig.builder()
                .dataRegionInitialSize(4L << 20)
                .dataRegionMaxSize(128L << 20)
                .applyThreads(2)
                .store("map", () -> {
                    MapStore s = new MapStore(maxBatchSize);
                    lastStore.set(s);
                    return s;
                })
                .processor("append", () -> (MutableEntry<Long, String> e, Object arg) -> {
                    if ("drop".equals(arg)) {
                        e.remove();
                    } else {
                        e.setValue((e.exists() ? e.value() : "") + arg);
                    }
                    return e.exists() ? e.value() : null;
                })
                .receiver("upper", () -> (cache, entries) -> {
                    for (Map.Entry<Object, Object> e : entries) {
                        if (e.getValue() == null) {
                            cache.remove(e.getKey());
                        } else {
                            cache.put(e.getKey(), ((String) e.getValue()).toUpperCase());
                        }
                    }
                })
                .build());
        return node.createCache(CacheConfig.named("c").withPartitions(8).withStore(store));
    }

    private MapStore store() {
        return lastStore.get();
    }

    @AfterEach
    void stop() {
        if (node != null) {
            node.close();
        }
    }

    private static Map<Long, String> values(long from, long to, String prefix) {
        Map<Long, String> m = new LinkedHashMap<>();
        for (long k = from; k < to; k++) {
            m.put(k, prefix + k);
        }
        return m;
    }

    private void stream(Map<Long, String> entries, StreamerOptions options) {
        try (DataStreamer<Long, String> s = node.dataStreamer("c", options)) {
            s.addData(entries);
        }
    }

    @Test
    void anUnknownStoreNameIsAClearError() {
        node = new NodeEngine(NodeConfig.builder().dataRegionInitialSize(1L << 20).applyThreads(1)
                .store("pg", () -> new MapStore(0)).build());
        assertThatThrownBy(() -> node.createCache(CacheConfig.named("c").withStore(CacheStoreConfig.writeThrough("nope"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("store 'nope'").hasMessageContaining("[pg]");
        assertThat(node.cacheNames()).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"isolated", "individual", "batched", "upper"})
    void everyReceiverWritesThroughInBatchesOfMaxBatchSize(String receiver) {
        Cache<Long, String> cache = start(CacheStoreConfig.writeThrough("map"), 7);
        ReceiverRef ref = switch (receiver) {
            case "isolated" -> Receivers.isolated();
            case "individual" -> Receivers.individual();
            case "batched" -> Receivers.batched();
            default -> Receivers.named(receiver);
        };
        Map<Long, String> entries = values(0, 2_000, "v");
        stream(entries, StreamerOptions.builder().receiver(ref).perPartitionBufferSize(50).build());

        assertThat(cache.size()).isEqualTo(2_000);
        Map<Object, Object> expected = new HashMap<>();
        cache.scan().forEach(e -> expected.put(e.getKey(), e.getValue()));
        assertThat(store().data).isEqualTo(expected);
        if (!receiver.equals("upper")) {
            // A streamed batch reaches the store as batches of at most maxBatchSize.
            assertThat(store().writeBatchSizes).allMatch(n -> n <= 7).contains(7);
        }
    }

    @Test
    void theIsolatedReceiverLeavesPresentKeysAloneInTheStoreToo() {
        Cache<Long, String> cache = start(CacheStoreConfig.writeThrough("map"), 0);
        cache.put(5L, "put");
        stream(values(0, 10, "streamed"), StreamerOptions.DEFAULT);
        assertThat(cache.get(5L)).isEqualTo("put");
        assertThat(store().data).containsEntry(5L, "put").containsEntry(6L, "streamed6").hasSize(10);
    }

    @Test
    void aBatchWithTheSameKeyTwiceReachesTheStoreWithItsLastValue() {
        Cache<Long, String> cache = start(CacheStoreConfig.writeThrough("map"), 0);
        try (DataStreamer<Long, String> s = node.dataStreamer("c", StreamerOptions.builder().allowOverwrite(true).build())) {
            s.addData(1L, "a");
            s.addData(1L, "b");
            s.removeData(2L);
            s.addData(2L, "c");
        }
        assertThat(cache.get(1L)).isEqualTo("b");
        assertThat(store().data).containsEntry(1L, "b").containsEntry(2L, "c");
    }

    @Test
    void cacheOperationsWriteThrough() {
        Cache<Long, String> cache = start(CacheStoreConfig.writeThrough("map"), 20);
        cache.put(1L, "one");
        assertThat(cache.putIfAbsent(1L, "uno")).isFalse();
        assertThat(cache.putIfAbsent(2L, "two")).isTrue();
        Map<Long, String> twenty = values(100, 120, "x");
        store().writeBatchSizes.clear();
        cache.putAll(twenty);
        // One putAll of 20 entries is one writeBatch of 20, whatever partitions they fall in.
        assertThat(store().writeBatchSizes).containsExactly(20);
        assertThat(store().data).containsEntry(1L, "one").containsEntry(2L, "two").containsAllEntriesOf(
                twenty.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
        cache.remove(1L);
        cache.removeAll(List.of(100L, 101L));
        cache.putAllAsync(values(200, 210, "y")).join();
        assertThat(store().data).doesNotContainKeys(1L, 100L, 101L).containsEntry(205L, "y205");
        Map<Object, Object> expected = new HashMap<>();
        cache.scan().forEach(e -> expected.put(e.getKey(), e.getValue()));
        assertThat(store().data).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"isolated", "upper", "transform"})
    void skipStoreLeavesTheStoreAlone(String receiver) {
        Cache<Long, String> cache = start(CacheStoreConfig.writeThrough("map"), 0);
        stream(values(0, 500, "v"), StreamerOptions.builder().skipStore(true).receiver(switch (receiver) {
            case "upper" -> Receivers.named("upper");
            case "transform" -> Receivers.transform("append");
            default -> Receivers.isolated();
        }).build());
        assertThat(cache.size()).isEqualTo(500);
        assertThat(store().data).isEmpty();
        assertThat(store().writeBatchSizes).isEmpty();
    }

    @Test
    void aStoreFailureFailsTheBatchAndLeavesNothingInMemory() {
        Cache<Long, String> cache = start(CacheStoreConfig.writeThrough("map"), 0);
        store().failWith = new IllegalStateException("database is down");
        List<CompletableFuture<?>> futures = new ArrayList<>();
        DataStreamer<Long, String> s = node.dataStreamer("c", StreamerOptions.builder().perPartitionBufferSize(10).build());
        for (long k = 0; k < 100; k++) {
            futures.add(s.addData(k, "v" + k));
        }
        assertThatThrownBy(s::close).isInstanceOf(StreamerException.class);
        assertThat(futures).allMatch(CompletableFuture::isCompletedExceptionally);
        assertThatThrownBy(() -> futures.get(0).join()).hasRootCauseMessage("database is down")
                .cause().isInstanceOf(CacheStoreException.class).hasMessageContaining("writeBatch");
        assertThat(cache.size()).isZero();
        assertThatThrownBy(() -> cache.put(1L, "x")).isInstanceOf(CacheStoreException.class)
                .hasMessageContaining("[1]");
        assertThatThrownBy(() -> cache.putAll(Map.of(1L, "x"))).isInstanceOf(CacheStoreException.class);
        assertThat(cache.get(1L)).isNull();
    }

    private Map<Object, Object> memory(Cache<Long, String> cache) {
        Map<Object, Object> m = new HashMap<>();
        cache.scan().forEach(e -> m.put(e.getKey(), e.getValue()));
        return m;
    }

    @Test
    void theTransformerReceiverWritesThroughAndAStoreFailurePutsMemoryBack() {
        Cache<Long, String> cache = start(CacheStoreConfig.writeThrough("map"), 7);
        cache.putAll(values(0, 100, "v"));
        StreamerOptions transform = StreamerOptions.builder().receiver(Receivers.transform("append"))
                .perPartitionBufferSize(16).build();
        try (DataStreamer<Long, String> s = node.dataStreamer("c", transform)) {
            s.addData(values(50, 150, "+t")); // 50 present keys changed, 50 created
            s.removeData(3L);
            s.addData(4L, "drop");
        }
        assertThat(cache.get(60L)).isEqualTo("v60+t60");
        assertThat(cache.get(120L)).isEqualTo("+t120");
        assertThat(cache.get(3L)).isNull();
        assertThat(cache.get(4L)).isNull();
        assertThat(store().data).isEqualTo(memory(cache)).hasSize(148);
        assertThat(store().writeBatchSizes).allMatch(n -> n <= 7);

        Map<Object, Object> before = memory(cache);
        store().failWith = new IllegalStateException("database is down");
        List<CompletableFuture<?>> futures = new ArrayList<>();
        DataStreamer<Long, String> s = node.dataStreamer("c", transform);
        for (long k = 0; k < 20; k++) {
            futures.add(s.addData(k, "+y"));
        }
        futures.add(s.removeData(30L));
        assertThatThrownBy(s::close).isInstanceOf(StreamerException.class);
        assertThat(futures).allMatch(CompletableFuture::isCompletedExceptionally);
        assertThatThrownBy(() -> futures.get(0).join()).hasRootCauseMessage("database is down");
        // Memory was put back: it still equals the store.
        assertThat(memory(cache)).isEqualTo(before);
        store().failWith = null;
        assertThat(store().data).isEqualTo(before);
    }

    @Test
    void invokeAllWritesThroughAndAStoreFailureFailsTheChangedKeysAndPutsMemoryBack() {
        Cache<Long, String> cache = start(CacheStoreConfig.writeThrough("map"), 0);
        cache.putAll(values(0, 20, "v"));
        Map<Long, Object> results = cache.invokeAll(Set.of(1L, 2L, 30L), Processors.named("append", "+i"));
        assertThat(results).containsEntry(1L, "v1+i").containsEntry(30L, "+i");
        assertThat((Object) cache.invoke(5L, Processors.named("append", "drop"))).isNull();
        assertThat(store().data).isEqualTo(memory(cache)).containsEntry(2L, "v2+i").containsEntry(30L, "+i")
                .doesNotContainKey(5L);

        Map<Object, Object> before = memory(cache);
        store().failWith = new IllegalStateException("database is down");
        assertThatThrownBy(() -> cache.invokeAll(Set.of(1L, 2L, 3L, 40L), Processors.named("append", "+w")))
                .isInstanceOf(EntryProcessorException.class)
                .satisfies(e -> assertThat(((EntryProcessorException) e).failures()).containsOnlyKeys(1L, 2L, 3L, 40L)
                        .allSatisfy((k, cause) -> assertThat(cause).hasRootCauseMessage("database is down")));
        assertThat(memory(cache)).isEqualTo(before);
        store().failWith = null;
        assertThat(store().data).isEqualTo(before);
    }

    @Test
    void writeBehindGetsTheTransformersAndInvokesChanges() {
        Cache<Long, String> cache = start(CacheStoreConfig.writeBehind("map").withFlushInterval(Duration.ofMillis(50)), 0);
        cache.putAll(values(0, 10, "v"));
        stream(values(5, 15, "+t"), StreamerOptions.builder().receiver(Receivers.transform("append")).build());
        cache.invokeAll(Set.of(0L, 1L), Processors.named("append", "drop"));
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> assertThat(store().data).isEqualTo(memory(cache)));
        assertThat(store().data).containsEntry(7L, "v7+t7").containsEntry(12L, "+t12").doesNotContainKeys(0L, 1L);
    }

    private NodeEngine persistentNode(Path dir) {
        return persistentNode(dir, true);
    }

    /** What the stores of {@link #persistentNode} fail their calls with (null: nothing). */
    private volatile RuntimeException newStoresFailWith;

    /** A node on the directory (an hour between checkpoints), registering the "map" store or not, declaring caches. */
    private NodeEngine persistentNode(Path dir, boolean registerStore, CacheConfig... declared) {
        NodeConfig.Builder b = NodeConfig.builder().dataRegionInitialSize(4L << 20).dataRegionMaxSize(128L << 20)
                .applyThreads(2)
                .persistence(PersistenceConfig.at(dir).withWalMode(WalMode.FSYNC)
                        .withCheckpointInterval(Duration.ofHours(1)));
        if (registerStore) {
            b.store("map", () -> {
                MapStore s = new MapStore(0);
                s.failWith = newStoresFailWith;
                lastStore.set(s);
                return s;
            });
        }
        for (CacheConfig cache : declared) {
            b.cache(cache);
        }
        return new NodeEngine(b.build());
    }

    /** The files of a running node's directory as they are now: what a crash would leave (FSYNC: every write acknowledged). */
    private static Path crashImage(Path dir, Path image) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path from : files.toList()) {
                Path to = image.resolve(dir.relativize(from).toString());
                if (Files.isDirectory(from)) {
                    Files.createDirectories(to);
                } else {
                    Files.copy(from, to, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
        return image;
    }

    /**
     * Creates write-behind cache "c" (an hour's flush interval) on the node and gives it keys 0..n-1 streamed, key
     * 1,000 put and key 7 removed: nothing flushed yet.
     */
    private void unflushedWriteBehind(int n) {
        Cache<Long, String> cache = node.createCache(CacheConfig.named("c").withPartitions(8).withStore(
                CacheStoreConfig.writeBehind("map").withFlushInterval(Duration.ofHours(1)).withFlushSize(1_000_000)));
        stream(values(0, n, "v"), StreamerOptions.DEFAULT);
        cache.put(1_000L, "put");
        cache.remove(7L);
        assertThat(store().data).as("nothing flushed: an hour's interval").isEmpty();
    }

    /**
     * While set, a store of {@link #checkpointingNode} writes only while a checkpoint is due or under way, so that
     * the requeue of recovered keys (many small writes) spans checkpoints.
     */
    private final AtomicBoolean writesWaitForACheckpoint = new AtomicBoolean(true);

    /**
     * A node on the directory checkpointing every 50 ms, whose "map" stores run onOpen when opened and hold each
     * write until a checkpoint is due or under way (while {@link #writesWaitForACheckpoint}).
     */
    private NodeEngine checkpointingNode(Path dir, Runnable onOpen) {
        return new NodeEngine(NodeConfig.builder().dataRegionInitialSize(4L << 20).dataRegionMaxSize(128L << 20)
                .applyThreads(2)
                .persistence(PersistenceConfig.at(dir).withWalMode(WalMode.FSYNC)
                        .withCheckpointInterval(Duration.ofMillis(50)))
                .store("map", () -> {
                    MapStore s = new MapStore(0);
                    s.onOpen = onOpen;
                    s.beforeWriteBatch = () -> {
                        if (writesWaitForACheckpoint.get()) {
                            await().atMost(Duration.ofSeconds(20)).until(CacheStoreModesTest::checkpointerIsInACheckpoint);
                        }
                    };
                    lastStore.set(s);
                    return s;
                })
                .build());
    }

    @Test
    void aFlushReturnsOnceAWriteQueuedWhileItRanIsWrittenNotAfterTheFlushInterval() throws Exception {
        Cache<Long, String> cache = start(CacheStoreConfig.writeBehind("map").withFlushInterval(Duration.ofHours(1)), 0);
        cache.put(1L, "one");
        CountDownLatch writing = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean first = new AtomicBoolean(true);
        store().beforeWriteBatch = () -> {
            if (first.getAndSet(false)) {
                writing.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        WriteBehindQueue queue = node.nodeCache("c").storeBridge().writeBehind();
        CompletableFuture<Void> flushing = CompletableFuture.runAsync(queue::flush);
        assertThat(writing.await(20, TimeUnit.SECONDS)).as("the flush's round is writing key 1").isTrue();
        cache.put(2L, "two"); // queued while that round runs
        release.countDown();
        // Before, the round took the flush's only request, and the flush waited for the hour's interval.
        flushing.get(20, TimeUnit.SECONDS);
        assertThat(store().data).containsEntry(1L, "one").containsEntry(2L, "two");
    }

    @Test
    void aCheckpointCompletesOnlyOnceWriteBehindHasWrittenWhatCameBeforeItsMark(@TempDir Path dir) throws Exception {
        node = persistentNode(dir);
        unflushedWriteBehind(500);
        node.checkpoint();
        // The checkpoint moved the log's start past these changes: the store has them now.
        assertThat(store().data).hasSize(500).containsEntry(1_000L, "put").containsEntry(8L, "v8")
                .doesNotContainKey(7L);
    }

    @Test
    void aRecoveredCacheIsInFrontOfTheStoreItHadFromTheStartWithItsSettings(@TempDir Path dir, @TempDir Path image)
            throws IOException {
        CacheStoreConfig store = CacheStoreConfig.writeThrough("map").withReadThrough(true);
        CacheConfig config = CacheConfig.named("c").withPartitions(8).withStore(store);
        node = persistentNode(dir);
        node.createCache(config).put(1L, "before");
        crashImage(dir, image); // the attachment only in the log (a STORE record)
        node.close(); // the attachment in the checkpoint's manifest
        for (Path restartOn : List.of(image, dir)) {
            node = persistentNode(restartOn); // nothing declares the cache
            assertThat(node.nodeCache("c").storeBridge().config()).as(restartOn.toString()).isEqualTo(store);
            Cache<Long, String> cache = node.cache("c");
            assertThat(cache.get(1L)).isEqualTo("before");
            cache.put(2L, "after");
            assertThat(store().data).containsEntry(2L, "after");
            store().data.put(9L, "nine");
            assertThat(cache.get(9L)).as("read-through, as before the restart").isEqualTo("nine");
            assertThatThrownBy(() -> node.createCache(config)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("already exists");
            assertThat(node.getOrCreateCache(config)).isSameAs(node.getOrCreateCache(config));
            node.close();
        }
    }

    @Test
    void writeBehindChangesAcknowledgedBeforeACrashReachTheStoreWithoutTheCacheBeingDeclaredAgain(@TempDir Path dir,
                                                                                                 @TempDir Path image)
            throws IOException {
        node = persistentNode(dir);
        unflushedWriteBehind(300);
        crashImage(dir, image);
        node.close();

        node = persistentNode(image); // the crash: the queue was lost; nothing declares the cache
        assertThat(node.nodeCache("c").storeBridge().config().writeMode()).isEqualTo(CacheStoreConfig.WriteMode.WRITE_BEHIND);
        MapStore restarted = store();
        node.close(); // drains the queue: the recovered changes were queued again
        assertThat(restarted.data).hasSize(300).containsEntry(1_000L, "put").containsEntry(8L, "v8").doesNotContainKey(7L);
    }

    @ParameterizedTest(name = "recoveredKeysMemory {0}")
    @ValueSource(longs = {PersistenceConfig.DEFAULT_RECOVERED_KEYS_MEMORY, 100, 0})
    void everyReplayedChangeReachesTheStoreWhetherItsKeysFitInTheHeapOrSpillToDisk(long recoveredKeysMemory,
                                                                                 @TempDir Path dir, @TempDir Path image)
            throws IOException {
        node = persistentNode(dir);
        unflushedWriteBehind(300);
        crashImage(dir, image);
        node.close();

        node = new NodeEngine(NodeConfig.builder().dataRegionInitialSize(4L << 20).applyThreads(2)
                .persistence(PersistenceConfig.at(image).withRecoveredKeysMemory(recoveredKeysMemory))
                .store("map", () -> {
                    MapStore s = new MapStore(0);
                    lastStore.set(s);
                    return s;
                }).build());
        MapStore restarted = store();
        node.close(); // drains the requeued changes
        assertThat(restarted.data).hasSize(300).containsEntry(1_000L, "put").containsEntry(8L, "v8").doesNotContainKey(7L);
        // Before, keys past the bound marked their partition whole, and a removal there was not sent again.
        assertThat(restarted.log).as("the removal is sent again").contains(new AbstractMap.SimpleImmutableEntry<>(7L, null));
        assertThat(image.resolve("recovered-keys.spill")).as("the spill file, once read back").doesNotExist();
    }

    @Test
    void aCheckpointDueDuringTheStartWaitsUntilTheRecoveredKeysAreQueued(@TempDir Path dir, @TempDir Path image)
            throws Exception {
        node = persistentNode(dir);
        // Small flushes and a small queue: queueing the recovered keys again waits for the store below, whose
        // writes wait for checkpoints.
        node.createCache(CacheConfig.named("c").withPartitions(8).withStore(CacheStoreConfig.writeBehind("map")
                .withFlushInterval(Duration.ofHours(1)).withFlushSize(10).withQueueBound(20)));
        stream(values(0, 300, "v"), StreamerOptions.DEFAULT);
        crashImage(dir, image);
        node.close();

        // The restart's store takes its time to open, and a checkpoint is due every 50 ms.
        CountDownLatch opening = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Runnable slowOpen = () -> {
            opening.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        CompletableFuture<NodeEngine> starting = CompletableFuture.supplyAsync(() -> checkpointingNode(image, slowOpen));
        try {
            assertThat(opening.await(20, TimeUnit.SECONDS)).isTrue();
            // The checkpointer came round while the start was still attaching: a checkpoint is under way.
            await().atMost(Duration.ofSeconds(20)).until(CacheStoreModesTest::checkpointerIsInACheckpoint);
        } finally {
            release.countDown();
        }
        node = starting.get(20, TimeUnit.SECONDS);
        writesWaitForACheckpoint.set(false);
        // Read in this order, a checkpoint that completed by now had flushed what it confirmed; the store only grows.
        long checkpointed = node.checkpoints();
        int stored = store().data.size();
        if (checkpointed > 0) {
            // Before the checkpoint waited for the start: 2 checkpoints done here, 280 of 300 keys stored.
            assertThat(stored).as("keys stored once %d checkpoints completed", checkpointed).isEqualTo(300);
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> node.checkpoints() >= 1);
        // A completed checkpoint confirms write-behind, the keys replayed from the log included: they are stored.
        assertThat(store().data).hasSize(300).containsEntry(299L, "v299");
    }

    @Test
    void noCheckpointCompletesWhileALaterAttachmentQueuesTheRecoveredKeys(@TempDir Path dir, @TempDir Path image)
            throws Exception {
        CacheConfig config = CacheConfig.named("c").withPartitions(8).withStore(CacheStoreConfig.writeBehind("map")
                .withFlushInterval(Duration.ofHours(1)).withFlushSize(10).withQueueBound(20));
        node = persistentNode(dir);
        node.createCache(config);
        stream(values(0, 300, "v"), StreamerOptions.DEFAULT);
        crashImage(dir, image);
        node.close();

        // The database is down at the restart (the store fails to open), then back; checkpoints every 50 ms.
        AtomicBoolean down = new AtomicBoolean(true);
        AtomicLong checkpointsAtOpen = new AtomicLong(-1);
        node = checkpointingNode(image, () -> {
            // The node's own retry keeps failing here: getOrCreateCache below attaches.
            if (down.get() || Thread.currentThread().getName().equals("sluice-store-retry")) {
                throw new IllegalStateException("database down");
            }
            checkpointsAtOpen.set(node.checkpoints());
        });
        assertThat(node.nodeCache("c").storeBridge()).as("its store failed to open at the start").isNull();
        down.set(false);
        node.getOrCreateCache(config); // attaches and queues the 300 recovered keys, 10 at a time
        writesWaitForACheckpoint.set(false);
        assertThat(node.checkpoints()).as("checkpoints completed while the recovered keys were being queued")
                .isEqualTo(checkpointsAtOpen.get());
        await().atMost(Duration.ofSeconds(20)).until(() -> node.checkpoints() > checkpointsAtOpen.get());
        assertThat(store().data).hasSize(300).containsEntry(299L, "v299");
    }

    @Test
    void aCacheWhoseStoreIsDownAtTheStartRefusesWritesLosesNoChangeInASecondCrashAndGoesBackInFrontOfIt(
            @TempDir Path dir, @TempDir Path image, @TempDir Path secondImage) throws Exception {
        node = persistentNode(dir);
        unflushedWriteBehind(300);
        crashImage(dir, image);
        node.close();

        AtomicBoolean down = new AtomicBoolean(true);
        writesWaitForACheckpoint.set(false);
        node = checkpointingNode(image, () -> {
            if (down.get()) {
                throw new IllegalStateException("database down");
            }
        });
        assertThat(node.nodeCache("c").storeBridge()).as("its store failed to open at the start").isNull();
        Cache<Long, String> cache = node.cache("c");
        assertThatThrownBy(() -> cache.put(1L, "lost to the store")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cache 'c' is not in front of its store 'map'").hasMessageContaining("database down")
                .hasMessageContaining("writes are refused");
        assertThatThrownBy(() -> stream(values(0, 10, "x"), StreamerOptions.DEFAULT))
                .isInstanceOf(StreamerException.class).hasMessageContaining("not in front of its store 'map'");
        assertThat(cache.get(1L)).as("reads are served from memory").isEqualTo("v1");
        // A checkpoint now would move recovery past the 300 replayed keys the store has not seen.
        assertThatThrownBy(() -> node.checkpoint()).isInstanceOf(CheckpointDeferredException.class)
                .hasMessageContaining("cache 'c' awaits its write-behind store 'map'");
        assertThat(node.checkpoints()).as("periodic checkpoints are deferred too").isZero();
        crashImage(image, secondImage); // a second crash while the database is still down
        stream(Map.of(5_000L, "memory only"), StreamerOptions.builder().skipStore(true).build());
        assertThat(cache.get(5_000L)).as("a streamer that skips the store writes memory").isEqualTo("memory only");

        down.set(false);
        await().atMost(Duration.ofSeconds(20)).until(() -> node.nodeCache("c").storeBridge() != null);
        cache.put(2_000L, "after");
        await().atMost(Duration.ofSeconds(20)).until(() -> node.checkpoints() > 0);
        assertThat(store().data).hasSize(301).containsEntry(1_000L, "put").containsEntry(8L, "v8")
                .containsEntry(2_000L, "after").doesNotContainKeys(7L, 5_000L);
        node.close();

        node = persistentNode(secondImage); // the store is up at this start
        node.close();
        assertThat(store().data).as("the changes replayed at the first restart, replayed again").hasSize(300)
                .containsEntry(1_000L, "put").containsEntry(8L, "v8").doesNotContainKey(7L);
    }

    /** Whether the checkpointer thread is in a checkpoint (waiting for the start to let it run or finish). */
    private static boolean checkpointerIsInACheckpoint() {
        for (Map.Entry<Thread, StackTraceElement[]> t : Thread.getAllStackTraces().entrySet()) {
            if (t.getKey().getName().equals("sluice-checkpointer")) {
                for (StackTraceElement frame : t.getValue()) {
                    if (frame.getClassName().endsWith(".Checkpointer") && frame.getMethodName().equals("checkpoint")) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    @Test
    void aCacheWhoseStoreFailedToOpenLeavesNoCacheInTheLogForARestart(@TempDir Path dir, @TempDir Path image)
            throws IOException {
        node = persistentNode(dir);
        assertThatThrownBy(() -> node.createCache(CacheConfig.named("bad").withStore(CacheStoreConfig.writeThrough("nope"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("store 'nope'");
        node.createCache(CacheConfig.named("good").withPartitions(8)).put(1L, "one");
        crashImage(dir, image); // replayed from the log, where "bad" was logged before its store failed
        node.close();
        node = persistentNode(image);
        // Before, "good" reused the failed cache's id: the replay brought "bad" back, empty, beside it.
        assertThat(node.cacheNames()).containsExactly("good");
        assertThat(node.<Long, String>cache("good").get(1L)).isEqualTo("one");
    }

    @Test
    void aDeclaredCacheGetsTheDeclaredStoreOverTheOneItHad(@TempDir Path dir) {
        node = persistentNode(dir);
        node.createCache(CacheConfig.named("c").withPartitions(8).withStore(CacheStoreConfig.writeBehind("map")
                .withFlushInterval(Duration.ofHours(1))));
        node.close();
        CacheStoreConfig declared = CacheStoreConfig.writeThrough("map");
        node = persistentNode(dir, true, CacheConfig.named("c").withPartitions(8).withStore(declared));
        assertThat(node.nodeCache("c").storeBridge().config()).isEqualTo(declared);
        node.cache("c").put(1L, "through");
        assertThat(store().data).as("written through, at once").containsEntry(1L, "through");
        node.close();
        node = persistentNode(dir); // not declared this time: the attachment the cache had last
        assertThat(node.nodeCache("c").storeBridge().config()).isEqualTo(declared);
    }

    @Test
    void aSkipStoreStreamReplayedAfterACrashIsNotQueuedForTheStore(@TempDir Path dir, @TempDir Path image)
            throws IOException {
        node = persistentNode(dir);
        unflushedWriteBehind(100);
        stream(values(100, 200, "loaded"), StreamerOptions.builder().skipStore(true).build());
        crashImage(dir, image);
        node.close();
        node = persistentNode(image);
        MapStore restarted = store();
        node.close(); // drains what was queued again
        // Before, the log did not mark skipStore batches, and recovery queued them with the rest.
        assertThat(restarted.data).as("the streamed and put keys, not the ones loaded with skipStore").hasSize(100)
                .containsEntry(1_000L, "put").containsKey(99L).doesNotContainKeys(100L, 199L);
    }

    @Test
    void writeBehindChangesReplayedAfterACrashAreWrittenThroughWhenTheCacheIsDeclaredWriteThroughNow(
            @TempDir Path dir, @TempDir Path image) throws IOException {
        node = persistentNode(dir);
        unflushedWriteBehind(300);
        crashImage(dir, image);
        node.close();
        node = persistentNode(image, true, CacheConfig.named("c").withPartitions(8)
                .withStore(CacheStoreConfig.writeThrough("map")));
        // Before, a write-through attachment dropped the replayed keys: write-through never needs them, but these
        // were written while the cache was write-behind.
        assertThat(store().data).as("written through as the node started").hasSize(300)
                .containsEntry(1_000L, "put").containsEntry(8L, "v8").doesNotContainKey(7L);
    }

    @Test
    void recoveredKeysNotAllHandedToTheStoreAreReplayedAgainAtTheNextStart(@TempDir Path dir, @TempDir Path image)
            throws IOException {
        node = persistentNode(dir);
        unflushedWriteBehind(300);
        crashImage(dir, image);
        node.close();
        CacheConfig writeThrough = CacheConfig.named("c").withPartitions(8).withStore(CacheStoreConfig.writeThrough("map"));
        newStoresFailWith = new IllegalStateException("the database refuses writes");
        // Writing the replayed keys through fails: the start fails, and the node closes (a checkpoint at close).
        assertThatThrownBy(() -> persistentNode(image, true, writeThrough)).isInstanceOf(CacheStoreException.class)
                .hasStackTraceContaining("the database refuses writes");
        newStoresFailWith = null;
        node = persistentNode(image, true, writeThrough);
        // Before, the checkpoint at that close moved recovery past the keys: this start had none to write.
        assertThat(store().data).hasSize(300).containsEntry(1_000L, "put").containsEntry(8L, "v8");
    }

    @Test
    void aRecoveredCacheWhoseStoreIsNotRegisteredKeepsItsAttachmentForALaterStart(@TempDir Path dir) {
        CacheStoreConfig store = CacheStoreConfig.writeThrough("map").withReadThrough(true);
        node = persistentNode(dir);
        node.createCache(CacheConfig.named("c").withPartitions(8).withStore(store)).put(1L, "one");
        node.close();
        node = persistentNode(dir, false); // starts; the cache has no store on this node (an error is logged)
        assertThat(node.nodeCache("c").storeBridge()).isNull();
        Cache<Long, String> cache = node.cache("c");
        assertThat(cache.get(1L)).isEqualTo("one");
        assertThatThrownBy(() -> cache.get(2L)).as("a miss it cannot load").isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cache 'c' is not in front of its store 'map'")
                .hasMessageContaining("which is not registered on this node");
        assertThatThrownBy(() -> cache.put(2L, "two")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("writes are refused");
        node.close(); // its checkpoint keeps the attachment
        node = persistentNode(dir);
        assertThat(node.nodeCache("c").storeBridge().config()).isEqualTo(store);
    }

    @Test
    void aRemoteGetAllLoadsItsMissesWithOneLoadAllCall() {
        Cache<Long, String> cache = start(CacheStoreConfig.readThrough("map"), 0);
        store().data.put(2L, "two");
        store().data.put(3L, "three");
        cache.put(1L, "one");
        NodeCache<Object, Object> nodeCache = node.nodeCache("c");
        BinaryContext codec = new BinaryContext(); // the node's encoding of keys and values
        List<byte[]> keys = new ArrayList<>();
        for (long k : new long[] {1L, 2L, 3L, 4L, 2L}) {
            GrowableBuffer buf = new GrowableBuffer(16);
            codec.encode(k, buf);
            keys.add(buf.toByteArray());
        }
        List<Object> values = new ArrayList<>();
        for (byte[] v : nodeCache.getAllEncoded(keys)) {
            values.add(v == null ? null : codec.decode(v, 0, v.length, true));
        }
        assertThat(values).containsExactly("one", "two", "three", null, "two");
        assertThat(store().loadAllCalls).containsExactly(List.of(2L, 3L, 4L));
        assertThat(store().loads).hasValue(0);
        // Loaded misses stay in memory: the next getAll asks the store only for what is still missing.
        nodeCache.getAllEncoded(keys);
        assertThat(store().loadAllCalls).containsExactly(List.of(2L, 3L, 4L), List.of(4L));
    }

    @Test
    void readThroughLoadsAMissAndKeepsIt() {
        Cache<Long, String> cache = start(CacheStoreConfig.writeThrough("map").withReadThrough(true), 0);
        store().data.put(7L, "from-db");
        store().data.put(8L, "eight");
        assertThat(cache.get(7L)).isEqualTo("from-db");
        assertThat(cache.get(9L)).isNull();
        assertThat(cache.size()).isEqualTo(1);
        int loads = store().loads.get();
        assertThat(cache.get(7L)).isEqualTo("from-db");
        assertThat(store().loads.get()).isEqualTo(loads); // now a hit
        assertThat(cache.getAll(Set.of(7L, 8L, 9L))).containsOnly(Map.entry(7L, "from-db"), Map.entry(8L, "eight"));
        assertThat(cache.size()).isEqualTo(2);
    }

    @Test
    void writeBehindCoalescesByKeyAndKeepsEachKeysOrder() {
        Cache<Long, String> cache = start(CacheStoreConfig.writeBehind("map").withFlushSize(1_000_000)
                .withFlushInterval(Duration.ofMinutes(10)), 0);
        for (int round = 0; round < 50; round++) {
            for (long k = 0; k < 10; k++) {
                cache.put(k, "r" + round);
            }
        }
        cache.remove(3L);
        WriteBehindQueue queue = node.nodeCache("c").storeBridge().writeBehind();
        assertThat(queue.pending()).isEqualTo(10); // 510 changes of 10 keys: 10 slots
        assertThat(store().log).isEmpty();
        queue.flush();
        assertThat(store().log).hasSize(10);
        assertThat(store().data).hasSize(9).containsEntry(0L, "r49").doesNotContainKey(3L);
        // A key changed while its earlier change is flushed goes out in the next flush, so the last wins.
        cache.put(0L, "last");
        queue.flush();
        assertThat(store().data).containsEntry(0L, "last");
    }

    @Test
    void writeBehindFlushesBySizeAndByTime() {
        Cache<Long, String> cache = start(CacheStoreConfig.writeBehind("map").withFlushSize(100)
                .withFlushInterval(Duration.ofMillis(200)), 0);
        stream(values(0, 1_000, "v"), StreamerOptions.DEFAULT);
        await().atMost(Duration.ofSeconds(10)).until(() -> store().data.size() == 1_000);
        cache.put(5_000L, "alone"); // below the flush size: goes out by time
        await().atMost(Duration.ofSeconds(10)).until(() -> "alone".equals(store().data.get(5_000L)));
    }

    @Test
    void destroyingACacheDrainsItsWriteBehindQueueAndClosesItsStore() {
        Cache<Long, String> cache = start(CacheStoreConfig.writeBehind("map").withFlushSize(1_000_000)
                .withFlushInterval(Duration.ofMinutes(10)), 0);
        for (long k = 0; k < 500; k++) {
            cache.put(k, "v" + k);
        }
        MapStore store = store();
        assertThat(store.data).as("nothing flushed yet").isEmpty();

        assertThat(node.destroyCache("c")).isTrue();

        assertThat(store.data).hasSize(500).containsEntry(499L, "v499");
        assertThat(store.closed).isTrue();
    }

    @Test
    void writeBehindPushesBackOnWritersWhenFullAndDrainsOnClose() throws Exception {
        Cache<Long, String> cache = start(CacheStoreConfig.writeBehind("map").withFlushSize(1_000_000)
                .withFlushInterval(Duration.ofMinutes(10)).withQueueBound(100), 10);
        MapStore store = store();
        // The store is slow to start with: its writes wait until the test lets them go, so the queue
        // fills up to its bound and the writer beyond it must wait.
        CountDownLatch storeSlow = new CountDownLatch(1);
        store.beforeWriteBatch = () -> {
            try {
                storeSlow.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        Thread writer = new Thread(() -> {
            for (long k = 0; k < 5_000; k++) {
                cache.put(k, "v" + k);
            }
        }, "write-behind-writer");
        WriteBehindQueue queue = node.nodeCache("c").storeBridge().writeBehind();
        try {
            writer.start();
            await().atMost(Duration.ofSeconds(20)).until(() -> queue.pending() == 100
                    && writer.getState() == Thread.State.WAITING);
            // pushed back: while the store is slow the writer stays waiting and the queue at its bound
            await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> writer.isAlive()
                    && queue.pending() == 100 && store.data.isEmpty());
        } finally {
            storeSlow.countDown();
        }
        await().atMost(Duration.ofSeconds(20)).until(() -> !writer.isAlive());
        assertThat(queue.pending()).isLessThanOrEqualTo(100);
        assertThat(store.writeBatchSizes).allMatch(n -> n <= 10);
        node.close();
        node = null;
        assertThat(store.data).hasSize(5_000);
        assertThat(store.closed).isTrue();
    }

    @Test
    void writeBehindRetriesThenReportsAFailure() {
        Cache<Long, String> cache = start(CacheStoreConfig.writeBehind("map").withFlushSize(1_000_000)
                .withFlushInterval(Duration.ofMinutes(10)).withFlushAttempts(2), 0);
        store().failWith = new IllegalStateException("database is down");
        cache.put(1L, "a");
        WriteBehindQueue queue = node.nodeCache("c").storeBridge().writeBehind();
        queue.flush();
        assertThat(queue.failedKeys()).isEqualTo(1);
        assertThat(queue.lastFailure()).isInstanceOf(CacheStoreException.class).hasMessageContaining("[1]");
        assertThat(cache.get(1L)).isEqualTo("a");
        store().failWith = null;
        cache.put(2L, "b");
        queue.flush();
        assertThat(store().data).containsOnlyKeys(2L);
        assertThat(queue.writtenKeys()).isEqualTo(1);
    }

    @Test
    void writeBehindWritesAFlushsCallsInParallelAndKeepsEachKeysLastChange() {
        Cache<Long, String> cache = start(CacheStoreConfig.writeBehind("map").withFlushSize(50)
                .withFlushInterval(Duration.ofMillis(20)).withFlushThreads(4), 10);
        MapStore store = store();
        for (int round = 0; round < 20; round++) {
            for (long k = 0; k < 300; k++) {
                cache.put(k, "r" + round);
            }
        }
        node.close();
        node = null;
        assertThat(store.data).hasSize(300).allSatisfy((k, v) -> assertThat(v).isEqualTo("r19"));
        assertThat(store.writeBatchSizes).allMatch(n -> n <= 10);
    }
}
