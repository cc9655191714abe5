package io.sluice;

import io.sluice.binary.Binary;

/**
 * The entry point to Sluice: an embedded node ({@code io.sluice.node.SluiceNode}) or a remote
 * client give the same interface.
 *
 * <p>Closing it closes every streamer it created (flushing them) and releases its resources.
 */
public interface Sluice extends AutoCloseable {

    /**
     * Creates a cache.
     *
     * @throws IllegalStateException if a cache with that name already exists, or its cache store
     *         ({@link CacheConfig#withStore}) failed to open
     * @throws IllegalArgumentException if the config names a cache store the node has not registered
     */
    <K, V> Cache<K, V> createCache(CacheConfig config);

    /**
     * Returns the cache with the config's name, creating it from the config if it does not exist. A cache's backups,
     * write sync mode, reads from backups and indexes are fixed when it is created: an existing one must have the
     * config's.
     *
     * @throws IllegalStateException if the cache exists with other backups, write sync mode, reads from backups or
     *         indexes than the config's (the message names both)
     */
    <K, V> Cache<K, V> getOrCreateCache(CacheConfig config);

    /**
     * Drops a cache and everything in it; its memory goes back to the node's data region for other
     * caches. Operations on the cache that are running finish first; later ones, and batches of
     * streamers into it, fail: with {@link CacheNotFoundException} or an {@link IllegalStateException}
     * saying that the cache was destroyed. A cache of the same name may be created again afterwards.
     *
     * <p>A cache store behind the cache keeps its rows (destroying a cache does not delete them):
     * write-behind writes already accepted are flushed to it first, then it is closed.
     *
     * @return true if the cache existed, false if there was none of that name
     * @throws CacheStoreException if flushing or closing the cache's store failed (the cache is
     *         destroyed all the same)
     * @throws NodeUnreachableException (remote) if a node cannot be reached; the cache may then be
     *         destroyed on some nodes only, and destroying it again finishes the job
     */
    boolean destroyCache(String name);

    /**
     * Returns an existing cache.
     *
     * @throws CacheNotFoundException if there is no cache with that name
     */
    <K, V> Cache<K, V> cache(String name);

    /**
     * The names of the caches, in no particular order: a snapshot (caches created or destroyed while it is
     * taken may or may not be in it).
     *
     * <p>Remote, the names are those of every node the client knows, each name once.
     *
     * @throws NodeUnreachableException (remote) if a node cannot be reached
     * @throws IllegalStateException (remote) if the client is closed
     */
    java.util.List<String> cacheNames();

    /**
     * Creates a streamer into an existing cache with {@link StreamerOptions#DEFAULT}.
     *
     * @throws CacheNotFoundException if there is no cache with that name
     */
    <K, V> DataStreamer<K, V> dataStreamer(String cacheName);

    /**
     * Creates a streamer into an existing cache.
     *
     * @throws CacheNotFoundException if there is no cache with that name
     */
    <K, V> DataStreamer<K, V> dataStreamer(String cacheName, StreamerOptions options);

    /** Binary objects: builders, POJO and JSON conversion, type metadata. */
    Binary binary();

    /** Closes every streamer this instance created (flushing it) and releases resources. */
    @Override
    void close();
}
