/**
 * Checkpoints of a persistent data region ({@code docs/durability.md}): partitions written to files so the
 * write-ahead log can be cut and a restart replays only the log since the last checkpoint.
 * <ol>
 *   <li>{@link io.sluice.pagestore.internal.checkpoint.Checkpointer}: the protocol (mark, copy each changed
 *       partition under its read lock, write outside it, sync the log, commit the manifest, delete what it
 *       replaces), periodically and on a clean stop;</li>
 *   <li>{@link io.sluice.pagestore.internal.checkpoint.CheckpointFormat}: the byte layout of partition files and
 *       of the manifest (the one definition);</li>
 *   <li>{@link io.sluice.pagestore.internal.checkpoint.PartitionFile}: writes and checks a partition file, block
 *       by block (each with its CRC32C);</li>
 *   <li>{@link io.sluice.pagestore.internal.checkpoint.Manifest}: the last complete checkpoint;</li>
 *   <li>{@link io.sluice.pagestore.internal.checkpoint.CheckpointLoader}: at start, loads the partition files;</li>
 *   <li>{@link io.sluice.pagestore.internal.checkpoint.CheckpointCorruptedException}: a damaged checkpoint file,
 *       named with the byte position.</li>
 * </ol>
 */
package io.sluice.pagestore.internal.checkpoint;
