/**
 * The write-ahead log of a persistent data region ({@code docs/durability.md}). The classes in the
 * order a write meets them:
 * <ol>
 *   <li>{@link io.sluice.store.internal.StoreJournal} (in the store package): what a
 *       {@code PartitionStore} calls, under its write lock, after each successful write;</li>
 *   <li>{@link io.sluice.store.internal.wal.WriteAheadLog}: the journal of each partition; copies the
 *       record into its buffer, and its writer thread writes and fsyncs buffers (group commit) and
 *       completes the writes waiting for durability;</li>
 *   <li>{@link io.sluice.store.internal.wal.WalFormat}: the byte layout of segments and records (the
 *       one definition);</li>
 *   <li>{@link io.sluice.store.internal.wal.WalReader}: at start, checks and replays every record,
 *       drops a torn tail, stops at damage anywhere else
 *       ({@link io.sluice.store.internal.wal.WalCorruptedException});</li>
 *   <li>{@link io.sluice.store.internal.wal.WalFailedException}: what writes fail with when the disk does.</li>
 * </ol>
 */
package io.sluice.store.internal.wal;
