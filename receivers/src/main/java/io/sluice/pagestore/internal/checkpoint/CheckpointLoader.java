package io.sluice.pagestore.internal.checkpoint;

import io.sluice.protocol.internal.EntryBatch;
import io.sluice.pagestore.internal.PartitionStore;

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
 * blocks in order on one of them), and partition files of other nodes in place of a partition's entries
 * ({@link #adopt}). The checked and inflated blocks' entries are gathered into batches of up to
 * {@value #BATCH_BYTES} bytes, handed to the store's bulk build ({@link PartitionStore#load},
 * {@link PartitionStore#replaceAll}): a partition file holds its entries in key order (a tree's scan), so the
 * rows are appended to data pages and the tree is built bottom-up; field indexes get one sorted pass per batch.
 */
public final class CheckpointLoader {

    /** Entries gathered into one batch before it is applied. */
    static final int BATCH_BYTES = 16 << 20;

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
                            entries = store.load(apply -> {
                                Gather gather = new Gather(apply, file);
                                long read = PartitionFile.read(file, cache.id(), partition, number, gather);
                                gather.apply();
                                return read;
                            });
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

    /**
     * Replaces every entry of the partition by those of a partition file another node wrote (its header's cache id
     * and checkpoint number are that node's; its partition must be this one), built in bulk from batches of up to
     * {@value #BATCH_BYTES} bytes under the partition's write lock ({@link PartitionStore#replaceAll}): the journal
     * records one adoption naming {@code logName}, not the entries.
     *
     * @return the entries loaded
     * @throws CheckpointCorruptedException if the file fails a check (the partition is then empty)
     * @throws IOException if the file cannot be read (the partition is then empty)
     */
    public static long adopt(PartitionStore store, int partition, Path file, String logName) throws IOException {
        return store.replaceAll(refill(partition, file), logName);
    }

    /**
     * {@link #adopt} through the store's normal batch write path ({@link PartitionStore#replaceAllByBatches}) instead
     * of its bulk build: the baseline the bulk build is measured against.
     */
    public static long adoptByBatches(PartitionStore store, int partition, Path file, String logName)
            throws IOException {
        return store.replaceAllByBatches(refill(partition, file), logName);
    }

    private static PartitionStore.Refill refill(int partition, Path file) {
        return apply -> {
            Gather gather = new Gather(apply, file);
            long entries = PartitionFile.readForeign(file, partition, gather);
            gather.apply();
            return entries;
        };
    }

    /** Gathers inflated blocks' entries and applies them as one batch when the next would not fit, and at the end. */
    private static final class Gather implements PartitionFile.Target {
        private final java.util.function.Consumer<EntryBatch> store;
        private final Path file;
        private byte[] data;
        private int length;
        private int count;

        Gather(java.util.function.Consumer<EntryBatch> store, Path file) {
            this.store = store;
            this.file = file;
            this.data = new byte[initialSize(file)];
        }

        /**
         * The file's size (up to a batch): a moved file's blocks are stored, so its entries take about its size and
         * the array is allocated once (grown by doubling from 1 MiB it was ~3x a 10 MB file in garbage and copies);
         * a checkpoint's deflated blocks inflate to more, and it grows as before.
         */
        private static int initialSize(Path file) {
            long size;
            try {
                size = java.nio.file.Files.size(file);
            } catch (IOException e) {
                size = 0; // the read that follows fails with the cause
            }
            return (int) Math.max(1 << 20, Math.min(BATCH_BYTES, size));
        }

        @Override
        public byte[] reserve(int bytes) {
            if (length > 0 && (long) length + bytes > BATCH_BYTES) {
                apply();
            }
            if ((long) length + bytes > data.length) {
                data = java.util.Arrays.copyOf(data,
                        Math.max(length + bytes, Math.min(BATCH_BYTES, 2 * data.length)));
            }
            return data;
        }

        @Override
        public int length() {
            return length;
        }

        @Override
        public void added(int bytes, int entries) {
            length += bytes;
            count += entries;
        }

        void apply() {
            if (count > 0) {
                EntryBatch batch = new EntryBatch(data, 0, length, count);
                try {
                    batch.checkStructure();
                } catch (RuntimeException e) {
                    throw new CheckpointCorruptedException(file + ": the entries of its blocks are malformed (their"
                            + " CRCs matched, so they were written so): " + e.getMessage(), e);
                }
                store.accept(batch);
            }
            length = 0;
            count = 0;
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
