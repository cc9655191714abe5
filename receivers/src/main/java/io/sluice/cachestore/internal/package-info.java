/**
 * Node side of the cache store ({@link io.sluice.CacheStore}): how a cache's changes reach its store.
 * In the order a change meets them: {@link io.sluice.cachestore.internal.StoreChanges} (a batch's
 * changes decoded once, coalesced by key), {@link io.sluice.cachestore.internal.CacheStoreBridge}
 * (write-through before memory, read-through on a miss, write-behind after memory),
 * {@link io.sluice.cachestore.internal.WriteBehindQueue} (per-partition queues coalesced by key,
 * bounded, flushed by size and time on one flusher thread per cache). A cache's attachment to its store is held
 * by {@link io.sluice.cachestore.internal.StoreSlot} (the bridge, or the store a recovered cache awaits) and kept in
 * the log and checkpoints as {@link io.sluice.cachestore.internal.StoreAttachment} bytes. Internal: may change
 * without notice.
 */
package io.sluice.cachestore.internal;
