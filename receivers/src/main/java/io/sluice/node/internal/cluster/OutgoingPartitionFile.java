package io.sluice.node.internal.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A partition file a supplier wrote to send (PARTITION_FILE), with its checks: what the server's sender needs. The
 * sender reports its progress and must call {@link #ended} once, whatever the outcome: that deletes the file.
 * Thread-safe.
 */
public final class OutgoingPartitionFile {

    private final Path path;
    private final PartitionFileWire.Header header;
    private final int[] chunkCrcs;
    private final MoveStats.Transfer transfer;
    private final TransferRate rate;
    private final AtomicBoolean ended = new AtomicBoolean();

    OutgoingPartitionFile(Path path, PartitionFileWire.Header header, int[] chunkCrcs, MoveStats.Transfer transfer,
                          TransferRate rate) {
        this.path = path;
        this.header = header;
        this.chunkCrcs = chunkCrcs;
        this.transfer = transfer;
        this.rate = rate;
    }

    public Path path() {
        return path;
    }

    public PartitionFileWire.Header header() {
        return header;
    }

    /** The CRC32C of chunk {@code index}. */
    public int chunkCrc(int index) {
        return chunkCrcs[index];
    }

    /**
     * Reserves the next chunk's bytes at the node's send rate (moveBytesPerSecond): in how many nanoseconds it may
     * go (0: now). Never blocks.
     */
    public long reserve(int bytes) {
        return rate.reserve(bytes);
    }

    /** Gives back bytes {@link #reserve reserved} for a chunk that will not be sent (the connection closed). */
    public void unreserve(int bytes) {
        rate.unreserve(bytes);
    }

    /** A chunk of this many bytes was taken by the connection. */
    public void sent(int bytes) {
        transfer.progressed(bytes);
    }

    /** The send ended (every chunk taken, or failed): the file is deleted. Only the first call counts. */
    public void ended(boolean ok) {
        if (ended.compareAndSet(false, true)) {
            transfer.ended(ok);
            try {
                Files.deleteIfExists(path);
            } catch (IOException e) {
                PartitionFileSupplier.LOG.warn("could not delete the sent partition file {}: {}", path, e.toString());
            }
        }
    }
}
