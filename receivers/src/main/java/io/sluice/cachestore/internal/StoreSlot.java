package io.sluice.cachestore.internal;

import io.sluice.CacheStoreConfig;

/**
 * Where a cache's store attachment is held, one per cache, shared by its views: the {@link CacheStoreBridge} it is
 * in front of, or, for a cache recovered from disk that is not in front of it yet, the store it awaits and why
 * (the node does not register it, or it failed to open), during which writes and read-through misses are refused.
 * A recovered cache gets its store as the node starts, or later (getOrCreateCache, the store retry).
 * Thread-safe: reads are volatile, changes hold the slot's monitor.
 */
public final class StoreSlot {

    private final String cacheName;
    private volatile CacheStoreBridge bridge;
    /** Without a bridge: the store the cache was in front of before the restart and is to be put in front of again. */
    private volatile CacheStoreConfig awaited;
    /** Why the awaited store is not attached, for the refusal's message. */
    private volatile String awaitedBecause;

    /** @param bridge the store the cache is in front of from its creation, or null */
    public StoreSlot(String cacheName, CacheStoreBridge bridge) {
        this.cacheName = cacheName;
        this.bridge = bridge;
    }

    /** The cache store behind the cache, or null. */
    public CacheStoreBridge bridge() {
        return bridge;
    }

    /** Whether the cache neither has nor awaits a store. */
    public boolean empty() {
        return bridge == null && awaited == null;
    }

    /**
     * Puts the store behind the cache, which has none (a cache recovered from disk); it awaits none any more.
     *
     * @throws IllegalStateException if it has one already
     */
    public synchronized void attach(CacheStoreBridge store) {
        if (bridge != null) {
            throw new IllegalStateException("cache '" + cacheName + "' has a store already: " + bridge);
        }
        bridge = store;
        awaited = null;
        awaitedBecause = null;
    }

    /**
     * The cache (recovered from disk) awaits the store it was in front of: until {@link #attach}, writes to it
     * (but a streamer's with skipStore) and read-through misses fail naming the store and the reason.
     */
    public synchronized void await(CacheStoreConfig store, String because) {
        awaited = store;
        awaitedBecause = because;
    }

    /** The store the cache awaits (recovered, not in front of it yet), or null. */
    public CacheStoreConfig awaited() {
        return awaited;
    }

    /** Stops awaiting a store (the cache is declared without one, or destroyed). @return the one awaited, or null */
    public synchronized CacheStoreConfig forgetAwaited() {
        CacheStoreConfig had = awaited;
        awaited = null;
        awaitedBecause = null;
        return had;
    }

    /**
     * The bridge if a view of the cache writes to the store, else null.
     *
     * @param skipStore whether the view leaves the store alone
     * @throws IllegalStateException if the cache awaits its store (and the view does not skip it)
     */
    public CacheStoreBridge writer(boolean skipStore) {
        CacheStoreBridge storeBridge = bridge;
        if (storeBridge == null) {
            if (!skipStore && awaited != null) {
                throw notInFrontOfItsStore("writes are refused");
            }
            return null;
        }
        return !skipStore && storeBridge.writes() ? storeBridge : null;
    }

    /**
     * The bridge that loads a miss, or null.
     *
     * @throws IllegalStateException if the cache awaits a read-through store
     */
    public CacheStoreBridge loader() {
        CacheStoreBridge storeBridge = bridge;
        if (storeBridge == null) {
            CacheStoreConfig store = awaited;
            if (store != null && store.readThrough()) {
                throw notInFrontOfItsStore("a miss cannot be loaded");
            }
            return null;
        }
        return storeBridge.readThrough() ? storeBridge : null;
    }

    /** Whether a miss is loaded from the store (or would be, once the awaited store is attached). */
    public boolean readThrough() {
        CacheStoreBridge attached = bridge;
        CacheStoreConfig store = awaited;
        return attached != null ? attached.readThrough() : store != null && store.readThrough();
    }

    private IllegalStateException notInFrontOfItsStore(String consequence) {
        CacheStoreConfig store = awaited;
        return new IllegalStateException("cache '" + cacheName + "' is not in front of its store '"
                + (store == null ? "?" : store.storeName()) + "' (" + awaitedBecause + "): "
                + consequence + " until it is");
    }
}
