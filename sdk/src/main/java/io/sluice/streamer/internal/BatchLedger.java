package io.sluice.streamer.internal;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Accounts for every sealed batch until its final state: which batches are unfinished (what
 * {@code flush()} waits for and {@code close(true)} cancels), the bytes they hold, the counters and
 * the failures. Work here is per batch, never per entry.
 */
final class BatchLedger {

    private final Set<Batch> unfinished = ConcurrentHashMap.newKeySet();
    private final AtomicLong sealedBytes = new AtomicLong();
    private final BufferMemory memory;
    private final StreamerCounters counters;
    private final FailureLog failures = new FailureLog();

    BatchLedger(BufferMemory memory, StreamerCounters counters) {
        this.memory = memory;
        this.counters = counters;
    }

    /** Called under the partition buffer's lock, so a flush that seals after it also sees the batch here. */
    void sealed(Batch batch) {
        unfinished.add(batch);
        sealedBytes.addAndGet(batch.bytes());
        counters.sealedEntries.add(batch.size());
    }

    /** Called once per batch, by the transition to its final state and before its future completes. */
    void finished(Batch batch, int appliedEntries, Throwable cause) {
        int failedEntries = batch.size() - appliedEntries;
        counters.applied.add(appliedEntries);
        if (failedEntries > 0 || cause != null) {
            counters.failed.add(failedEntries);
            failures.record(failedEntries, cause);
        }
        sealedBytes.addAndGet(-batch.bytes());
        memory.release(batch.bytes());
    }

    /**
     * Called after the batch's future completed. Until then the batch stays listed as unfinished, so
     * a flush or cancelling close that looks while another thread completes it still waits for it.
     */
    void forget(Batch batch) {
        unfinished.remove(batch);
    }

    /** Batches sealed and not finished, at some moment during the call. */
    Batch[] unfinished() {
        return unfinished.toArray(new Batch[0]);
    }

    /** Bytes of sealed, unfinished batches: memory that frees up without sending anything more. */
    long sealedBytes() {
        return sealedBytes.get();
    }

    FailureLog failures() {
        return failures;
    }
}
