package io.sluice.node.internal.cluster;

/**
 * The rate of a growing count over about the last {@link #WINDOW_NANOS}: sampled when asked (at most one sample per
 * {@link #SAMPLE_NANOS}), so it costs nothing while nobody looks. Thread-safe.
 */
final class RecentRate {

    /** The window the rate is taken over. */
    static final long WINDOW_NANOS = 10_000_000_000L;
    /** At most one sample per this long. */
    static final long SAMPLE_NANOS = 250_000_000L;
    private static final int SAMPLES = (int) (WINDOW_NANOS / SAMPLE_NANOS) + 1;

    private final long[] times = new long[SAMPLES];
    private final long[] counts = new long[SAMPLES];
    private int size;
    private int newest = -1;

    /** Records {@code count} now and returns its growth per second over the window (0 with one sample). */
    synchronized double perSecond(long count) {
        long now = System.nanoTime();
        if (newest < 0 || now - times[newest] >= SAMPLE_NANOS) {
            newest = (newest + 1) % SAMPLES;
            times[newest] = now;
            counts[newest] = count;
            size = Math.min(size + 1, SAMPLES);
        }
        // The oldest sample still within the window.
        int oldest = newest;
        for (int i = 1; i < size; i++) {
            int j = Math.floorMod(newest - i, SAMPLES);
            if (now - times[j] > WINDOW_NANOS) {
                break;
            }
            oldest = j;
        }
        long nanos = now - times[oldest];
        return oldest == newest || nanos <= 0 ? 0 : (count - counts[oldest]) * 1e9 / nanos;
    }
}
