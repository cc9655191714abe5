package io.sluice.node.internal;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.WriteSyncMode;
import io.sluice.CacheNotFoundException;
import io.sluice.DataStreamer;
import io.sluice.node.PersistenceConfig;
import io.sluice.node.WalMode;
import io.sluice.pagestore.internal.checkpoint.CheckpointCorruptedException;
import io.sluice.pagestore.internal.checkpoint.Checkpointer;
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
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Checkpoints: a restart loads the last complete one and replays only the log after its mark; the log before
 * it is deleted; a checkpoint interrupted by a crash leaves the previous one usable; damage is reported.
 *
 * <p>A "crash" here is a copy of a live node's directory taken between two acknowledged writes under
 * {@code LOG_ONLY}: what a kill -9 at that moment would leave on disk (the OS has every byte written). The
 * child-JVM kill -9 version, with checkpoints running during the load, is {@code CrashLoopIT}.
 */
@Timeout(120)
class NodeCheckpointTest {

    @TempDir
    Path dir;
    @TempDir
    Path crashed;

    private NodeEngine node;

    @AfterEach
    void close() {
        if (node != null) {
            node.close();
        }
    }

    private NodeEngine start(Path directory) {
        return new NodeEngine(NodeEngineTest.smallNode().persistence(PersistenceConfig.at(directory)
                .withWalMode(WalMode.LOG_ONLY).withWalSegmentSize(1 << 20)
                .withCheckpointInterval(Duration.ofHours(1)).withCheckOnRecovery(true)).build());
    }

