package io.sluice.streamer.internal;

import java.util.Arrays;

/**
 * One partition's open batch: encoded entries in the {@link io.sluice.protocol.internal.EntryBatch} format,
 * appended under this buffer's own lock (threads adding to different partitions never meet). When
 * sealed the buffer hands its array to the batch; the next array is allocated by the next entry
 * (an idle partition holds no array), sized from the last batch so that steady loads rarely grow it.
 *
 * <p>Entries are first copied into a small staging slot of this buffer ({@value #STAGE} bytes of an array shared
 * with neighbouring partitions, {@link StagingBlocks}, allocated by the first entry of one of them and kept), and moved into the batch's array a run at a time,
 * when the next entry does not fit or the batch is sealed. Why: with many partitions an adding thread scatters
 * entries over as many open batch arrays (1,024 of ~56 KiB for a StockOrder load), so copying each entry
 * straight into its array wrote lines that were not cached, one missing line after another: the largest stage
 * of a load's CPU (docs/benchmarks-results.md, issue 29). The staging slots stay cached (1,024 partitions:
 * 1 MiB, within the core's 2 MiB L2 on the measuring machine), and a run of entries goes into the batch's array
 * as one sequential copy, whose missing lines the core fetches together. An entry larger than the staging
 * array goes straight into the batch's array.
 *
 * <p>Every method but {@link #firstEntryNanos()} and {@link #count()} must be called holding the
 * buffer's monitor.
 */
final class PartitionBuffer {

    private static final int MIN_CAPACITY = 256;
    /** Bytes of the staging array (see the class comment). */
    static final int STAGE = 1024;
    /** No open batch: {@link #firstEntryNanos} holds this. */
    static final long EMPTY = Long.MIN_VALUE;

    private final int partition;
    private final BatchLedger ledger;
    private final BufferMemory memory;
    private final BatchArrays arrays;
    private final int maxCapacity;
    private final int maxEntries;
    /** Capacity of the next array: the last batch's size plus some slack; 0 before the first batch. */
    private int nextCapacity;
    private final int firstCapacity;
    private byte[] data;
    /** Bytes of the open batch: those in {@link #data} and then the {@link #stagedLength} in {@link #staged}. */
    private int length;
    /** Where staged entries go: this partition's slot of a shared block ({@link StagingBlocks}). */
    private final StagingBlocks staging;
    /** The block holding this partition's slot, looked up by the first entry; the slot starts at {@link #slot}. */
    private byte[] staged;
    private final int slot;
    /** Bytes staged in the slot: entries appended and not yet moved into {@link #data}. */
    private int stagedLength;
    private int count;
    private Batch batch;
    /** The open batch's future, kept here so that handing it to the adder does not touch the batch's memory. */
    private BatchFuture future;
    /** Buffer memory reserved ahead for the open batch and not filled yet; returned when it is sealed. */
    private long credit;
    /** When the open batch got its first entry; read without the lock by the auto-flusher. */
    private volatile long firstEntryNanos = EMPTY;

    /**
     * @param maxEntries    entries that fill a buffer
     * @param firstCapacity largest capacity of the first array
     * @param maxCapacity   largest capacity chosen up front (arrays grow past it for a large entry)
     */
    PartitionBuffer(int partition, BatchLedger ledger, BufferMemory memory, BatchArrays arrays, StagingBlocks staging,
                    int maxEntries, int firstCapacity, int maxCapacity) {
        this.arrays = arrays;
        this.staging = staging;
        this.slot = StagingBlocks.slot(partition);
        this.partition = partition;
        this.ledger = ledger;
        this.memory = memory;
        this.maxEntries = maxEntries;
        this.maxCapacity = maxCapacity;
        this.firstCapacity = Math.min(firstCapacity, maxCapacity);
    }

    /**
     * Takes an entry's bytes of buffer memory from this buffer's credit, topping the credit up from
     * the shared memory by at least {@code chunk} bytes at a time: adding threads touch the shared
     * counter once per chunk instead of once per entry.
     *
     * @return false if the shared memory cannot give that much now (nothing was taken)
     */
    boolean takeCredit(int bytes, int chunk) {
        if (credit < bytes) {
            long topUp = Math.max(bytes, chunk) - credit;
            if (!memory.tryReserve(topUp)) {
                return false;
            }
            credit += topUp;
        }
        credit -= bytes;
        return true;
    }

    /** Reserved and unfilled bytes; also read without the lock by metrics (a stale value is fine there). */
    long credit() {
        return credit;
    }

    /** Appends an encoded entry whose memory is already reserved; returns the future of the batch it joined. */
    BatchFuture append(byte[] src, int entryLength) {
        if (batch == null) {
            batch = new Batch(partition, ledger, arrays);
            future = batch.future();
            firstEntryNanos = System.nanoTime();
            int capacity = nextCapacity;
            if (capacity == 0) {
                // First batch: guess that entries are alike, so it fills by count, within the first-capacity cap.
                capacity = (int) Math.min((long) entryLength * maxEntries, firstCapacity);
            }
            int wanted = Math.max(MIN_CAPACITY, Math.max(capacity, entryLength));
            data = arrays.take(Math.max(entryLength, capacity - (capacity >>> 3)), wanted);
        }
        if (entryLength > STAGE) {
            unstage();
            copyInto(src, 0, entryLength, length);
        } else {
            if (staged == null) {
                staged = staging.block(partition);
            } else if (stagedLength + entryLength > STAGE) {
                unstage();
            }
            System.arraycopy(src, 0, staged, slot + stagedLength, entryLength);
            stagedLength += entryLength;
        }
        length += entryLength;
        count++;
        return future;
    }

    /** Moves the staged entries into the batch's array, after the entries already there. */
    private void unstage() {
        int n = stagedLength;
        if (n > 0) {
            copyInto(staged, slot, n, length - n); // length already counts them
            stagedLength = 0;
        }
    }

    /**
     * Copies {@code n} bytes to {@code at} of the batch's array, growing it if needed; changes no count, so a
     * failure (no memory to grow) leaves the buffer as it was.
     */
    private void copyInto(byte[] src, int from, int n, int at) {
        if (at + n > data.length) {
            long grown = Math.max((long) at + n, (long) data.length * 2);
            data = Arrays.copyOf(data, (int) Math.min(grown, Integer.MAX_VALUE - 16));
        }
        System.arraycopy(src, from, data, at, n);
    }

    /** Entries in the open batch; also read without the lock by metrics (a stale value is fine there). */
    int count() {
        return count;
    }

    int length() {
        return length;
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
        unstage();
        sealed.seal(data, length, count);
        if (credit > 0) {
            memory.release(credit);
            credit = 0;
        }
        // The next batch of this partition is likely about as large as this one.
        nextCapacity = Math.max(MIN_CAPACITY, Math.min(length + (length >>> 4), maxCapacity));
        data = null;
        length = 0;
        count = 0;
        batch = null;
        future = null;
        firstEntryNanos = EMPTY;
        return sealed;
    }
}
