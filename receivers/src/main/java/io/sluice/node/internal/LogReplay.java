package io.sluice.node.internal;

import io.sluice.cachestore.internal.StoreAttachment;
import io.sluice.CacheConfig;
import io.sluice.CacheStoreConfig;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.protocol.internal.CacheOptionsWire;
import io.sluice.protocol.internal.EntryBatch;
import io.sluice.pagestore.internal.BatchApplyException;
import io.sluice.pagestore.internal.BatchMode;
import io.sluice.pagestore.internal.wal.WalCorruptedException;
import io.sluice.pagestore.internal.wal.WalReader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.sluice.pagestore.internal.checkpoint.CheckpointLoader;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Applies the log's records to the fresh store at start: the same store operations on the same bytes. BATCH records
 * are applied on {@code applyThreads} lanes ({@code sluice-replay-*}), a partition always on the same lane, so a
 * partition's records keep their log order while partitions replay in parallel; an ADOPT record (the partition
 * emptied and loaded from the adopted file it names) goes to the partition's lane too. CACHE, STORE, OPTIONS, TYPES and DROP
 * records are applied at once on the reading thread (the batches after them are not submitted yet; a DROP first
 * waits for the batches before it). Used by one thread, the one reading the log.
 */
final class LogReplay implements WalReader.Handler, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(LogReplay.class);

    private final CacheCatalogue catalogue;
    private final RecoveredKeys recoveredKeys;
    private final BinaryContext binary;
    private final ExecutorService[] lanes;
    /** The moves directory's files the log needs: those ADOPT records name. */
    private final AdoptedFiles adopted;
    /** The segment's submitted batches, awaited at its end (the segment's bytes are kept until then). */
    private final List<Future<?>> pending = new ArrayList<>();

    LogReplay(CacheCatalogue catalogue, RecoveredKeys recoveredKeys, BinaryContext binary, int threads,
              AdoptedFiles adopted) {
        this.catalogue = catalogue;
        this.adopted = adopted;
        this.recoveredKeys = recoveredKeys;
        this.binary = binary;
        lanes = new ExecutorService[threads];
        for (int i = 0; i < threads; i++) {
            int lane = i;
            lanes[i] = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "sluice-replay-" + lane);
                t.setDaemon(true);
                return t;
            });
        }
    }

    @Override
    public void types(byte[] metadata) {
        binary.importTypes(metadata);
    }

    @Override
    public void cache(int cacheId, int partitions, String name) {
        synchronized (catalogue.lock()) {
            if (catalogue.get(name) != null) {
                throw new WalCorruptedException("the log creates cache '" + name + "' twice");
            }
            catalogue.restore(CacheConfig.named(name).withPartitions(partitions), cacheId);
        }
    }

    @Override
    public void store(int cacheId, byte[] attachment) {
        synchronized (catalogue.lock()) {
            NodeCache<Object, Object> cache = catalogue.byId(cacheId);
            if (cache == null) {
                throw new WalCorruptedException("a STORE record names cache id " + cacheId
                        + ", which no earlier record created");
            }
            try {
                cache.storeSlot().await(StoreAttachment.fromBytes(attachment, "the log (cache '" + cache.name() + "')"),
                        NodeRecovery.RECOVERING);
            } catch (IllegalStateException e) {
                throw new WalCorruptedException(e.getMessage(), e);
            }
        }
    }

    @Override
    public void options(int cacheId, byte[] options) {
        synchronized (catalogue.lock()) {
            CacheOptionsWire.Options replayed;
            try {
                replayed = CacheOptionsWire.fromBytes(options, "the log's OPTIONS record of cache id " + cacheId);
            } catch (IllegalArgumentException e) {
                throw new WalCorruptedException(e.getMessage(), e);
            }
            if (!catalogue.replayOptions(cacheId, replayed)) {
                throw new WalCorruptedException("an OPTIONS record names cache id " + cacheId
                        + ", which no earlier record created");
            }
        }
    }

    @Override
    public void batch(int cacheId, int partition, BatchMode mode, boolean partial, boolean skipStore,
                      EntryBatch entries) {
        NodeCache<Object, Object> cache = partitionOf(cacheId, partition);
        CacheStoreConfig store = cache.storeSlot().awaited();
        if (!skipStore && store != null && store.writeMode() == CacheStoreConfig.WriteMode.WRITE_BEHIND) {
            recoveredKeys.add(cacheId, cache.partitions(), partition, entries);
        }
        pending.add(lanes[lane(cacheId, partition)].submit(() -> apply(cache, partition, mode, partial, entries)));
    }

    private NodeCache<Object, Object> partitionOf(int cacheId, int partition) {
        NodeCache<Object, Object> cache = catalogue.byId(cacheId);
        if (cache == null) {
            throw new WalCorruptedException("a record names cache id " + cacheId + ", which no earlier record created");
        }
        if (partition < 0 || partition >= cache.partitions()) {
            throw new WalCorruptedException("a record names partition " + partition + " of cache '" + cache.name()
                    + "', which has " + cache.partitions());
        }
        return cache;
    }

    private int lane(int cacheId, int partition) {
        return Math.floorMod(cacheId * 31 + partition, lanes.length);
    }

    @Override
    public void adopt(int cacheId, int partition, String file) {
        NodeCache<Object, Object> cache = partitionOf(cacheId, partition);
        Path path = file.isEmpty() ? null : adopted.directory().resolve(file);
        if (path != null) {
            adopted.replayed(file);
        }
        pending.add(lanes[lane(cacheId, partition)].submit(() -> {
            try {
                if (path == null) {
                    cache.store(partition).replaceAll(apply -> 0, "");
                } else {
                    CheckpointLoader.adopt(cache.store(partition), partition, path, file);
                }
            } catch (IOException | RuntimeException e) {
                throw new WalCorruptedException("replaying the adoption of " + (path == null ? "nothing" : path)
                        + " by cache '" + cache.name() + "' partition " + partition + " failed (the log needs the"
                        + " file until a checkpoint holds the partition): " + e, e);
            }
            return null;
        }));
    }

    private static void apply(NodeCache<Object, Object> cache, int partition, BatchMode mode, boolean partial,
                              EntryBatch entries) {
        try {
            cache.store(partition).applyBatch(entries, mode);
        } catch (BatchApplyException e) {
            if (!partial) {
                throw new WalCorruptedException("replaying a batch of cache '" + cache.name() + "' partition "
                        + partition + " failed (is the data region smaller than when it was logged?): "
                        + e.getMessage(), e);
            }
            // It failed part way when it was first applied too (and was not acknowledged).
            LOG.warn("replay: a batch of cache '{}' partition {} that failed part way when applied failed again: {}",
                    cache.name(), partition, e.getMessage());
        }
    }

    @Override
    public void drop(int cacheId) {
        awaitPending("the records before a DROP record");
        synchronized (catalogue.lock()) {
            if (!catalogue.replayDrop(cacheId)) {
                throw new WalCorruptedException("a DROP record names cache id " + cacheId
                        + ", which no earlier record created");
            }
        }
    }

    @Override
    public void segmentEnd(Path segment) {
        awaitPending(segment.toString());
    }

    private void awaitPending(String segment) {
        RuntimeException failure = null;
        for (Future<?> f : pending) {
            try {
                f.get();
            } catch (ExecutionException e) {
                if (failure == null) {
                    failure = e.getCause() instanceof WalCorruptedException c ? c : new WalCorruptedException(
                            "replaying a record of " + segment + " failed: " + e.getCause(), e.getCause());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new WalCorruptedException("interrupted while replaying " + segment, e);
            }
        }
        pending.clear();
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public void close() {
        for (ExecutorService lane : lanes) {
            lane.shutdownNow();
        }
    }
}
