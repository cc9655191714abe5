package io.sluice.store.internal.checkpoint;

import io.sluice.store.internal.BatchMode;
import io.sluice.store.internal.PartitionStore;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;

/**
 * Loads the partition files a manifest names into fresh partitions, on several threads (a partition's
 * blocks in order on one of them): each block goes in as one insert-if-absent batch of the bytes read,
 * so the store writes whole pages and sorted tree passes as it does for a streamed load.
 */
public final class CheckpointLoader {

    private CheckpointLoader() {
    }

    /**
     * Loads every partition file of the manifest and tells the checkpointer which file each partition now holds.
     *
     * @param stores  the partitions of a cache id (created before)
     * @return the entries loaded
     * @throws CheckpointCorruptedException if a file fails a check (naming it and the position)
     * @throws UncheckedIOException if a file cannot be read
     */
    public static long load(Path directory, Manifest manifest, IntFunction<PartitionStore[]> stores, int threads,
                            Checkpointer checkpointer) {
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "sluice-checkpoint-load");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<Long>> loads = new ArrayList<>();
            for (Manifest.CacheFiles cache : manifest.caches()) {
                PartitionStore[] partitions = stores.apply(cache.id());
                for (int p = 0; p < cache.files().length; p++) {
                    int partition = p;
                    long number = cache.files()[p];
                    PartitionStore store = partitions[p];
                    loads.add(pool.submit(() -> {
                        long entries = 0;
                        if (number != 0) {
                            Path file = directory.resolve(CheckpointFormat.partitionFileName(cache.id(), partition, number));
                            entries = PartitionFile.read(file, cache.id(), partition, number,
                                    block -> store.applyBatch(block, BatchMode.INSERT_IF_ABSENT));
                        }
                        checkpointer.loaded(cache.id(), partition, partitions.length, number, store.changes());
                        return entries;
                    }));
                }
            }
            long total = 0;
            for (Future<Long> f : loads) {
                total += get(f);
            }
            return total;
        } finally {
            pool.shutdownNow();
        }
    }

    private static long get(Future<Long> f) {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CheckpointCorruptedException("interrupted while loading the checkpoint", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof CheckpointCorruptedException c) {
                throw c;
            }
            if (cause instanceof IOException io) {
                throw new UncheckedIOException("cannot read a checkpoint file: " + io, io);
            }
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(cause);
        }
    }
}
