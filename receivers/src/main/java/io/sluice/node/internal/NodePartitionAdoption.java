package io.sluice.node.internal;

import io.sluice.pagestore.internal.checkpoint.CheckpointCorruptedException;
import io.sluice.pagestore.internal.checkpoint.CheckpointLoader;
import io.sluice.pagestore.internal.checkpoint.Manifest;
import io.sluice.pagestore.internal.wal.WriteAheadLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.UUID;

/**
 * A node's {@link PartitionAdoption}. On a persistent node an incoming file is written into the moves directory
 * ({@code <persistence directory>/moves/}, as {@code in-c<cache id>-p<partition>-<uuid>.tmp}); adopting it renames it
 * to {@code adopt-c<cache id>-p<partition>-<uuid>.dat} there (the rename made durable), loads it in place of the
 * partition's entries ({@link CheckpointLoader#adopt}, under the partition's write lock), and logs one ADOPT record
 * naming it, under the same lock, so a replay loads the file at the same point among the partition's records. The
 * file stays until a checkpoint holds the partition ({@link AdoptedFiles}). On a node in memory, incoming files go
 * to a temporary directory of the node's and are deleted once loaded. Thread-safe.
 */
final class NodePartitionAdoption implements PartitionAdoption, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(NodePartitionAdoption.class);
    private static final String INCOMING_PREFIX = "in-";
    private static final String ADOPTED_PREFIX = "adopt-";

    private final NodeState state;
    private final CacheCatalogue catalogue;
    private final Durability durability;
    /** The log of a persistent node, or null. */
    private final WriteAheadLog wal;
    /** The moves directory's files the log needs (a persistent node), or null. */
    private final AdoptedFiles adopted;
    /** The temporary directory of a node in memory, made when first needed. Guarded by this. */
    private Path temporary;

    NodePartitionAdoption(NodeState state, CacheCatalogue catalogue, Durability durability, WriteAheadLog wal,
                          AdoptedFiles adopted) {
        this.state = state;
        this.catalogue = catalogue;
        this.durability = durability;
        this.wal = wal;
        this.adopted = adopted;
    }

    @Override
    public Path incomingFile(String cache, int partition) throws IOException {
        NodeCache<Object, Object> c = cacheWithPartition(cache, partition);
        String name = INCOMING_PREFIX + "c" + catalogue.idOf(c) + "-p" + partition + "-" + UUID.randomUUID() + ".tmp";
        return directory().resolve(name);
    }

    /**
     * {@inheritDoc}
     *
     * <p>Blocks for the load and, on a persistent node, for the log (never call it on the common pool or an apply
     * thread). The load applies the entries as sorted insert-if-absent batches of the checkpoint loader's size,
     * keeps the partition's field indexes, and counts as one write for the next checkpoint, which then writes the
     * partition.
     *
     * @throws IllegalArgumentException if the partition is not one of the cache's
     * @throws IllegalStateException    if the node is closing, or the cache was destroyed meanwhile
     * @throws io.sluice.DataRegionFullException (a {@code BatchApplyException}) if the region filled up during the
     *                                           load: the partition is then empty
     * @throws io.sluice.pagestore.internal.wal.WalFailedException if the log failed
     */
    @Override
    public long adopt(String cache, int partition, Path file) throws IOException {
        Path loaded = file;
        boolean keep = false;
        try {
            state.ensureNotClosing();
            NodeCache<Object, Object> c = cacheWithPartition(cache, partition);
            int cacheId = catalogue.idOf(c);
            String name = "";
            if (wal != null) {
                name = ADOPTED_PREFIX + "c" + cacheId + "-p" + partition + "-" + UUID.randomUUID() + ".dat";
                loaded = adopted.directory().resolve(name);
                moveIntoPlace(file, loaded);
            }
            long start = System.nanoTime();
            long entries;
            try {
                entries = CheckpointLoader.adopt(c.store(partition), partition, loaded, name);
            } catch (CheckpointCorruptedException e) {
                throw new IOException("cache '" + cache + "' partition " + partition + ": " + e.getMessage(), e);
            }
            if (wal != null) {
                keep = true; // its ADOPT record is logged: a replay needs it until a checkpoint holds the partition
                adopted.adopted(name, wal.end());
                durability.awaitDurable();
            }
            LOG.info("cache '{}' partition {}: adopted {} entries from {} ({} bytes) in {} ms", cache, partition,
                    entries, loaded.getFileName(), Files.size(loaded), (System.nanoTime() - start) / 1_000_000);
            return entries;
        } finally {
            if (!keep) {
                AdoptedFiles.delete(loaded);
                if (loaded != file) {
                    AdoptedFiles.delete(file);
                }
            }
        }
    }

    /** Renames the (fsynced) incoming file to its adopted name, durably: the log will name it. */
    private static void moveIntoPlace(Path from, Path to) throws IOException {
        try (FileChannel data = FileChannel.open(from, StandardOpenOption.READ)) {
            data.force(true); // the sender's writer fsynced it already: cheap, and the record must not outlive it
        }
        Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
        Manifest.syncDirectory(to.getParent());
    }

    private NodeCache<Object, Object> cacheWithPartition(String cache, int partition) {
        NodeCache<Object, Object> c = catalogue.nodeCache(cache);
        if (partition < 0 || partition >= c.partitions()) {
            throw new IllegalArgumentException("cache '" + cache + "' has " + c.partitions() + " partitions, not "
                    + partition);
        }
        return c;
    }

    private synchronized Path directory() throws IOException {
        if (adopted != null) {
            return Files.createDirectories(adopted.directory());
        }
        if (temporary == null) {
            temporary = Files.createTempDirectory("sluice-moves-");
        }
        return temporary;
    }

    /** Deletes the temporary directory of a node in memory, with what a transfer left in it. */
    @Override
    public synchronized void close() {
        if (temporary == null) {
            return;
        }
        try (var files = Files.list(temporary)) {
            files.forEach(AdoptedFiles::delete);
        } catch (IOException e) {
            LOG.warn("cannot list {}: {}", temporary, e.toString());
        }
        AdoptedFiles.delete(temporary);
        temporary = null;
    }
}
