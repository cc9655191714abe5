package io.sluice.streamer.internal;

import io.sluice.StreamerMetrics;

import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/** The live counters behind {@link io.sluice.DataStreamer#metrics()}. */
final class StreamerCounters implements StreamerMetrics {

    /** Entries of sealed batches; with the entries in open buffers, that is every entry added. */
    final LongAdder sealedEntries = new LongAdder();
    final LongAdder applied = new LongAdder();
    final LongAdder failed = new LongAdder();
    final LongAdder batchesSent = new LongAdder();
    private final BufferMemory memory;
    private LongSupplier openEntries = () -> 0;
    private LongSupplier openCredit = () -> 0;

    StreamerCounters(BufferMemory memory) {
        this.memory = memory;
    }

    /**
     * Where the partition buffers (made after the counters) count their entries not yet sealed and the
     * memory they reserved ahead without filling it.
     */
    void openBuffers(LongSupplier openEntries, LongSupplier openCredit) {
        this.openEntries = openEntries;
        this.openCredit = openCredit;
    }

    /**
     * Counted per batch, not per entry, so that adding costs no shared counter update: sealed
     * entries plus those in open buffers (read without their locks, so it may lag while adds run).
     */
    @Override
    public long added() {
        return sealedEntries.sum() + openEntries.getAsLong();
    }

    @Override
    public long applied() {
        return applied.sum();
    }

    @Override
    public long failed() {
        return failed.sum();
    }

    @Override
    public long batchesSent() {
        return batchesSent.sum();
    }

    /** Reserved memory less what open buffers reserved ahead; exact when no thread is adding. */
    @Override
    public long bufferedBytes() {
        return Math.max(0, memory.used() - openCredit.getAsLong());
    }

    @Override
    public String toString() {
        return "StreamerMetrics{added=" + added() + ", applied=" + applied() + ", failed=" + failed()
                + ", batchesSent=" + batchesSent() + ", bufferedBytes=" + bufferedBytes() + '}';
    }
}
