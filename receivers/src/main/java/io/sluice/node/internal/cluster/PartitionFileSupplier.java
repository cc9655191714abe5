package io.sluice.node.internal.cluster;

import io.sluice.CacheNotFoundException;
import io.sluice.node.internal.NodeCache;
import io.sluice.node.internal.NodeEngine;
import io.sluice.pagestore.internal.EntryImage;
import io.sluice.pagestore.internal.checkpoint.PartitionFile;
import io.sluice.pagestore.internal.wal.WalFormat;
import io.sluice.protocol.internal.MoveRefusedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.lang.ref.SoftReference;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.IntPredicate;
import java.util.zip.Deflater;

/**
 * The supplier's side of a partition moved as its file (PARTITION_FILE, issue 28): copies one cache's partition
 * under the partition's read lock (as a checkpoint does, {@code PartitionStore.copyIfChanged}), releases the lock,
 * and writes the copy as a partition file (the checkpoint's format, this node's cache id, number 0; its blocks
 * stored, {@link #LEVEL}) into a transfer file: under {@code <persistence>/moves/} on a persistent node, in a
 * directory of its own under the system's temporary directory in memory. The CRC32C of each chunk and of the whole file are computed as it is written. The
 * server's sender sends it and deletes it ({@link OutgoingPartitionFile#ended}); transfer files a node left when it
 * stopped are deleted at its start (the moves directory keeps only the files its log needs) and by its first send.
 * Thread-safe: sends run at once, sharing the node's send rate ({@link TransferRate}).
 */
public final class PartitionFileSupplier implements AutoCloseable {

    static final Logger LOG = LoggerFactory.getLogger(PartitionFileSupplier.class);
    static final String OUTGOING_PREFIX = "out-";
    /**
     * A moved file's blocks are stored, not compressed: deflating at its fastest level was a quarter of a file
     * move's time on the supplier's core (and inflating a tenth of adopting it), while the bytes it saves cost
     * less to send, write and check than to compress (docs/cluster.md § Moving a partition, the figures).
     */
    public static final int LEVEL = Deflater.NO_COMPRESSION;
    /** Images kept between sends: as many as a demander's default permits ask for at once. */
    static final int KEPT_IMAGES = 2;

    private final NodeEngine node;
    private final IntPredicate inSync;
    private final MoveStats stats;
    private final TransferRate rate;
    private final AtomicLong sequence = new AtomicLong();
    /**
     * Images of earlier sends, kept for the next ones softly (the collector takes them back when the heap needs
     * them): a 10 MB partition copied into a fresh image grew it from 64 KiB by doubling, ~3x its size in young
     * garbage per send, whose collections paused the supplier mid-move.
     */
    private final ConcurrentLinkedQueue<SoftReference<EntryImage>> images = new ConcurrentLinkedQueue<>();
    private final boolean temporary;
    private volatile Path directory;
    /** Called with each transfer file once its checks are computed, before it is sent (tests corrupt it). */
    volatile Consumer<Path> afterWrite = p -> { };

    /**
     * @param inSync whether this node serves the partition or backs it caught up (for a request that asks for a copy
     *               in sync)
     */
    PartitionFileSupplier(NodeEngine node, IntPredicate inSync, MoveStats stats, long bytesPerSecond) {
        this.node = node;
        this.inSync = inSync;
        this.stats = stats;
        this.rate = new TransferRate(bytesPerSecond);
        this.temporary = !node.config().persistence().enabled();
    }

