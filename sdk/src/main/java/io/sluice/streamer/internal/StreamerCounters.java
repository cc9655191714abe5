package io.sluice.streamer.internal;

import io.sluice.StreamerMetrics;

import java.util.concurrent.atomic.LongAdder;

/** The live counters behind {@link io.sluice.DataStreamer#metrics()}. */
final class StreamerCounters implements StreamerMetrics {

    // LongAdder: added is bumped by every adding thread, so it must not be one contended word.
    final LongAdder added = new LongAdder();
    final LongAdder applied = new LongAdder();
    final LongAdder failed = new LongAdder();
    final LongAdder batchesSent = new LongAdder();
    private final BufferMemory memory;

    StreamerCounters(BufferMemory memory) {
        this.memory = memory;
    }

    @Override
    public long added() {
        return added.sum();
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
