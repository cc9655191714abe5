package io.sluice.protocol.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What a streamer needs from the cluster: the layout of a cache, the nodes, and a way to ship a
 * request to one of them. The embedded node implements it in the same JVM; a remote client
 * implements it over TCP. The streamer code is the same for both.
 */
public interface StreamerTransport {

    /**
     * The number of partitions of the cache.
     *
     * @throws io.sluice.CacheNotFoundException if the cache does not exist
     */
    int partitions(String cacheName);

    /** The ids of the nodes that own partitions now; the affinity function maps partitions onto them. */
    List<String> nodeIds();

    /**
     * Per partition the id of the node that owns it now, when a cluster's map says so: the same array until the
     * owners change (it must not be modified), so a streamer looks an owner up per batch without any other work.
     * A partition no node serves now names a node id the transport holds its batches under until one does.
     *
     * @return null when owners are the rendezvous ranking of {@link #nodeIds()} (a standalone node, an embedded one)
     */
    default String[] partitionOwners(int partitions) {
        return null;
    }

    /**
     * Sends a request to a node. The future completes with one outcome per batch of the request,
     * in the request's order, once every batch has been applied or has failed; it completes
     * exceptionally only if the request as a whole could not be handled (the node went away,
     * unknown cache or receiver).
     *
     * <p>The batches' arrays belong to the streamer again once a batch's outcome is a success: it
     * reuses them for later batches (built-in receivers only), so nothing may read them after that.
     */
    CompletableFuture<List<BatchOutcome>> send(String nodeId, BatchRequest request);
}
