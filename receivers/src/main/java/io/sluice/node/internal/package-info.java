/**
 * Internal: the node's machinery behind {@link io.sluice.node.SluiceNode}, one job per class.
 * {@code NodeEngine} only wires the others: {@code NodeState} (open, closing, closed),
 * {@code CacheCatalogue} (the caches by name and id; CACHE, STORE and DROP records), {@code NodeRecovery}
 * and {@code LogReplay} (checkpoint load and log replay at start), {@code CheckpointCapture} (what a
 * checkpoint copies; write-behind confirmation), {@code StoreReattachment} and {@code AwaitedStores}
 * (recovered caches put in front of their stores again), {@code RecoveredKeys} (keys replayed for a store;
 * the attachment itself is {@code io.sluice.cachestore.internal.StoreSlot}), {@code Durability} (waiting for
 * the log), {@code NodeShutdown} (the close), {@code EmbeddedTransport} (a request's batches to the stripes),
 * {@code StripedExecutor} (one apply thread per stripe), {@code NodeCache} (the typed {@code Cache}, a
 * thin facade) over {@code CacheCore} (encoded keys and values against the partition stores and the cache
 * store), {@code CacheIndexes} (which field indexes a cache's partitions have; background builds),
 * {@code IndexReads} and {@code PartitionIndexEntries} (index queries across partitions, embedded and for
 * INDEX_QUERY) and {@code NodeMetrics} (the node's meters, counted once per batch). The streamers a node opens are
 * kept by {@code io.sluice.streamer.internal.StreamerRegistry}. May change without notice.
 */
package io.sluice.node.internal;
