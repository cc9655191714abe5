package io.sluice.samples.load;

/**
 * Which keys each producer thread writes. Thread {@code t} of {@code T} owns the keys
 * {@code t, t + T, t + 2T, ...}: threads never write the same key, so every thread can keep its own
 * shard (the raw baseline does) and the number of distinct keys is known exactly.
 *
 * <p>With a collision ratio {@code r}, thread {@code t} writes {@code n_t} entries over
 * {@code d_t = n_t - floor(n_t * r)} distinct keys (at least one): its {@code j}-th entry has key
 * {@code t + T * (j mod d_t)}, so the share {@code r} of its entries repeats a key it wrote before.
 */
public final class KeyPlan {

    private final long entries;
    private final int threads;
    private final double collisionRatio;
    private final long[] entriesPerThread;
    private final long[] distinctPerThread;
    private final long distinct;

    /**
     * @param entries        entries to write in all, at least 0
     * @param threads        producer threads, at least 1
     * @param collisionRatio share of entries that repeat an earlier key, 0 to 1
     */
    public KeyPlan(long entries, int threads, double collisionRatio) {
        if (entries < 0 || threads < 1 || !(collisionRatio >= 0 && collisionRatio <= 1)) {
            throw new IllegalArgumentException("key plan of " + entries + " entries, " + threads
                    + " threads, collision ratio " + collisionRatio);
        }
        this.entries = entries;
        this.threads = threads;
        this.collisionRatio = collisionRatio;
        this.entriesPerThread = new long[threads];
        this.distinctPerThread = new long[threads];
        long total = 0;
        for (int t = 0; t < threads; t++) {
            long n = entries / threads + (t < entries % threads ? 1 : 0);
            long d = n == 0 ? 0 : Math.max(1, n - (long) Math.floor(n * collisionRatio));
            entriesPerThread[t] = n;
            distinctPerThread[t] = d;
            total += d;
        }
        this.distinct = total;
    }

    /** Entries in all. */
    public long entries() {
        return entries;
    }

    /** Producer threads. */
    public int threads() {
        return threads;
    }

    /** Share of entries that repeat a key. */
    public double collisionRatio() {
        return collisionRatio;
    }

    /** Entries the thread writes. */
    public long entries(int thread) {
        return entriesPerThread[thread];
    }

    /** Distinct keys the thread writes. */
    public long distinct(int thread) {
        return distinctPerThread[thread];
    }

    /** Distinct keys in all: the size of a cache after a load that lost nothing. */
    public long distinct() {
        return distinct;
    }

    /** The key of the thread's {@code j}-th entry. */
    public long key(int thread, long j) {
        long d = distinctPerThread[thread];
        return thread + (long) threads * (j < d ? j : j % d);
    }

    /** The {@code i}-th of the thread's distinct keys, {@code 0 <= i < distinct(thread)}. */
    public long distinctKey(int thread, long i) {
        return thread + (long) threads * i;
    }
}
