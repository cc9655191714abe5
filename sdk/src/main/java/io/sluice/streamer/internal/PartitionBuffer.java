package io.sluice.streamer.internal;

import java.util.Arrays;

/**
 * One partition's open batch: encoded entries in the {@link io.sluice.protocol.EntryBatch} format,
 * appended under this buffer's own lock (threads adding to different partitions never meet). When
 * sealed the buffer hands its array to the batch and starts a new one, sized from the last batch so
 * that steady loads rarely grow an array.
 *
 * <p>Every method but {@link #firstEntryNanos()} must be called holding the buffer's monitor.
 */
final class PartitionBuffer {

    private static final int MIN_CAPACITY = 256;
    /** No open batch: {@link #firstEntryNanos} holds this. */
    static final long EMPTY = Long.MIN_VALUE;

    private final int partition;
    private final BatchLedger ledger;
    private final int maxEntries;
    private final int maxCapacityHint;
    private byte[] data;
    private int length;
    private int count;
    private Batch batch;
    /** When the open batch got its first entry; read without the lock by the auto-flusher. */
    private volatile long firstEntryNanos = EMPTY;

    PartitionBuffer(int partition, BatchLedger ledger, int maxEntries, int maxCapacityHint) {
        this.partition = partition;
        this.ledger = ledger;
        this.maxEntries = maxEntries;
        this.maxCapacityHint = maxCapacityHint;
    }

    /** Appends an encoded entry; returns the batch it joined. */
    Batch append(byte[] src, int entryLength) {
        if (batch == null) {
            batch = new Batch(partition, ledger);
            firstEntryNanos = System.nanoTime();
            if (data == null) {
                // First batch of the partition: guess that entries are alike, so it fills by count or by bytes.
                long guess = (long) entryLength * maxEntries;
                data = new byte[(int) Math.max(MIN_CAPACITY, Math.min(guess, maxCapacityHint))];
            }
        }
        if (length + entryLength > data.length) {
            long grown = Math.max((long) length + entryLength, (long) data.length * 2);
            data = Arrays.copyOf(data, (int) Math.min(grown, Integer.MAX_VALUE - 16));
        }
        System.arraycopy(src, 0, data, length, entryLength);
        length += entryLength;
        count++;
        return batch;
    }

    int count() {
        return count;
    }

    int length() {
        return length;
    }

    boolean isEmpty() {
        return batch == null;
    }

    long firstEntryNanos() {
        return firstEntryNanos;
    }

    /** Hands the bytes to the open batch and starts an empty buffer; null if there is no open batch. */
    Batch seal() {
        Batch sealed = batch;
        if (sealed == null) {
            return null;
        }
        sealed.seal(data, length, count);
        // The next batch of this partition is likely about as large as this one.
        int next = Math.max(MIN_CAPACITY, Math.min(length + (length >>> 4), maxCapacityHint));
        data = new byte[next];
        length = 0;
        count = 0;
        batch = null;
        firstEntryNanos = EMPTY;
        return sealed;
    }
}
