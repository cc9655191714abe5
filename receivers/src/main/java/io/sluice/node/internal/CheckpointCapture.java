package io.sluice.node.internal;

import io.sluice.cachestore.internal.StoreAttachment;
import io.sluice.CacheStoreConfig;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.cachestore.internal.CacheStoreBridge;
import io.sluice.pagestore.internal.checkpoint.CheckpointDeferredException;
import io.sluice.pagestore.internal.checkpoint.Checkpointer;
import io.sluice.pagestore.internal.wal.WriteAheadLog;
import io.sluice.protocol.internal.CacheOptionsWire;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The node's side of a checkpoint ({@link Checkpointer} calls both on its thread): what a checkpoint copies
 * ({@link #capture}: the catalogue and the log's mark, taken together under the catalogue's lock, or a deferral)
 * and the write-behind confirmation before its manifest moves recovery past the mark
 * ({@link #confirmWriteBehind}). Thread-safe.
 */
final class CheckpointCapture {

    private final CacheCatalogue catalogue;
    private final RecoveredKeys recoveredKeys;
    private final WriteAheadLog wal;
    private final BinaryContext binary;
    private final StripedExecutor stripes;
    /**
     * Open once the start has put its caches in front of their stores and queued their recovered keys
     * ({@link StoreReattachment#openCaches}): a checkpoint waits for it, as its mark would move recovery past keys not
     * queued yet (requeueing many keys into a bounded write-behind queue can outlast the checkpoint interval).
     */
    private final CountDownLatch cachesOpened = new CountDownLatch(1);
    /**
     * Caches whose recovered keys were taken but not all handed to their store (the requeue failed): no
     * checkpoint may move recovery past those keys, so the next start replays and hands them over again.
     */
    private final Set<String> unfinishedRequeues = ConcurrentHashMap.newKeySet();

    CheckpointCapture(CacheCatalogue catalogue, RecoveredKeys recoveredKeys, WriteAheadLog wal, BinaryContext binary,
                      StripedExecutor stripes) {
        this.catalogue = catalogue;
        this.recoveredKeys = recoveredKeys;
        this.wal = wal;
        this.binary = binary;
        this.stripes = stripes;
    }

    /** The start has opened its caches (or failed to): checkpoints may confirm write-behind from now on. */
    void cachesOpened() {
        cachesOpened.countDown();
    }

    /** Handing a cache's recovered keys to its store failed part way: no checkpoint from now on. */
    void requeueFailed(String cacheName) {
        unfinishedRequeues.add(cacheName);
    }

    /**
     * What a checkpoint copies: under the catalogue's lock, so no cache is created or dropped around the mark.
     *
     * @throws CheckpointDeferredException while a cache awaits its write-behind store with changes recovery
     *                                     replayed, or handing them over failed part way: the mark would move
     *                                     recovery past them, and a crash before the store has them would lose
     *                                     them for the store
     */
    Checkpointer.Catalogue capture() {
        if (!unfinishedRequeues.isEmpty()) {
            throw new CheckpointDeferredException("the recovered keys of cache(s) " + unfinishedRequeues + " were not"
                    + " all handed to their store again (logged when it failed): no checkpoint until the node restarts"
                    + " and replays them; the log since the last checkpoint is kept");
        }
        synchronized (catalogue.lock()) {
            List<Checkpointer.CacheStores> list = new ArrayList<>();
            for (var e : catalogue.byId().entrySet()) {
                NodeCache<Object, Object> cache = e.getValue();
                CacheStoreConfig awaited = cache.storeSlot().awaited();
                // Replayed keys are noted only for a cache that was write-behind: awaiting with some means that.
                if (awaited != null && recoveredKeys.holds(e.getKey())) {
                    throw new CheckpointDeferredException("cache '" + cache.name() + "' awaits its write-behind"
                            + " store '" + awaited.storeName() + "' with changes replayed from the log that the store"
                            + " may not have: no checkpoint until it is back (its mark would move recovery past them);"
                            + " the log since the last checkpoint is kept");
                }
                CacheStoreBridge bridge = cache.storeBridge();
                CacheStoreConfig attachment = bridge != null ? bridge.config() : awaited;
                CacheOptionsWire.Options options = catalogue.options(e.getKey());
                list.add(new Checkpointer.CacheStores(e.getKey(), cache.name(), CacheCatalogue.partitionsOf(cache),
                        attachment == null ? null : StoreAttachment.toBytes(attachment),
                        options.isDefault() ? null : CacheOptionsWire.toBytes(options)));
            }
            // Under the same lock as the list: no cache or attachment changes between the two.
            long mark = wal.markForCheckpoint(); // the log starts a new segment here: the old one can go at commit
            return new Checkpointer.Catalogue(mark, catalogue.nextCacheId(), binary.exportTypes(), list);
        }
    }

    /**
     * Before a checkpoint's manifest moves the mark past them: every change a write-behind store has queued is
     * written (or reported). First every apply thread finishes what it had started (a streamed batch queues its
     * changes on its apply thread after applying them), and every application thread's write that changed memory
     * queues its change ({@link CacheStoreBridge#awaitWritesInFlight}); then each queue is flushed.
     *
     * @throws IllegalStateException if the apply threads do not get there within 5 minutes
     */
    void confirmWriteBehind() {
        awaitCachesOpened();
        List<CacheStoreBridge> behind = new ArrayList<>();
        for (NodeCache<Object, Object> cache : catalogue.caches()) {
            CacheStoreBridge bridge = cache.storeBridge();
            if (bridge != null && bridge.writeBehind() != null) {
                behind.add(bridge);
            }
        }
        if (behind.isEmpty()) {
            return;
        }
        passAllStripes();
        for (CacheStoreBridge bridge : behind) {
            bridge.awaitWritesInFlight(); // application threads' writes that logged their change have queued it
            bridge.writeBehind().flush();
        }
    }

    /** Returns once every apply thread has run what was queued to it before this call (or the stripes stopped). */
    private void passAllStripes() {
        CountDownLatch passed = new CountDownLatch(stripes.stripes());
        StripedExecutor.StripeTask barrier = new StripedExecutor.StripeTask() {
            @Override
            public void run() {
                passed.countDown();
            }

            @Override
            public void abandon(Throwable reason) {
                passed.countDown();
            }
        };
        for (int i = 0; i < stripes.stripes(); i++) {
            try {
                stripes.execute(i, barrier);
            } catch (RejectedExecutionException stopped) {
                barrier.abandon(stopped);
            }
        }
        try {
            if (!passed.await(5, TimeUnit.MINUTES)) {
                throw new IllegalStateException("the apply threads did not finish their work within 5 minutes");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted waiting for the apply threads", e);
        }
    }

    private void awaitCachesOpened() {
        boolean interrupted = false;
        while (true) {
            try {
                cachesOpened.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true; // a checkpoint is not abandoned half way; the flag is kept for the caller
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}
