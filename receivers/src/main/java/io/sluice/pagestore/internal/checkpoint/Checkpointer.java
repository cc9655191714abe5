package io.sluice.pagestore.internal.checkpoint;

import io.sluice.pagestore.internal.EntryImage;
import io.sluice.pagestore.internal.PartitionStore;
import io.sluice.pagestore.internal.wal.WriteAheadLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Takes checkpoints of a persistent region, periodically on its own thread ({@code sluice-checkpointer})
 * and when asked (a clean stop). The protocol, while batches keep being applied:
 * <ol>
 *   <li>under the node's lifecycle lock: the <b>mark</b> (the log's end now) and the caches;</li>
 *   <li>for each partition that changed since its last file: copy its entries under its read lock (its
 *       writers wait for that copy only), then write them to a new partition file and fsync it, outside
 *       any lock; an unchanged partition keeps its file;</li>
 *   <li>fsync the log up to the mark (a restart must find the log from the mark on);</li>
 *   <li>write the manifest (temporary file, fsync, atomic rename): the checkpoint is complete;</li>
 *   <li>delete the log segments wholly before the mark and the partition files no manifest names.</li>
 * </ol>
 * A partition copied after the mark may already hold writes whose records come after the mark; replaying
 * them again is harmless: every record sets keys to a value, removes them, or inserts them if absent, so
 * the partition ends as the log says. A crash before the rename leaves the previous manifest, its files
 * and the log from its mark: recovery uses those, and the next start deletes the orphaned new files.
 *
 * <p>One checkpoint at a time ({@code synchronized}). A failed checkpoint (disk full, I/O error) is
 * logged and changes nothing: the previous checkpoint and the whole log since stay.
 */