    private static Map<Long, String> contents(Cache<Long, String> cache) {
        return cache.scan().collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue, (a, b) -> a, TreeMap::new));
    }

    private static void stream(NodeEngine node, String cache, long from, long to, String prefix) {
        try (DataStreamer<Long, String> s = node.dataStreamer(cache)) {
            for (long k = from; k < to; k++) {
                s.addData(k, prefix + k + "-".repeat(40));
            }
        }
    }

    /** What a kill -9 now would leave: the live node's files as they are (the lock file excepted). */
    private void copyDirectoryTo(Path target) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.toList()) {
                if (!f.getFileName().toString().equals("lock")) {
                    Files.copy(f, target.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                }
            }
        }
    }

    private static List<String> names(Path directory, String prefix) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith(prefix)).sorted().toList();
        }
    }

    @Test
    void aRestartLoadsTheCheckpointThenReplaysOnlyTheLogAfterItsMark() throws IOException {
        node = start(dir);
        Cache<Long, String> a = node.createCache(CacheConfig.named("a").withPartitions(8));
        stream(node, "a", 0, 30_000, "v");
        Checkpointer.Result first = node.checkpoint();
        assertThat(first.written()).isEqualTo(8);
        // After the mark: overwrites, removals, a new cache, a partition left unchanged by design.
        for (long k = 0; k < 100; k++) {
            a.put(k, "after" + k);
        }
        a.remove(500L);
        Cache<Long, String> b = node.createCache(CacheConfig.named("b").withPartitions(2));
        b.put(1L, "b1");
        Map<Long, String> expectedA = contents(a);
        copyDirectoryTo(crashed);
        node.close();
        node = null;

        node = start(crashed);

        assertThat(contents(node.cache("a"))).isEqualTo(expectedA);
        assertThat(node.<Long, String>cache("b").get(1L)).isEqualTo("b1");
        assertThat(node.<Long, String>cache("a").get(500L)).isNull();
    }

    @Test
    void aCheckpointDeletesTheLogSegmentsBeforeItsMark() throws IOException {
        node = start(dir);
        node.createCache(CacheConfig.named("a").withPartitions(8));
        // ~4 MiB of log in 1 MiB segments, in 12 streamers of ~350 KiB each: the writer rolls to a new
        // segment only between group writes, and one streamer's group never spans more than its own entries
        for (long from = 0; from < 60_000; from += 5_000) {
            stream(node, "a", from, from + 5_000, "v");
        }
        int before = names(dir, "wal-").size();
        assertThat(before).isGreaterThan(2);

        Checkpointer.Result result = node.checkpoint();

        // The log started a new segment at the mark, so every segment before it goes, the last one included.
        assertThat(result.segmentsDeleted()).isEqualTo(before);
        assertThat(names(dir, "wal-")).hasSize(1);
        assertThat(names(dir, "part-")).hasSize(8);
        // A second checkpoint with nothing changed writes nothing and keeps the files.
        Checkpointer.Result again = node.checkpoint();
        assertThat(again.written()).isZero();
        assertThat(again.kept()).isEqualTo(8);
        assertThat(names(dir, "part-")).hasSize(8);
        node.close();
        node = start(dir);
        assertThat(node.cache("a").size()).isEqualTo(60_000);
    }

    @Test
    void aCrashDuringACheckpointRecoversFromThePreviousOneAndTheLongerLog() throws IOException {
        node = start(dir);
        Cache<Long, String> a = node.createCache(CacheConfig.named("a").withPartitions(8));
        stream(node, "a", 0, 20_000, "v");
        node.checkpoint();
        stream(node, "a", 20_000, 40_000, "w");
        a.remove(7L);
        Map<Long, String> expected = contents(a);
        copyDirectoryTo(crashed); // checkpoint 1 + the log since its mark
        node.checkpoint();
        // The crash came while checkpoint 2 was writing: its partition files are there (one cut short), its
        // manifest was never renamed into place.
        List<String> second = names(dir, "part-").stream().filter(n -> n.endsWith("0000000000000002.dat")).toList();
        assertThat(second).isNotEmpty();
        for (String f : second) {
            Files.copy(dir.resolve(f), crashed.resolve(f));
        }
        Path cut = crashed.resolve(second.get(0));
        try (RandomAccessFile f = new RandomAccessFile(cut.toFile(), "rw")) {
            f.setLength(f.length() / 2);
        }
        Files.write(crashed.resolve("checkpoint.meta.tmp"), new byte[]{1, 2, 3});
        node.close();
        node = null;

        node = start(crashed);

        assertThat(contents(node.cache("a"))).isEqualTo(expected);
        assertThat(names(crashed, "part-")).noneMatch(n -> n.endsWith("0000000000000002.dat"));
        assertThat(names(crashed, "checkpoint.meta.tmp")).isEmpty();
    }

    @Test
    void aFlippedByteInAPartitionFileStopsTheStartNamingTheFileAndPosition() throws IOException {
        node = start(dir);
        node.createCache(CacheConfig.named("a").withPartitions(2));
        stream(node, "a", 0, 5_000, "v");
        node.close();
        node = null;
        Path file = dir.resolve(names(dir, "part-").get(0));
        long at;
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            at = f.length() / 2;
            f.seek(at);
            int x = f.read();
            f.seek(at);
            f.write(x ^ 0x10);
        }

        assertThatThrownBy(() -> start(dir))
                .isInstanceOf(CheckpointCorruptedException.class)
                .hasMessageContaining(file + " position ")
                .hasMessageContaining("fails its CRC32C check");
    }

    @Test
    void aDestroyedCacheStaysDestroyedAfterARestart() throws IOException {
        node = start(dir);
        Cache<Long, String> gone = node.createCache(CacheConfig.named("gone").withPartitions(4));
        Cache<Long, String> kept = node.createCache(CacheConfig.named("kept").withPartitions(4));
        stream(node, "gone", 0, 2_000, "g");
        kept.put(1L, "one");
        node.checkpoint(); // the checkpoint lists "gone"; the DROP comes after its mark
        assertThat(node.destroyCache("gone")).isTrue();
        Cache<Long, String> again = node.createCache(CacheConfig.named("again").withPartitions(2));
        again.put(2L, "two");
        copyDirectoryTo(crashed); // replay: checkpoint with "gone", then its DROP record
        assertThat(node.destroyCache("again")).isTrue();
        node.createCache(CacheConfig.named("gone").withPartitions(2)).put(3L, "new");
        node.close(); // the final checkpoint no longer lists the first "gone"
        node = null;

        node = start(crashed);
        assertThat(node.cacheNames()).containsExactlyInAnyOrder("kept", "again");
        assertThat(node.<Long, String>cache("kept").get(1L)).isEqualTo("one");
        node.close();

        node = start(dir);
        assertThat(node.cacheNames()).containsExactlyInAnyOrder("kept", "gone");
        assertThat(contents(node.cache("gone"))).containsExactly(Map.entry(3L, "new"));
        assertThatThrownBy(() -> node.cache("again")).isInstanceOf(CacheNotFoundException.class);
    }
    @Test
    void aCacheKeepsItsOptionsThroughTheLogAndThroughACheckpoint() throws IOException {
        CacheConfig logged = CacheConfig.named("logged").withPartitions(4).withBackups(2)
                .withWriteSync(WriteSyncMode.FULL_ASYNC).withReadFromBackup(true).index("secCode")
                .index("account", "price");
        CacheConfig checkpointed = CacheConfig.named("checkpointed").withPartitions(2).withBackups(1)
                .withWriteSync(WriteSyncMode.FULL_SYNC).index("account");
        node = start(dir);
        node.createCache(checkpointed);
        node.createCache(CacheConfig.named("plain").withPartitions(2));
        node.checkpoint();
        node.createCache(logged); // after the mark: its CACHE and OPTIONS records are replayed
        node.createCache(CacheConfig.named("logged-plain").withPartitions(2)); // a CACHE record alone, as before OPTIONS
        copyDirectoryTo(crashed);
        node.close();
        node = null;

        node = start(crashed); // the checkpoint's manifest, then the log
        assertThat(node.nodeCache("logged").config()).isEqualTo(logged);
        assertThat(node.nodeCache("checkpointed").config()).isEqualTo(checkpointed);
        assertThat(node.nodeCache("plain").config()).isEqualTo(CacheConfig.named("plain").withPartitions(2));
        assertThat(node.nodeCache("logged-plain").config())
                .isEqualTo(CacheConfig.named("logged-plain").withPartitions(2));
        node.close(); // a last checkpoint: every cache in the manifest now
        node = start(crashed);
        assertThat(node.nodeCache("logged").config()).isEqualTo(logged);
        assertThat(node.nodeCache("checkpointed").config()).isEqualTo(checkpointed);
    }

    @Test
    void aDeclaredCacheRecoveredWithOtherOptionsStartsWithTheOnesItWasCreatedWith() {
        CacheConfig created = CacheConfig.named("c").withPartitions(2).withBackups(1).index("a");
        node = start(dir);
        node.createCache(created);
        node.close();
        node = new NodeEngine(NodeEngineTest.smallNode().persistence(PersistenceConfig.at(dir)
                .withWalMode(WalMode.LOG_ONLY)).cache(CacheConfig.named("c").withPartitions(2)).build());
        assertThat(node.nodeCache("c").config()).isEqualTo(created);
    }

    @Test
    void getOrCreateOfAnExistingCacheWithOtherOptionsIsRefusedNamingBoth() {
        node = start(dir);
        CacheConfig created = CacheConfig.named("c").withPartitions(2).withBackups(1);
        node.createCache(created);
        assertThat(node.getOrCreateCache(created)).isSameAs(node.cache("c"));
        assertThatThrownBy(() -> node.getOrCreateCache(created.withWriteSync(WriteSyncMode.FULL_SYNC)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("writeSync PRIMARY_SYNC").hasMessageContaining("writeSync FULL_SYNC");
        assertThatThrownBy(() -> node.getOrCreateCache(created.index("a")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("indexes [[a]]");
        assertThatThrownBy(() -> node.createCache(created)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already exists");
    }
}