    /**
     * Writes the cache's partition as a transfer file to send to {@code peer}.
     *
     * @throws CacheNotFoundException if this node has no such cache
     * @throws MoveRefusedException   if a copy in sync was asked for and this is none, the partition is out of the
     *                                cache's range, or the file could not be written (it is deleted)
     */
    public OutgoingPartitionFile prepare(String cache, int partition, int chunkSize, boolean inSyncOnly, String peer) {
        NodeCache<Object, Object> c = node.nodeCache(cache);
        if (partition < 0 || partition >= c.partitions()) {
            throw new MoveRefusedException("cache '" + cache + "' has no partition " + partition);
        }
        if (inSyncOnly && !inSync.test(partition)) {
            throw new MoveRefusedException("node '" + node.id() + "' neither serves partition " + partition
                    + " nor backs it caught up");
        }
        int cacheId = node.cacheId(cache);
        long t0 = System.nanoTime();
        EntryImage image = takeImage();
        try {
            c.store(partition).copyIfChanged(Long.MIN_VALUE, image); // under the partition's read lock
        } catch (IllegalStateException e) {
            node.nodeCache(cache); // CacheNotFoundException if it was destroyed meanwhile
            throw new MoveRefusedException("node '" + node.id() + "' could not copy cache '" + cache + "' partition "
                    + partition + ": " + e.getMessage()); // over 2 GiB
        }
        long copied = System.nanoTime() - t0;
        Path file = null;
        try {
            file = directory().resolve(OUTGOING_PREFIX + cacheId + "-p" + partition + "-"
                    + sequence.incrementAndGet() + ".part");
            ChunkCrcChannel out;
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE)) {
                out = new ChunkCrcChannel(channel, chunkSize);
                PartitionFile.write(out, cacheId, partition, 0, image, LEVEL);
            }
            PartitionFileWire.Header header = new PartitionFileWire.Header(out.length(), image.count(), chunkSize,
                    PartitionFileWire.Header.chunksOf(out.length(), chunkSize), out.fileCrc(), cacheId);
            LOG.debug("cache '{}' partition {}: {} entries copied in {} ms, written as {} bytes in {} ms", cache,
                    partition, image.count(), copied / 1_000_000, out.length(),
                    (System.nanoTime() - t0 - copied) / 1_000_000);
            giveBack(image);
            image = null;
            afterWrite.accept(file);
            return new OutgoingPartitionFile(file, header, out.chunkCrcs(),
                    stats.transferStarted(partition, peer, false, out.length()), rate);
        } catch (IOException | RuntimeException e) {
            if (image != null) {
                giveBack(image);
            }
            if (file != null) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            if (e instanceof MoveRefusedException r) {
                throw r;
            }
            throw new MoveRefusedException("node '" + node.id() + "' could not write cache '" + cache
                    + "' partition " + partition + " as a file: " + e);
        }
    }

    /** An image kept from an earlier send, or a new one. */
    private EntryImage takeImage() {
        SoftReference<EntryImage> kept;
        while ((kept = images.poll()) != null) {
            EntryImage image = kept.get();
            if (image != null) {
                return image;
            }
        }
        return new EntryImage();
    }

    /** Keeps the image for a later send, up to {@link #KEPT_IMAGES} of them. */
    private void giveBack(EntryImage image) {
        image.clear();
        if (images.size() < KEPT_IMAGES) {
            images.offer(new SoftReference<>(image));
        }
    }

    private Path directory() throws IOException {
        Path d = directory;
        if (d == null) {
            synchronized (this) {
                d = directory;
                if (d == null) {
                    d = temporary ? Files.createTempDirectory("sluice-moves-") : Files.createDirectories(
                            node.config().persistence().directory().resolve(WalFormat.MOVES_DIRECTORY));
                    deleteOutgoing(d); // left by an earlier run of the node
                    directory = d;
                }
            }
        }
        return d;
    }

    private static void deleteOutgoing(Path d) throws IOException {
        try (var files = Files.list(d)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                if (f.getFileName().toString().startsWith(OUTGOING_PREFIX)) {
                    Files.deleteIfExists(f);
                }
            }
        }
    }

    /** Deletes the temporary directory of a node in memory (its files are deleted as their sends end). */
    @Override
    public void close() {
        Path d = directory;
        if (temporary && d != null) {
            try (var files = Files.list(d)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    Files.deleteIfExists(f);
                }
                Files.deleteIfExists(d);
            } catch (IOException e) {
                LOG.warn("could not delete the transfer directory {}: {}", d, e.toString());
            }
        }
    }
}
