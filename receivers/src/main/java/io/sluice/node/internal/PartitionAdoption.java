package io.sluice.node.internal;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Makes a partition file that came from another node (issue 28: a partition moved as its file) this node's copy of
 * one cache's partition. The file is in the checkpoint's partition-file format ({@code PartitionFile}), written by
 * the sending node: its header carries the sender's cache id and file number, which this node's ids need not equal.
 */
public interface PartitionAdoption {

    /**
     * Where a transfer writes an incoming file: a fresh path in this node's moves directory (under the persistence
     * directory, so that {@link #adopt} can rename it atomically; a temporary directory on a node in memory). Files
     * left there by a transfer that did not finish are deleted when the node starts.
     */
    Path incomingFile(String cache, int partition) throws IOException;

    /**
     * Replaces this node's copy of the cache's partition by the file's entries and returns once that copy is as
     * durable as a logged write in the node's WAL mode (on a persistent node the log names the adopted file, which is
     * kept until a checkpoint holds the partition; in memory, at once). Takes the partition's write lock while it
     * loads. The file is consumed (renamed into place, or deleted) whatever the outcome.
     *
     * @return the entries loaded
     * @throws io.sluice.CacheNotFoundException if the cache is not on this node
     * @throws IOException if the file fails a check or cannot be read: the partition is then left empty, and the
     *                     caller must build it another way before serving it
     */
    long adopt(String cache, int partition, Path file) throws IOException;
}
