package io.sluice.samples.load;

import java.util.Arrays;

/**
 * The progress samples of one timed load, for {@code --plot}: (time since the load's start,
 * entries written by then), one per sampling interval, plus the last one when the load ends.
 *
 * <p>Memory is bounded: at most {@value #MAX_SAMPLES} samples are kept. When a long load would
 * exceed that, every other sample is dropped and from then on only every second sample is kept
 * (then every fourth, ...), so the samples stay evenly spread over the whole load; the rate of an
 * interval is computed from the samples kept, so it stays the true average over that interval.
 *
 * <p>Written by one thread at a time (the progress reporter's, then the thread that stops it,
 * after joining it); read once the load's report is closed.
 */
public final class ProgressTimeline {

    /** Most samples kept per load. */
    static final int MAX_SAMPLES = 1024;

    /** A timeline that records nothing (no {@code --plot}). */
    static final ProgressTimeline NONE = new ProgressTimeline(0, 1);

    private final int capacity;
    private final long intervalNanos;
    private long[] nanos = new long[16];
    private long[] done = new long[16];
    private int size;
    /** Keep one sample in this many offered. */
    private int stride = 1;
    /** Samples offered since the last one kept. */
    private int offered;

    /** @param intervalNanos time between two periodic samples */
    ProgressTimeline(long intervalNanos) {
        this(MAX_SAMPLES, intervalNanos);
    }

    /**
     * @param capacity      most samples kept, even; 0 records nothing
     * @param intervalNanos time between two periodic samples
     */
    ProgressTimeline(int capacity, long intervalNanos) {
        if (capacity < 0 || capacity % 2 != 0) {
            throw new IllegalArgumentException("capacity is " + capacity + "; it must be even and not negative");
        }
        if (intervalNanos < 1) {
            throw new IllegalArgumentException("interval is " + intervalNanos + " ns; it must be positive");
        }
        this.capacity = capacity;
        this.intervalNanos = intervalNanos;
    }

    /** Whether samples are kept at all. */
    public boolean recording() {
        return capacity > 0;
    }

    /**
     * Offers a periodic sample; kept if it falls on the current stride.
     *
     * @param elapsedNanos time since the load's start
     * @param entries      entries written by then
     */
    void sample(long elapsedNanos, long entries) {
        if (capacity == 0) {
            return;
        }
        if (++offered < stride) {
            return;
        }
        if (size == capacity) {
            halve();
            // Half a new stride after the newest kept sample: this one is off the new stride.
            if (offered < stride) {
                return;
            }
        }
        offered = 0;
        keep(elapsedNanos, entries);
    }

    /**
     * The load's last sample, taken when it ended: always kept. If it comes less than half an
     * interval after the newest sample, it replaces that sample instead: the rate of a sliver of
     * an interval (the last entries counted a millisecond after a sample) would be a spike that
     * says nothing.
     */
    void last(long elapsedNanos, long entries) {
        if (capacity == 0) {
            return;
        }
        offered = 0;
        if (size > 0 && elapsedNanos - nanos[size - 1] < intervalNanos * stride / 2) {
            size--;
        }
        keep(elapsedNanos, entries);
    }

    private void keep(long elapsedNanos, long entries) {
        if (size == capacity) {
            halve();
        }
        if (size == nanos.length) {
            int grown = Math.min(capacity, size * 2);
            nanos = Arrays.copyOf(nanos, grown);
            done = Arrays.copyOf(done, grown);
        }
        nanos[size] = elapsedNanos;
        done[size] = entries;
        size++;
    }

    /** Keeps the samples at odd indexes (the newest one among them), and every second sample from now on. */
    private void halve() {
        int kept = 0;
        for (int i = 1; i < size; i += 2) {
            nanos[kept] = nanos[i];
            done[kept] = done[i];
            kept++;
        }
        size = kept;
        stride *= 2;
    }

    /**
     * A timeline holding exactly these samples, e.g. as a forked mode's JVM reported them
     * ({@link ForkProtocol}); no more samples are recorded into it.
     *
     * @throws IllegalArgumentException if the arrays differ in length or hold more than {@value #MAX_SAMPLES}
     */
    static ProgressTimeline of(long[] elapsedNanos, long[] entries) {
        if (elapsedNanos.length != entries.length || elapsedNanos.length > MAX_SAMPLES) {
            throw new IllegalArgumentException(elapsedNanos.length + " times and " + entries.length
                    + " entry counts: they must be as many, and at most " + MAX_SAMPLES);
        }
        if (elapsedNanos.length == 0) {
            return NONE;
        }
        ProgressTimeline timeline = new ProgressTimeline(MAX_SAMPLES, 1);
        timeline.nanos = elapsedNanos.clone();
        timeline.done = entries.clone();
        timeline.size = elapsedNanos.length;
        return timeline;
    }

    /** Nanoseconds since the load's start at sample {@code i}. */
    long nanos(int i) {
        return nanos[check(i)];
    }

    /** Samples kept. */
    public int size() {
        return size;
    }

    /** Seconds since the load's start at sample {@code i}. */
    public double seconds(int i) {
        return nanos[check(i)] / 1e9;
    }

    /** Entries written by sample {@code i}. */
    public long entries(int i) {
        return done[check(i)];
    }

    /**
     * Entries per second over the interval that ends at sample {@code i}: since the previous
     * sample, or since the load's start for the first; 0 for an interval of no time.
     */
    public double entriesPerSecond(int i) {
        check(i);
        long fromNanos = i == 0 ? 0 : nanos[i - 1];
        long fromEntries = i == 0 ? 0 : done[i - 1];
        long nanosTaken = nanos[i] - fromNanos;
        return nanosTaken <= 0 ? 0 : (done[i] - fromEntries) * 1e9 / nanosTaken;
    }

    private int check(int i) {
        if (i < 0 || i >= size) {
            throw new IndexOutOfBoundsException("sample " + i + " of " + size);
        }
        return i;
    }

    @Override
    public String toString() {
        return size + " progress samples";
    }
}
