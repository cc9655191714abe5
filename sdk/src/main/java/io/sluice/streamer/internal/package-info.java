/**
 * Internal: the client-side streamer. {@link io.sluice.streamer.internal.Streamer} is the facade;
 * {@code EntryEncoder} encodes an entry on the adding thread, {@code PartitionBuffers} accumulates
 * it into its partition's {@code PartitionBuffer}, a sealed {@code Batch} goes to
 * {@code BatchSender} (per-node queue, bounded in-flight requests), {@code BatchLedger} follows
 * each batch to its final state, {@code BufferMemory} bounds the bytes held and
 * {@code AutoFlusher} sends buffers by age. {@code StreamerRegistry} keeps an owner's (a node's,
 * a client's) open streamers and closes them with it. May change without notice.
 */
package io.sluice.streamer.internal;
