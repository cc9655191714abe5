package io.sluice.streamer.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The accumulator: one {@link PartitionBuffer} per partition and the rules that seal them (by
 * entry count, by bytes, by age, on flush). Sealed batches go to the sink (the sender) after the
 * partition's lock is released, so sending never holds up threads adding to that partition.
 */
final class PartitionBuffers {

    private final PartitionBuffer[] buffers;
    private final int maxEntries;
    private final int maxBytes;
    private final Consumer<Batch> sink;
    private final Consumer<List<Batch>> bulkSink;
    private volatile boolean closed;

    PartitionBuffers(int partitions, int maxEntries, int maxBytes, BatchLedger ledger, Consumer<Batch> sink,
                     Consumer<List<Batch>> bulkSink) {
        this.buffers = new PartitionBuffer[partitions];
        // A full buffer holds maxBytes plus at most one entry; arrays start small and follow the load.
        int capacityHint = (int) Math.min((long) maxBytes + 1024, Integer.MAX_VALUE - 16);
        for (int p = 0; p < partitions; p++) {
            buffers[p] = new PartitionBuffer(p, ledger, capacityHint);
        }
        this.maxEntries = maxEntries;
        this.maxBytes = maxBytes;
        this.sink = sink;
        this.bulkSink = bulkSink;
    }

    int partitions() {
        return buffers.length;
    }

    /**
     * Appends an encoded entry to its partition's buffer and sends the buffer if that made it full.
     *
     * @return the batch the entry joined, or null if the buffers were closed (nothing was appended)
     */
    Batch append(int partition, byte[] entry, int entryLength) {
        PartitionBuffer buffer = buffers[partition];
        Batch joined;
        Batch full = null;
        synchronized (buffer) {
            // Checked under the lock: closing sets the flag before it sweeps each buffer under the same lock.
            if (closed) {
                return null;
            }
            joined = buffer.append(entry, entryLength);
            if (buffer.count() >= maxEntries || buffer.length() >= maxBytes) {
                full = buffer.seal();
            }
        }
        if (full != null) {
            sink.accept(full);
        }
        return joined;
    }

    /** Seals every non-empty buffer and sends them together, so one node's batches share a request. */
    void sealAll() {
        sealMatching(Long.MAX_VALUE);
    }

    /** Seals and sends the buffers whose first entry was added at or before {@code nanos}. */
    void sealOlderThan(long nanos) {
        sealMatching(nanos);
    }

    private void sealMatching(long firstEntryAtOrBefore) {
        List<Batch> sealed = null;
        for (PartitionBuffer buffer : buffers) {
            long first = buffer.firstEntryNanos();
            // Unlocked pre-check keeps a sweep over idle partitions cheap.
            if (first == PartitionBuffer.EMPTY || !olderOrEqual(first, firstEntryAtOrBefore)) {
                continue;
            }
            Batch batch;
            synchronized (buffer) {
                first = buffer.firstEntryNanos();
                if (first == PartitionBuffer.EMPTY || !olderOrEqual(first, firstEntryAtOrBefore)) {
                    continue;
                }
                batch = buffer.seal();
            }
            if (sealed == null) {
                sealed = new ArrayList<>();
            }
            sealed.add(batch);
        }
        if (sealed != null) {
            bulkSink.accept(sealed);
        }
    }

    private static boolean olderOrEqual(long first, long bound) {
        return bound == Long.MAX_VALUE || first - bound <= 0;
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
