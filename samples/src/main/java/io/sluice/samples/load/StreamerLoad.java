package io.sluice.samples.load;

import io.sluice.Cache;
import io.sluice.DataStreamer;
import io.sluice.Sluice;

/**
 * The streamer modes: every producer thread adds to one shared streamer; {@link #finish} closes it,
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
        return streamer::addData;
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