public final class Checkpointer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Checkpointer.class);

    /** What a checkpoint copies, read from the node under its lifecycle lock. */
    @FunctionalInterface
    public interface Source {
        Catalogue capture();
    }

    /**
     * The node at the mark.
     *
     * @param mark the log's end when the caches were listed (under the same lock as cache creation)
     */
    public record Catalogue(long mark, int nextCacheId, byte[] types, List<CacheStores> caches) {
    }

    /**
     * A cache's id, name, partitions, store attachment (CacheStoreWire layout; null if none) and options
     * (CacheOptionsWire layout; null if the defaults).
     */
    public record CacheStores(int id, String name, PartitionStore[] stores, byte[] store, byte[] options) {

        /** A cache with the default options. */
        public CacheStores(int id, String name, PartitionStore[] stores, byte[] store) {
            this(id, name, stores, store, null);
        }
    }

    /**
     * What a checkpoint did.
     *
     * @param written partitions written to new files
     * @param kept    unchanged partitions whose files were kept
     * @param bytes   bytes of new partition files
     */
    public record Result(long number, long mark, int written, int kept, long bytes, int segmentsDeleted,
                         long millis) {
    }

    /** A partition's file (the checkpoint number that wrote it, 0: empty) and the journal count it holds. */
    private record FileState(long number, long changes) {
    }

    private final Path directory;
    private final WriteAheadLog wal;
    private final Source source;
    /** Run after the partitions are copied, before the manifest: what must be confirmed before the mark moves. */
    private final Runnable beforeManifest;
    private final Duration interval;
    private final EntryImage image = new EntryImage();
    /** Per cache id, per partition: its current file. Guarded by this. */
    private final Map<Integer, FileState[]> files = new HashMap<>();
    private long lastNumber; // guarded by this
    private ScheduledExecutorService timer;
    private volatile long completed;
    /** Told the mark of each checkpoint that committed. */
    private volatile java.util.function.LongConsumer onCommit = mark -> { };

    /**
     * @param beforeManifest run after the partitions are copied and before the manifest is written (the node makes
     *                       write-behind stores confirm every change before the mark); if it throws, the checkpoint
     *                       fails and the previous one stays
     * @param recovered      the manifest the node recovered from, or null
     */
    public Checkpointer(Path directory, WriteAheadLog wal, Source source, Runnable beforeManifest, Duration interval,
                        Manifest recovered) {
        this.directory = directory;
        this.wal = wal;
        this.source = source;
        this.beforeManifest = beforeManifest;
        this.interval = interval;
        if (recovered != null) {
            lastNumber = recovered.number();
        }
    }

    /** After recovery loaded the partition from the file of checkpoint {@code number}: its journal count now. */
    public synchronized void loaded(int cacheId, int partition, int partitions, long number, long changes) {
        files.computeIfAbsent(cacheId, id -> emptyStates(partitions))[partition] = new FileState(number, changes);
    }

    /**
     * From now on, {@code listener} is called with the mark of every checkpoint that commits (on the checkpointing
     * thread, after the manifest's rename): what the log before the mark needed, the checkpoint now holds. It must not
     * throw.
     */
    public void onCommit(java.util.function.LongConsumer listener) {
        onCommit = listener;
    }

    /** Deletes what an interrupted checkpoint left, then takes a checkpoint every interval. */
    public synchronized void start() {
        Manifest current;
        try {
            current = Manifest.read(directory);
        } catch (IOException e) {
            current = null;
        }
        deleteUnreferenced(current);
        timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sluice-checkpointer");
            t.setDaemon(true);
            return t;
        });
        long millis = interval.toMillis();
        timer.scheduleWithFixedDelay(this::scheduled, millis, millis, TimeUnit.MILLISECONDS);
    }

    private void scheduled() {
        try {
            checkpoint();
        } catch (CheckpointDeferredException e) {
            LOG.warn("checkpoint in {} deferred: {}", directory, e.getMessage());
        } catch (RuntimeException | IOException e) {
            LOG.error("checkpoint in {} failed; the previous checkpoint and the log since it are kept", directory, e);
        }
    }

    /** Runs the work while no checkpoint runs: it waits for one running, and none starts until the work ends. */
    public synchronized void runExclusive(Runnable work) {
        work.run();
    }

    /** Checkpoints completed by this node so far. */
    public long completed() {
        return completed;
    }

    /**
     * Takes a checkpoint now (waits for one running).
     *
     * @throws IOException if a file cannot be written; nothing of the previous checkpoint is lost
     * @throws io.sluice.pagestore.internal.wal.WalFailedException if the log cannot be synced to the mark
     */
    public synchronized Result checkpoint() throws IOException {
        long start = System.nanoTime();
        Catalogue catalogue = source.capture();
        long number = lastNumber + 1;
        List<Manifest.CacheFiles> caches = new ArrayList<>();
        Map<Integer, FileState[]> next = new HashMap<>();
        int written = 0;
        int kept = 0;
        long bytes = 0;
        for (CacheStores cache : catalogue.caches()) {
            FileState[] before = files.getOrDefault(cache.id(), emptyStates(cache.stores().length));
            FileState[] after = new FileState[cache.stores().length];
            long[] numbers = new long[after.length];
            for (int p = 0; p < after.length; p++) {
                long changes;
                try {
                    changes = cache.stores()[p].copyIfChanged(before[p].changes(), image);
                } catch (IllegalStateException destroyed) {
                    // The cache was dropped after the mark: its DROP record comes after the mark too.
                    after[p] = new FileState(0, 0);
                    continue;
                }
                if (changes < 0) {
                    after[p] = before[p];
                    kept++;
                } else if (image.count() == 0) {
                    after[p] = new FileState(0, changes);
                    written++;
                } else {
                    Path file = directory.resolve(CheckpointFormat.partitionFileName(cache.id(), p, number));
                    PartitionFile.write(file, cache.id(), p, number, image);
                    bytes += Files.size(file);
                    after[p] = new FileState(number, changes);
                    written++;
                }
                numbers[p] = after[p].number();
            }
            next.put(cache.id(), after);
            caches.add(new Manifest.CacheFiles(cache.id(), cache.name(), numbers, cache.store(), cache.options()));
        }
        beforeManifest.run();
        wal.sync(catalogue.mark());
        Manifest.syncDirectory(directory);
        Manifest manifest = new Manifest(number, catalogue.mark(), catalogue.nextCacheId(), catalogue.types(), caches);
        manifest.write(directory);
        lastNumber = number;
        files.clear();
        files.putAll(next);
        completed++;
        int segments = wal.deleteSegmentsBefore(catalogue.mark());
        deleteUnreferenced(manifest);
        onCommit.accept(catalogue.mark());
        Result result = new Result(number, catalogue.mark(), written, kept, bytes, segments,
                (System.nanoTime() - start) / 1_000_000);
        LOG.info("checkpoint {} in {}: mark {}, {} partitions written ({} bytes), {} unchanged, {} log segments"
                        + " deleted, {} ms", number, directory, result.mark(), written, bytes, kept, segments,
                result.millis());
        return result;
    }

    /** Deletes partition files the manifest does not name (older ones, or those of an interrupted checkpoint). */
    private void deleteUnreferenced(Manifest manifest) {
        Set<String> keep = new HashSet<>();
        if (manifest != null) {
            for (Manifest.CacheFiles c : manifest.caches()) {
                for (int p = 0; p < c.files().length; p++) {
                    if (c.files()[p] != 0) {
                        keep.add(CheckpointFormat.partitionFileName(c.id(), p, c.files()[p]));
                    }
                }
            }
        }
        try (DirectoryStream<Path> all = Files.newDirectoryStream(directory, "part-c*.dat")) {
            for (Path f : all) {
                if (!keep.contains(f.getFileName().toString())) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(directory.resolve(CheckpointFormat.MANIFEST_TMP));
        } catch (IOException e) {
            LOG.warn("cannot delete old checkpoint files in {}: {}", directory, e.toString());
        }
    }

    /** Bytes of checkpoint files (partition files and manifest) on disk now. */
    public long diskBytes() {
        long total = 0;
        try (DirectoryStream<Path> all = Files.newDirectoryStream(directory, "{part-c*.dat," + CheckpointFormat.MANIFEST
                + "}")) {
            for (Path f : all) {
                total += Files.size(f);
            }
        } catch (IOException e) {
            LOG.debug("sizing {}: {}", directory, e.toString());
        }
        return total;
    }

    private static FileState[] emptyStates(int partitions) {
        FileState[] states = new FileState[partitions];
        java.util.Arrays.fill(states, new FileState(0, 0));
        return states;
    }

    /** Stops the periodic checkpoints, waiting for one running. */
    @Override
    public void close() {
        ScheduledExecutorService t;
        synchronized (this) {
            t = timer;
            timer = null;
        }
        if (t != null) {
            t.shutdown();
            try {
                t.awaitTermination(1, TimeUnit.MINUTES);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
