/**
 * The write-ahead log of a persistent data region ({@code docs/durability.md}). The classes in the
 * order a write meets them:
 * <ol>
 *   <li>{@link io.sluice.pagestore.internal.StoreJournal} (in the store package): what a
 *       {@code PartitionStore} calls, under its write lock, after each successful write;</li>
 *   <li>{@link io.sluice.pagestore.internal.wal.WriteAheadLog}: the journal of each partition; encodes the
 *       record, and wires the parts below;</li>
 *   <li>{@code AppendBuffer}: copies the record into the filling one of its two buffers, under the log's
 *       monitor (a memory copy, no I/O);</li>
 *   <li>{@code GroupCommitWriter}: the writer thread; swaps the buffers, writes and fsyncs the full one
 *       (group commit), starts a new segment at a checkpoint's mark, publishes the positions in
 *       {@code WalProgress};</li>
 *   <li>{@code DurabilityWaiters}: the writes waiting for their position to be durable, completed by the
 *       writer;</li>
 *   <li>{@code WalSegments}: the segment files (create, write in whole blocks with direct I/O, roll, delete
 *       once a checkpoint covers them); {@code DirectSegmentOpener}: opens them for direct I/O where the file
 *       system allows it; {@code DirectoryLock}: one node per directory;</li>
 *   <li>{@link io.sluice.pagestore.internal.wal.WalFormat}: the byte layout of segments and records (the
 *       one definition);</li>
 *   <li>{@link io.sluice.pagestore.internal.wal.WalReader}: at start, checks and replays every record,
 *       drops a torn tail, stops at damage anywhere else
 *       ({@link io.sluice.pagestore.internal.wal.WalCorruptedException});</li>
 *   <li>{@link io.sluice.pagestore.internal.wal.WalFailedException}: what writes fail with when the disk does;</li>
 *   <li>{@link io.sluice.pagestore.internal.wal.WalSettings}: what the log is told when it opens (the node maps
 *       its persistence options onto it: the log sees nothing of the node).</li>
 * </ol>
 */
package io.sluice.pagestore.internal.wal;
