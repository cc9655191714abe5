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

    StreamerCounters(BufferMemory memory) {
        this.memory = memory;
    }

    /** Where entries not yet sealed are counted (the partition buffers, made after the counters). */
    void openEntries(LongSupplier openEntries) {
        this.openEntries = openEntries;
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

    @Override
    public long bufferedBytes() {
        return memory.used();
    }

    @Override
    public String toString() {
        return "StreamerMetrics{added=" + added() + ", applied=" + applied() + ", failed=" + failed()
                + ", batchesSent=" + batchesSent() + ", bufferedBytes=" + bufferedBytes() + '}';
    }
}
