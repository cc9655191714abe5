package io.sluice.pagestore.internal.index;

import java.util.ArrayDeque;

/**
 * The heap a region's partitions may spend on index changes they hold ({@link HeldIndexChanges}), and the change
 * arrays they reuse. Thread-safe: partitions hold and apply under their own locks, from several threads.
 *
 * <p>Bounded: a partition holds a batch's changes only while the region's held bytes (the held arrays' sizes) are
 * within {@link #limit()}; past it, the partition being written applies what it holds at once, as if it had reached
 * {@link HeldIndexChanges#THRESHOLD} (in a load that fills partitions evenly, which the streamer's waves do, the
 * partitions hold alike, so the one written is as large a holder as any). So held changes take at most the limit
 * plus one batch's per writing thread.
 *
 * <p>The arrays are pooled for the whole JVM (a partition takes them when it starts holding and gives them back
 * once it applied them; the pool keeps at most the largest limit of the regions that gave arrays back): arrays of
 * a few hundred MiB made afresh for each load, and held across young collections, cost the load more in copying
 * than the longer passes save (measured: +46 ns per entry of G1 evacuation with a pool per region, in a benchmark
 * that starts a node per load; the same as without holding with one pool per JVM). An idle JVM keeps the pooled
 * arrays (at most that limit) for the next load.
 */
public final class HeldChangesBudget {

    /** The default limit: a quarter of the JVM's maximum heap, at most 256 MiB (a node has one region). */
    public static final long DEFAULT_LIMIT = Math.min(256L << 20, Runtime.getRuntime().maxMemory() / 4);

    private static final ArrayDeque<IndexOps> POOL = new ArrayDeque<>(); // guarded by the class
    private static long pooledBytes; // guarded by the class

    private final long limit;
    private long held; // guarded by this

    /** @throws IllegalArgumentException if the limit is negative */
    public HeldChangesBudget(long limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("the held index changes' limit is " + limit + " bytes; it must be >= 0");
        }
        this.limit = limit;
    }

    /** A budget of {@link #DEFAULT_LIMIT}. */
    public static HeldChangesBudget withDefaultLimit() {
        return new HeldChangesBudget(DEFAULT_LIMIT);
    }

    public long limit() {
        return limit;
    }

    /** Bytes of changes held now by the region's partitions. */
    public synchronized long held() {
        return held;
    }

    /** Counts bytes more (or, negative, fewer) held. @return whether the region is still within its limit */
    synchronized boolean add(long bytes) {
        held += bytes;
        return held <= limit;
    }

    /** Arrays for a partition's held changes of one index (empty). */
    IndexOps take() {
        synchronized (HeldChangesBudget.class) {
            IndexOps ops = POOL.pollLast();
            if (ops != null) {
                pooledBytes -= ops.capacityBytes();
                return ops;
            }
        }
        return new IndexOps();
    }

    /** Gives back arrays taken (their changes applied or dropped): kept for reuse within the limit. */
    void giveBack(IndexOps ops) {
        ops.clear();
        long bytes = ops.capacityBytes();
        synchronized (HeldChangesBudget.class) {
            if (pooledBytes + bytes <= limit) {
                POOL.addLast(ops);
                pooledBytes += bytes;
            }
        }
    }
}
