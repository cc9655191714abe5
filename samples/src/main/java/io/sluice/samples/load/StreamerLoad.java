package io.sluice.samples.load;

import io.sluice.Cache;
import io.sluice.DataStreamer;
import io.sluice.Sluice;

/**
 * The streamer modes: every producer thread adds to one shared streamer (binary values with
 * {@code addFromBuilder}, written by the thread's builder straight into the streamer's buffer); {@link #finish} closes it,
 * which flushes and waits for every batch (and throws if one failed), inside the measured time.
 */
final class StreamerLoad extends CacheLoad {

    private final DataStreamer<Long, Object> streamer;

    StreamerLoad(Sluice sluice, Cache<Long, Object> cache, KeyPlan plan, ValueKind kind, String pad,
                 DataStreamer<Long, Object> streamer) {
        super(sluice, cache, plan, kind, pad);
        this.streamer = streamer;
    }

    @Override
    EntrySink sinkFor(int thread) {
        return new EntrySink() {
            @Override
            public void write(long key, Object value) {
                streamer.addData(key, value);
            }

            /** A binary value is written by its builder straight into the streamer's buffer. */
            @Override
            public void write(long key, ValueSource values) {
                values.addTo(streamer, key);
            }
        };
    }

    @Override
    public void finish() {
        streamer.close();
    }

    @Override
    public void close() {
        try {
            streamer.close(true);
        } finally {
            super.close();
        }
    }
}
