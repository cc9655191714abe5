package io.sluice.streamer.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * The accumulator: one {@link PartitionBuffer} per partition and the rules that seal them (by
 * entry count, by bytes, by age, on flush). A sealed batch is queued for its node under the
 * partition's lock (so a partition's batches queue in seal order) and sent after the lock is
 * released, so sending never holds up threads adding to that partition.
 */
final class PartitionBuffers {

    private final PartitionBuffer[] buffers;
    private final int maxEntries;
    private final int maxBytes;
    private final int creditChunk;
    private final BatchSender sender;
    private volatile boolean closed;

    PartitionBuffers(int partitions, int maxEntries, int maxBytes, BufferMemory memory, BatchLedger ledger,
                     BatchSender sender, BatchArrays arrays) {
        long bufferMemory = memory.limit();
        this.buffers = new PartitionBuffer[partitions];
        // A full buffer holds maxBytes plus at most one entry. Before the first batch shows the entry size, start
        // at the fair share of the buffer memory: buffers are sent when they hold it all, and arrays still grow.
        int maxCapacity = (int) Math.min((long) maxBytes + 1024, Integer.MAX_VALUE - 16);
        int firstCapacity = (int) Math.min(maxCapacity, Math.max(4096, bufferMemory / partitions));
        StagingBlocks staging = new StagingBlocks(partitions);
        for (int p = 0; p < partitions; p++) {
            buffers[p] = new PartitionBuffer(p, ledger, memory, arrays, staging, maxEntries, firstCapacity,
                    maxCapacity);
        }
        // Memory is reserved ahead in chunks, at most 4 KiB and small enough that credits held by every open
        // buffer stay under an eighth of the buffer memory; with a small memory that means entry by entry.
        this.creditChunk = (int) Math.min(4096, bufferMemory / (8L * partitions));
        this.maxEntries = maxEntries;
        this.maxBytes = maxBytes;
        this.sender = sender;
    }

    /** Entries in open buffers; read without the locks, so only exact when no thread is adding. */
    long openEntries() {
        long entries = 0;
        for (PartitionBuffer buffer : buffers) {
            entries += buffer.count();
        }
        return entries;
    }

    /** Bytes of buffer memory reserved ahead by open buffers and not filled; exact only when no thread adds. */
    long openCredit() {
        long bytes = 0;
        for (PartitionBuffer buffer : buffers) {
            bytes += buffer.credit();
        }
        return bytes;
    }

    boolean isClosed() {
        return closed;
    }

    /**
     * Appends an encoded entry to its partition's buffer and sends the buffer if that made it full.
     *
     * @param reserved whether the caller already reserved the entry's buffer memory; if not, it is
     *                 taken from the buffer's credit
     * @return the future of the batch the entry joined, or null if nothing was appended: the buffers are closed
     *         ({@link #isClosed()}), or the memory is full (the caller waits for it, then appends reserved)
     */
    BatchFuture append(int partition, byte[] entry, int entryLength, boolean reserved) {
        PartitionBuffer buffer = buffers[partition];
        BatchFuture joined;
        BatchSender.NodeQueue full = null;
        synchronized (buffer) {
            // Checked under the lock: closing sets the flag before it sweeps each buffer under the same lock.
            if (closed || (!reserved && !buffer.takeCredit(entryLength, creditChunk))) {
                return null;
            }
            joined = buffer.append(entry, entryLength);
            if (buffer.count() >= maxEntries || buffer.length() >= maxBytes) {
                full = sender.enqueue(buffer.seal());
            }
        }
        if (full != null) {
            sender.drain(full);
        }
        return joined;
    }

    /** Seals every non-empty buffer and sends them together, so one node's batches share a request. */
    void sealAll() {
        sealMatching(true, 0);
    }

    /** Seals and sends the buffers whose first entry was added at or before {@code nanos}. */
    void sealOlderThan(long nanos) {
        sealMatching(false, nanos);
    }

    private void sealMatching(boolean all, long firstEntryAtOrBefore) {
        List<BatchSender.NodeQueue> touched = null;
        for (PartitionBuffer buffer : buffers) {
            long first = buffer.firstEntryNanos();
            // Unlocked pre-check keeps a sweep over idle partitions cheap.
            if (first == PartitionBuffer.EMPTY || !(all || first - firstEntryAtOrBefore <= 0)) {
                continue;
            }
            BatchSender.NodeQueue node;
            synchronized (buffer) {
                first = buffer.firstEntryNanos();
                if (first == PartitionBuffer.EMPTY || !(all || first - firstEntryAtOrBefore <= 0)) {
                    continue;
                }
                node = sender.enqueue(buffer.seal());
            }
            if (touched == null) {
                touched = new ArrayList<>(4);
            }
            if (!touched.contains(node)) {
                touched.add(node);
            }
        }
        // Drained once per node after every buffer was queued: a node's batches share a request.
        if (touched != null) {
            for (BatchSender.NodeQueue node : touched) {
                sender.drain(node);
            }
        }
    }

    /**
     * Refuses further appends and seals what is buffered, returning it (not sending it): the caller
     * either sends it (close) or cancels it (close with cancel).
     */
    List<Batch> closeAndSeal() {
        closed = true;
        List<Batch> sealed = new ArrayList<>();
        for (PartitionBuffer buffer : buffers) {
            synchronized (buffer) {
                Batch batch = buffer.seal();
                if (batch != null) {
                    sealed.add(batch);
                }
            }
        }
        return sealed;
    }
}
