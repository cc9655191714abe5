package io.sluice.pagestore.internal.index;

import java.util.ArrayDeque;

/**
 * The heap a region's partitions may spend on index changes they hold ({@link HeldIndexChanges}), and the change
 * arrays they reuse: a partition that holds changes takes its arrays from here and gives them back once it has
 * applied them, so the arrays of a load are reused from partition to partition instead of each partition keeping
 * its own. Thread-safe: partitions hold and apply under their own locks, from several threads.
 *
 * <p>Bounded: a partition holds a batch's changes only while the region's held bytes are within {@link #limit()}
 * (else it applies what it holds at once, as if it had reached {@link HeldIndexChanges#THRESHOLD}); the arrays kept
 * for reuse are bounded by the same limit. So the held changes take at most the limit, plus one batch's per writing
 * thread, and an idle region keeps at most the limit in arrays.
 */
public final class HeldChangesBudget {

    /** The default limit: 128 MiB of held changes per region (a node has one). */
    public static final long DEFAULT_LIMIT = 128L << 20;

    private final long limit;
    private long held;            // guarded by this
    private long pooledBytes;     // guarded by this
    private final ArrayDeque<IndexOps> pool = new ArrayDeque<>(); // guarded by this

    public HeldChangesBudget(long limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("the held index changes' limit is " + limit + " bytes; it must be >= 0");
        }
        this.limit = limit;
    }

    /** A budget with the default limit. */
    public static HeldChangesBudget withDefaultLimit() {
        return new HeldChangesBudget(Long.getLong("sluice.index.heldLimit", DEFAULT_LIMIT));
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
    synchronized IndexOps take() {
        IndexOps ops = pool.pollLast();
        if (ops == null) {
            return new IndexOps();
        }
        pooledBytes -= ops.capacityBytes();
        return ops;
    }

    /** Gives back arrays taken (their changes applied or dropped): kept for reuse within the limit. */
    synchronized void giveBack(IndexOps ops) {
        ops.clear();
        long bytes = ops.capacityBytes();
        if (pooledBytes + bytes <= limit) {
            pool.addLast(ops);
            pooledBytes += bytes;
        }
    }
}
