package io.sluice.protocol.internal;

import io.sluice.ReceiverRef;

import java.util.List;

/**
 * One request from a streamer to a node: batches of several partitions of one cache, all owned
 * by that node, to be applied by the named receiver.
 *
 * @param cacheName      the cache
 * @param receiver       the receiver applying the batches
 * @param allowOverwrite the streamer's allowOverwrite option
 * @param skipStore      the streamer's skipStore option
 * @param batches        the batches, at most one per partition
 */
public record BatchRequest(String cacheName, ReceiverRef receiver, boolean allowOverwrite, boolean skipStore,
                           List<PartitionBatch> batches) {

    /** One partition's entries. */
    public record PartitionBatch(int partition, EntryBatch entries) {
    }
}
