package io.sluice.node.internal;

import io.sluice.cachestore.internal.StoreSlot;
import io.sluice.cachestore.internal.StoreAttachment;
import io.sluice.CacheConfig;
import io.sluice.CacheNotFoundException;
import io.sluice.CacheStore;
import io.sluice.cachestore.internal.CacheStoreBridge;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.pagestore.internal.ConsistencyReport;
import io.sluice.pagestore.internal.DataRegion;
import io.sluice.pagestore.internal.PartitionStore;
import io.sluice.pagestore.internal.StoreJournal;
import io.sluice.pagestore.internal.wal.WriteAheadLog;
import io.sluice.protocol.internal.CacheOptionsWire;

import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The node's caches: by name, by the id their log records name, and that id by cache; the next id; each cache's
 * options with its indexes' ids; and the log records that create a cache, put it in front of a store, give it its
 * options and drop it (CACHE, STORE, OPTIONS, DROP).
 *
 * <p>Its {@link #lock()} orders creating and dropping caches (and attaching stores) against each other, against a
 * checkpoint's mark and against the node's close; reads by name or id take no lock.
 */
final class CacheCatalogue {

    private final Object lock = new Object();
    private final ConcurrentHashMap<String, NodeCache<Object, Object>> byName = new ConcurrentHashMap<>();
    /** Caches by the id their log records name (written under the lock). */
    private final ConcurrentHashMap<Integer, NodeCache<Object, Object>> byId = new ConcurrentHashMap<>();
    /** The id of each cache (a cache, not its views: NodeCache keeps identity equality). */
    private final ConcurrentHashMap<NodeCache<Object, Object>, Integer> ids = new ConcurrentHashMap<>();
    /** Each cache's options with its indexes' ids, by cache id (written under the lock). */
    private final ConcurrentHashMap<Integer, CacheOptionsWire.Options> options = new ConcurrentHashMap<>();
    /** The id of the next cache created (guarded by the lock). */
    private int nextCacheId;

    private final NodeState state;
    private final DataRegion region;
    /** The log of a persistent region, or null. */
    private final WriteAheadLog wal;
    /** The store factories the node registers, by name. */
    private final Map<String, ? extends Supplier<? extends CacheStore<?, ?>>> stores;
    private final BinaryContext binary;
    private final CacheServices services;
    private final RecoveredKeys recoveredKeys;
    /** The node's journal tap, seen by every partition's journal. */
    private final TappedJournal.Slot tap = new TappedJournal.Slot();

    CacheCatalogue(NodeState state, DataRegion region, WriteAheadLog wal,
                   Map<String, ? extends Supplier<? extends CacheStore<?, ?>>> stores,
                   BinaryContext binary, CacheServices services, RecoveredKeys recoveredKeys) {
        this.state = state;
        this.region = region;
        this.wal = wal;
        this.stores = stores;
        this.binary = binary;
        this.services = services;
        this.recoveredKeys = recoveredKeys;
    }

    /** Installs the tap every partition's journal hands its writes to ({@link JournalTap#NONE} for none). */
    void journalTap(JournalTap tap) {
        this.tap.tap = Objects.requireNonNull(tap, "tap");
    }

    /** The lock that orders cache creation, dropping and store attachment. */
    Object lock() {
        return lock;
    }

    /** The cache of that name, or null. */
    NodeCache<Object, Object> get(String name) {
        return byName.get(name);
    }

    /** The cache of that name. @throws CacheNotFoundException if there is none @throws IllegalStateException if the node is closed */
    NodeCache<Object, Object> nodeCache(String name) {
        Objects.requireNonNull(name, "name");
        state.ensureOpen();
        NodeCache<Object, Object> cache = byName.get(name);
        if (cache == null) {
            throw new CacheNotFoundException(name);
        }
        return cache;
    }

    /** The cache of that log id, or null. */
    NodeCache<Object, Object> byId(int cacheId) {
        return byId.get(cacheId);
    }

    /** The log id of a cache. @throws IllegalStateException if it is not (or no longer) in the catalogue */
    int idOf(NodeCache<Object, Object> cache) {
        Integer id = ids.get(cache);
        if (id == null) {
            throw new IllegalStateException("cache '" + cache.name() + "' has no id");
        }
        return id;
    }

    /** Whether the cache is in the catalogue (not destroyed). */
    boolean contains(NodeCache<Object, Object> cache) {
        return ids.containsKey(cache);
    }

    /** The caches. */
    Collection<NodeCache<Object, Object>> caches() {
        return byName.values();
    }

    /** The caches by log id (a read-only view; iterate it under the lock for a consistent list). */
    Map<Integer, NodeCache<Object, Object>> byId() {
        return Collections.unmodifiableMap(byId);
    }

    /** The names of the caches. */
    List<String> names() {
        return List.copyOf(byName.keySet());
    }

    /** The id the next cache gets (under the lock). */
    int nextCacheId() {
        return nextCacheId;
    }

    /** Ids below this one are taken (a checkpoint's manifest says which ids its log used; under the lock). */
    void reserveIdsBelow(int next) {
        nextCacheId = Math.max(nextCacheId, next);
    }

    /** A cache's options with its indexes' ids (the defaults for a cache id the catalogue does not have). */
    CacheOptionsWire.Options options(int cacheId) {
        return options.getOrDefault(cacheId, CacheOptionsWire.DEFAULTS);
    }

    /**
     * Gives a cache new options (its indexes with their ids: ids are never reused) and logs them (OPTIONS), then
     * waits until the record is durable. Called under the lock.
     *
     * @throws IllegalStateException if the cache is not (or no longer) in the catalogue
     */
    void changeOptions(NodeCache<Object, Object> cache, CacheOptionsWire.Options changed) {
        int cacheId = idOf(cache);
        if (wal != null) {
            wal.appendOptions(cacheId, CacheOptionsWire.toBytes(changed));
        }
        applyOptions(cache, cacheId, changed, true);
        services.durability().awaitDurable();
    }

    /**
     * Gives a cache the options a replayed OPTIONS record holds (nothing is logged). Called under the lock.
     *
     * @return false if no cache has that id
     */
    boolean replayOptions(int cacheId, CacheOptionsWire.Options replayed) {
        NodeCache<Object, Object> cache = byId.get(cacheId);
        if (cache == null) {
            return false;
        }
        applyOptions(cache, cacheId, replayed, false); // the partitions are not served yet: built at once
        return true;
    }

    private void applyOptions(NodeCache<Object, Object> cache, int cacheId, CacheOptionsWire.Options changed,
                              boolean buildInBackground) {
        cache.core().changeConfig(changed.applyTo(cache.config()));
        options.put(cacheId, changed);
        cache.core().indexes().follow(changed.indexes(), changed.indexIds(), buildInBackground);
    }

    /**
     * Adds an index to a cache's options, or removes one, and logs them ({@link #changeOptions}): a new index gets
     * the next id and is built in the background.
     *
     * @return false if there was nothing to change
     * @throws io.sluice.CacheNotFoundException if the cache was destroyed
     */
    private boolean changeIndexes(String name, List<String> fields, boolean add) {
        synchronized (lock) {
            state.ensureNotClosing();
            NodeCache<Object, Object> cache = nodeCache(name);
            CacheConfig current = cache.config();
            boolean has = current.indexes().contains(fields);
            if (has == add) {
                return false;
            }
            CacheConfig changed = current;
            if (add) {
                changed = current.index(fields.toArray(String[]::new));
            } else {
                changed = CacheOptionsWire.DEFAULTS.applyTo(current).withBackups(current.backups())
                        .withWriteSync(current.writeSync()).withReadFromBackup(current.readFromBackup());
                for (List<String> index : current.indexes()) {
                    if (!index.equals(fields)) {
                        changed = changed.index(index.toArray(String[]::new));
                    }
                }
            }
            changeOptions(cache, options(idOf(cache)).changedTo(changed));
            return true;
        }
    }

    /**
     * Creates a cache and logs it (CACHE, STORE with a store, OPTIONS unless every option is its default), then
     * waits until the records are durable. Called under the lock.
     *
     * @throws IllegalStateException if the region or the store cannot take it (its id is retired in the log)
     */
    NodeCache<Object, Object> create(CacheConfig config) {
        int cacheId = nextCacheId;
        CacheOptionsWire.Options created = CacheOptionsWire.Options.of(config);
        if (wal != null) {
            wal.appendCache(cacheId, config.partitions(), config.name());
            if (config.store() != null) {
                wal.appendStore(cacheId, StoreAttachment.toBytes(config.store()));
            }
            if (!created.isDefault()) {
                wal.appendOptions(cacheId, CacheOptionsWire.toBytes(created));
            }
        }
        NodeCache<Object, Object> cache;
        try {
            cache = restore(config, cacheId);
        } catch (RuntimeException | Error e) {
            // The log names this id already: retire it, so that a replay does not bring a cache that never was.
            nextCacheId = cacheId + 1;
            if (wal != null) {
                wal.appendDrop(cacheId);
            }
            throw e;
        }
        services.durability().awaitDurable();
        return cache;
    }

    /**
     * Creates a cache whose partitions log their writes under this cache id, logging nothing (recovery: the log
     * or the checkpoint has it already), its indexes numbered in declaration order. Called under the lock.
     */
    NodeCache<Object, Object> restore(CacheConfig config, int cacheId) {
        return restore(config, cacheId, CacheOptionsWire.Options.of(config));
    }

    /**
     * As {@link #restore(CacheConfig, int)}, with these options and index ids (a checkpoint's): the config's own
     * options are replaced by them. Called under the lock.
     */
    NodeCache<Object, Object> restore(CacheConfig base, int cacheId, CacheOptionsWire.Options restored) {
        CacheConfig config = restored.applyTo(base);
        PartitionStore[] partitions = new PartitionStore[config.partitions()];
        try {
            for (int p = 0; p < partitions.length; p++) {
                partitions[p] = region.createPartition(new TappedJournal(
                        wal == null ? StoreJournal.NONE : wal.journal(cacheId, p), config.name(), p, tap));
            }
        } catch (RuntimeException e) {
            for (PartitionStore store : partitions) {
                if (store != null) {
                    store.destroy();
                }
            }
            throw e;
        }
        CacheStoreBridge storeBridge = null;
        CacheIndexes indexes = new CacheIndexes(config.name(), partitions.length, p -> partitions[p],
                (fields, add) -> changeIndexes(config.name(), fields, add));
        try {
            // Before the partitions are loaded (recovery): the load and the log's replay fill the indexes.
            indexes.follow(restored.indexes(), restored.indexIds(), false);
            if (config.store() != null) {
                storeBridge = CacheStoreBridge.open(config.name(), config.store(), stores, binary, config.partitions());
            }
        } catch (RuntimeException e) {
            for (PartitionStore store : partitions) {
                store.destroy();
            }
            throw e;
        }
        NodeCache<Object, Object> cache = new NodeCache<>(services, config, partitions, binary, false,
                new StoreSlot(config.name(), storeBridge), indexes);
        byName.put(config.name(), cache);
        byId.put(cacheId, cache);
        ids.put(cache, cacheId);
        options.put(cacheId, restored);
        nextCacheId = Math.max(nextCacheId, cacheId + 1);
        return cache;
    }

    /**
     * Destroys a cache: its partitions give their pages back, a DROP record is logged and awaited, then its store
     * closes once write-behind drained.
     *
     * @return false if there is no such cache
     * @throws IllegalStateException if the node is closing, or the log cannot take records
     */
    boolean destroy(String name) {
        Objects.requireNonNull(name, "name");
        NodeCache<Object, Object> cache;
        String reason = "cache '" + name + "' was destroyed";
        synchronized (lock) {
            state.ensureNotClosing();
            if (wal != null) {
                wal.checkWritable();
            }
            cache = byName.remove(name);
            if (cache == null) {
                return false;
            }
            int cacheId = ids.remove(cache);
            byId.remove(cacheId);
            options.remove(cacheId);
            cache.storeSlot().forgetAwaited(); // the store retry lets it go
            recoveredKeys.forget(cacheId);
            // Each partition waits for the call running on it, then gives its pages to the free list; no write
            // to the cache is logged after the DROP record, and a checkpoint lists the cache only if its mark
            // comes before that record (both under the lock).
            for (int p = 0; p < cache.partitions(); p++) {
                cache.store(p).destroy(reason);
            }
            if (wal != null) {
                wal.appendDrop(cacheId);
            }
        }
        services.durability().awaitDurable();
        // Nothing writes to the cache any more: write-behind drains what it was given, then the store closes.
        if (cache.storeBridge() != null) {
            cache.storeBridge().close();
        }
        return true;
    }

    /**
     * Drops a cache as a replayed DROP record says (nothing is logged). Called under the lock.
     *
     * @return false if no cache has that id
     */
    boolean replayDrop(int cacheId) {
        NodeCache<Object, Object> cache = byId.remove(cacheId);
        if (cache == null) {
            return false;
        }
        ids.remove(cache);
        byName.remove(cache.name());
        options.remove(cacheId);
        recoveredKeys.forget(cacheId);
        for (int p = 0; p < cache.partitions(); p++) {
            cache.store(p).destroy("cache '" + cache.name() + "' was destroyed");
        }
        return true;
    }

    /** A cache's partition stores, in partition order. */
    static PartitionStore[] partitionsOf(NodeCache<Object, Object> cache) {
        PartitionStore[] partitions = new PartitionStore[cache.partitions()];
        for (int p = 0; p < partitions.length; p++) {
            partitions[p] = cache.store(p);
        }
        return partitions;
    }

    /**
     * Checks the store's consistency now ({@link DataRegion#checkConsistency}): every partition's tree and
     * rows and the free list, as of one moment (writers wait for the check). Problems name cache and partition.
     */
    ConsistencyReport checkConsistency() {
        Map<PartitionStore, String> names = new IdentityHashMap<>();
        synchronized (lock) {
            for (var e : byId.entrySet()) {
                NodeCache<Object, Object> cache = e.getValue();
                for (int p = 0; p < cache.partitions(); p++) {
                    names.put(cache.store(p), "cache '" + cache.name() + "' (id " + e.getKey() + ") partition " + p);
                }
            }
        }
        return region.checkConsistency(p -> names.getOrDefault(p, "a partition of no cache"));
    }
}
