package io.sluice.streamer.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Sends buffers whose first entry is older than {@code autoFlushInterval}, from one daemon thread per
 * streamer that stops when the streamer closes. It ticks four times per interval, so an entry waits
 * at most about 1.25 intervals; a tick reads one volatile per partition and locks only buffers that
 * are due.
 */
final class AutoFlusher {

    private static final Logger LOG = LoggerFactory.getLogger(AutoFlusher.class);
    private static final long MIN_TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final ScheduledExecutorService scheduler;

    private AutoFlusher(String cacheName, PartitionBuffers buffers, long intervalNanos) {
        this.scheduler = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, threadName(cacheName));
            thread.setDaemon(true);
            return thread;
        });
        long tick = Math.max(MIN_TICK_NANOS, intervalNanos / 4);
        scheduler.scheduleWithFixedDelay(() -> {
            try {
                buffers.sealOlderThan(System.nanoTime() - intervalNanos);
            } catch (RuntimeException e) {
                // The next tick tries again; the batches' futures carry any send failure.
                LOG.warn("auto-flush of cache '{}' failed", cacheName, e);
            }
        }, tick, tick, TimeUnit.NANOSECONDS);
    }

    /** A running flusher, or null when the interval is zero (auto-flush off). */
    static AutoFlusher startIfEnabled(String cacheName, PartitionBuffers buffers, Duration interval) {
        if (interval.isZero()) {
            return null;
        }
        return new AutoFlusher(cacheName, buffers, Durations.toNanos(interval));
    }

    /** The name of the flusher thread of a cache's streamer. */
    static String threadName(String cacheName) {
        return "sluice-streamer-autoflush-" + cacheName;
    }

    /** Stops the thread after the tick in progress, if any; does not wait for it. */
    void stop() {
        scheduler.shutdown();
    }
}
