package io.sluice.node.internal;

import io.sluice.cachestore.internal.StoreAttachment;
import io.sluice.CacheConfig;
import io.sluice.CacheStoreConfig;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.cachestore.internal.CacheStoreBridge;
import io.sluice.cachestore.internal.StoreChanges;
import io.sluice.node.NodeConfig;
import io.sluice.pagestore.internal.checkpoint.Checkpointer;
import io.sluice.pagestore.internal.wal.WriteAheadLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * Puts caches recovered from disk in front of their cache stores again: at start ({@link #openCaches}), when
 * {@code getOrCreateCache} names a store for one that has none ({@link #attachRecovered}), and from the store retry
 * ({@link AwaitedStores}) for one whose store failed to open. Each attachment is logged (STORE record) and hands
 * the store again the keys recovery replayed for the cache. Thread-safe (attachments hold the catalogue's lock and
 * exclude checkpoints).
 */
final class StoreReattachment implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(StoreReattachment.class);

    private final NodeConfig config;
    private final NodeState state;
    private final CacheCatalogue catalogue;
    private final RecoveredKeys recoveredKeys;
    /** The log of a persistent region, or null. */
    private final WriteAheadLog wal;
    /** The checkpoints of a persistent region, or null. */
    private final Checkpointer checkpointer;
    private final CheckpointCapture capture;
    private final Durability durability;
    private final BinaryContext binary;
    /** Retries putting recovered caches in front of the stores they await; null until the start needs it. */
    private volatile AwaitedStores awaitedStores;

    StoreReattachment(NodeConfig config, NodeState state, CacheCatalogue catalogue, RecoveredKeys recoveredKeys,
                      WriteAheadLog wal, Checkpointer checkpointer, CheckpointCapture capture, Durability durability,
                      BinaryContext binary) {
        this.config = config;
        this.state = state;
        this.catalogue = catalogue;
        this.recoveredKeys = recoveredKeys;
        this.wal = wal;
        this.checkpointer = checkpointer;
        this.capture = capture;
        this.durability = durability;
        this.binary = binary;
    }

    /**
     * At start, after recovery: the caches {@link NodeConfig#caches()} declares are created, or, recovered, put in
     * front of the store declared for them ({@code getOrCreate}); every other recovered cache that had a store goes
     * in front of it again, with the settings it had. One that cannot (the store is not registered, or fails to
     * open) stays without a store, with an error logged, until {@code getOrCreateCache} attaches one; its recovered
     * keys and its attachment are kept meanwhile (a store that failed to open is retried by {@link AwaitedStores}).
     *
     * @throws IllegalArgumentException or IllegalStateException if a declared cache cannot be created or attached
     */
    void openCaches(Consumer<CacheConfig> getOrCreate) {
        Set<String> declared = new HashSet<>();
        for (CacheConfig cache : config.caches()) {
            declared.add(cache.name());
            NodeCache<Object, Object> recovered = catalogue.get(cache.name());
            if (recovered != null && cache.store() == null) {
                CacheStoreConfig had = recovered.storeSlot().forgetAwaited();
                synchronized (catalogue.lock()) {
                    recoveredKeys.forget(catalogue.idOf(recovered)); // no store will take them
                }
                if (had != null) {
                    LOG.warn("cache '{}' was in front of {} before the restart and is declared without a store now: it"
                            + " stays without one, and changes recovery replayed are not sent to that store",
                            cache.name(), had);
                }
            }
            getOrCreate.accept(cache);
        }
        List<NodeCache<Object, Object>> retry = new ArrayList<>();
        for (NodeCache<Object, Object> cache : awaitingStores()) {
            if (declared.contains(cache.name())) {
                continue;
            }
            CacheStoreConfig store = cache.storeSlot().awaited();
            try {
                attachRecovered(cache, store);
            } catch (IllegalArgumentException notRegistered) {
                cache.storeSlot().await(store, notRegistered.getMessage() + "; getOrCreateCache with a registered store"
                        + " attaches one, NodeConfig.cache declaring it without a store detaches it");
                LOG.error("cache '{}' was in front of {} before the restart and cannot be put in front of it again: {};"
                        + " its writes are refused, its recovered changes kept, until getOrCreateCache with a store"
                        + " attaches one (or NodeConfig.cache declares it without a store)", cache.name(), store,
                        notRegistered.getMessage());
            } catch (IllegalStateException failedToOpen) {
                cache.storeSlot().await(store, AwaitedStores.failedToOpen(failedToOpen));
                retry.add(cache);
                LOG.error("cache '{}' was in front of {} before the restart and its store failed to open: {}; its"
                        + " writes are refused, its recovered changes kept, until the store opens (retried every {} s"
                        + " at most)", cache.name(), store, failedToOpen.getMessage(),
                        AwaitedStores.MAX_PAUSE.toSeconds(), failedToOpen);
            }
        }
        if (!retry.isEmpty()) {
            awaitedStores = AwaitedStores.start(retry, this::attachRecovered);
        }
    }

    /** The caches that await the store they were in front of before the restart. */
    private List<NodeCache<Object, Object>> awaitingStores() {
        List<NodeCache<Object, Object>> awaiting = new ArrayList<>();
        synchronized (catalogue.lock()) {
            for (NodeCache<Object, Object> cache : catalogue.byId().values()) {
                if (cache.storeBridge() == null && cache.storeSlot().awaited() != null) {
                    awaiting.add(cache);
                }
            }
        }
        return awaiting;
    }

    /**
     * Puts a cache recovered from disk in front of the store, logs the attachment, and queues again for
     * write-behind the keys recovery replayed for it (the store may not have confirmed them).
     *
     * @throws IllegalArgumentException if the node does not register the store
     * @throws IllegalStateException if the store fails to open, or the node is closing
     */
    void attachRecovered(NodeCache<Object, Object> cache, CacheStoreConfig store) {
        if (checkpointer == null) {
            attachNow(cache, store);
        } else {
            // No checkpoint between the attachment and the requeue: its manifest would move recovery past the
            // recovered keys while some are not queued yet (a checkpoint flushes only what is queued).
            checkpointer.runExclusive(() -> attachNow(cache, store));
        }
    }

    private void attachNow(NodeCache<Object, Object> cache, CacheStoreConfig store) {
        RecoveredKeys.CacheKeys requeue;
        CacheStoreBridge bridge;
        synchronized (catalogue.lock()) {
            state.ensureNotClosing();
            if (cache.storeBridge() != null || !catalogue.contains(cache)) {
                return; // attached meanwhile, or destroyed (no STORE record may follow its DROP record)
            }
            bridge = CacheStoreBridge.open(cache.name(), store, config.stores(), binary, cache.partitions());
            int cacheId = catalogue.idOf(cache);
            if (wal != null) {
                wal.appendStore(cacheId, StoreAttachment.toBytes(store));
            }
            cache.storeSlot().attach(bridge);
            LOG.info("cache '{}' (recovered) is in front of store '{}' ({}) again", cache.name(), store.storeName(),
                    store.writeMode());
            // Noted only for a cache that was write-behind when logged; a write-through store now writes them at once.
            requeue = bridge.writes() ? recoveredKeys.take(cacheId) : null;
            if (requeue == null) {
                recoveredKeys.forget(cacheId);
            }
        }
        durability.awaitDurable();
        if (requeue != null) {
            try {
                requeueRecovered(cache, bridge, requeue);
            } catch (RuntimeException | Error e) {
                capture.requeueFailed(cache.name());
                LOG.error("cache '{}': handing its recovered keys to store '{}' again failed; no checkpoint is taken"
                        + " from now on, so the next start replays them and tries again", cache.name(),
                        store.storeName(), e);
                throw e;
            }
        }
    }

    /**
     * Hands the store again every key recovery replayed from the log after the last checkpoint's mark (for a cache
     * that was write-behind then), with the value memory holds now (or its removal): the store may not have
     * confirmed them before the node stopped. Write-behind queues them; a store declared write-through since
     * writes them at once. Each partition's keys are read and queued under its write lock, so a write racing this
     * one queues after it and its value wins. Keys recovery spilled to disk are read back and queued a chunk at a
     * time.
     */
    private void requeueRecovered(NodeCache<Object, Object> cache, CacheStoreBridge bridge,
                                  RecoveredKeys.CacheKeys keys) {
        long[] queued = {0};
        for (int p = 0; p < keys.partitions(); p++) {
            queued[0] += requeue(cache, bridge, p, keys.keys(p));
        }
        recoveredKeys.readSpilled(keys, (partition, partitionKeys) ->
                queued[0] += requeue(cache, bridge, partition, partitionKeys));
        LOG.info("cache '{}': {} keys changed since the last checkpoint {}{}", cache.name(), queued[0],
                bridge.writeBehind() != null ? "queued again for write-behind" : "written through again",
                keys.spilled() ? " (some read back from " + RecoveredKeys.SPILL_FILE + ")" : "");
    }

    /**
     * Hands the store the partition's keys with their values now (or their removal), under its write lock:
     * write-behind queues them, write-through writes them. @return keys handed over
     */
    private static int requeue(NodeCache<Object, Object> cache, CacheStoreBridge bridge, int partition,
                               List<byte[]> keys) {
        if (keys.isEmpty()) {
            return 0;
        }
        StoreChanges changes = bridge.newChanges();
        // Ordered with the partition's other store-bound writes (CacheCore.writeOrder), then under its write lock.
        ReentrantLock order = cache.core().writeOrder(partition);
        order.lock();
        try {
            requeueLocked(cache, bridge, partition, keys, changes);
        } finally {
            order.unlock();
        }
        return changes.size();
    }

    private static void requeueLocked(NodeCache<Object, Object> cache, CacheStoreBridge bridge, int partition,
                                      List<byte[]> keys, StoreChanges changes) {
        cache.store(partition).update(entry -> {
            for (byte[] key : keys) {
                entry.at(key, 0, key.length);
                byte[] value = null;
                if (entry.exists()) {
                    value = new byte[entry.valueLength()];
                    entry.readValue(value, 0);
                }
                changes.add(partition, key, 0, key.length, value == null ? key : value, 0,
                        value == null ? 0 : value.length, value == null);
            }
            bridge.beforeMemory(changes);
            bridge.afterMemory(changes);
        });
    }

    /** Stops the store retry (an attempt under way finishes). */
    @Override
    public void close() {
        AwaitedStores retrying = awaitedStores;
        if (retrying != null) {
            retrying.close();
        }
    }
}
