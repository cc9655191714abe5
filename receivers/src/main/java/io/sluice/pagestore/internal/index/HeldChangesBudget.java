package io.sluice.pagestore.internal.index;

import java.lang.ref.SoftReference;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.function.LongConsumer;

/**
 * The heap a region's partitions may spend on index changes they hold ({@link HeldIndexChanges}), and the change
 * arrays they reuse. Thread-safe: partitions hold and apply under their own locks, from several threads.
 *
 * <p>Bounded: a partition holds a batch's changes only while the region's held bytes (the held arrays' sizes) are
 * within {@link #limit()}; past it, the partition being written applies what it holds at once, as if it had reached
 * {@link HeldIndexChanges#THRESHOLD}. So held changes take at most the limit plus one batch's per writing thread. A
 * partition also applies once it holds more than its {@link #share} of the limit (and at least
 * {@link HeldIndexChanges#SHARE_FROM} changes an index), so that in a load that fills partitions evenly, which the
 * streamer's waves do, all of them hold at once within the limit and each pass is as large as the share allows.
 *
 * <p>The arrays are pooled for the whole JVM (a partition takes them when it starts holding and gives them back
 * once it applied them; the pool keeps at most the largest limit of the regions that gave arrays back): arrays of
 * a few hundred MiB made afresh for each load, and held across young collections, cost the load more in copying
 * than the longer passes save (measured: +46 ns per entry of G1 evacuation with a pool per region, in a benchmark
 * that starts a node per load; the same as without holding with one pool per JVM). The pool keeps up to
 * {@link #STRONG_POOL} bytes of arrays strongly and the rest (up to that limit) softly: an idle JVM keeps them for
 * the next load only while its heap has room for them (the collector clears soft references before it runs out of
 * heap, and once they have not been used for a while), so a finished load does not pin a quarter of the heap.
 */
public final class HeldChangesBudget {

    /** The default limit: a quarter of the JVM's maximum heap, at most 256 MiB (a node has one region). */
    public static final long DEFAULT_LIMIT = Math.min(256L << 20, Runtime.getRuntime().maxMemory() / 4);

    /** Bytes of pooled arrays kept strongly; the rest of the pool is held softly. */
    static final long STRONG_POOL = 8L << 20;

    private static final ArrayDeque<IndexOps> POOL = new ArrayDeque<>(); // guarded by the class
    private static long pooledBytes; // guarded by the class
    private static final ArrayDeque<SoftOps> SOFT_POOL = new ArrayDeque<>(); // guarded by the class
    private static long softBytes; // guarded by the class (cleared references count until they are purged)

    private final long limit;
    /** Written under this object's lock, read without it. */
    private volatile long held;
    /** Bytes of the held changes themselves (their arrays' used part): under this object's lock. */
    private long changeBytes;
    /** Told {@link #changeBytes} as it changes ({@link #whenHeld}). */
    private volatile LongConsumer heldListener;

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
    public long held() {
        return held;
    }

    /** Index trees of the region's partitions (they share the limit): under this object's lock. */
    private int trees;

    /** The region's partitions have {@code delta} index trees more (or, negative, fewer). */
    synchronized void treesAdded(int delta) {
        trees += delta;
    }

    /**
     * Bytes of held arrays that a partition with {@code partitionTrees} index trees may hold before it applies them
     * ({@link HeldIndexChanges#SHARE_FROM}): its trees' part of the limit, as if every tree of the region held alike
     * (the streamer's waves fill a load's partitions evenly).
     */
    synchronized long share(int partitionTrees) {
        return limit / Math.max(trees, partitionTrees) * partitionTrees;
    }

    /**
     * {@code listener} is told the bytes of the changes held (not their arrays'), after each write that holds or
     * applies some: about the bytes of index entries they will write (a StockOrder field's held change ~45 bytes, its
     * index item 40 in a leaf 90% full), so the region takes the page memory they will need ahead of the pass that
     * writes them ({@link io.sluice.pagestore.internal.page.PageMemory#expect}). One listener: the region's.
     */
    public void whenHeld(LongConsumer listener) {
        heldListener = listener;
    }

    /** Counts bytes more (or, negative, fewer) held. @return whether the region is still within its limit */
    boolean add(long bytes) {
        return add(bytes, 0);
    }

    /**
     * Counts array bytes ({@code bytes}) and change bytes ({@code changes}) more, or, negative, fewer held.
     *
     * @return whether the region is still within its limit
     */
    boolean add(long bytes, long changes) {
        boolean within;
        long changed;
        synchronized (this) {
            held += bytes;
            within = held <= limit;
            changeBytes += changes;
            changed = changeBytes;
        }
        LongConsumer listener = heldListener;
        if (changes != 0 && listener != null) {
            listener.accept(changed);
        }
        return within;
    }

    /** Arrays for a partition's held changes of one index (empty). */
    IndexOps take() {
        synchronized (HeldChangesBudget.class) {
            IndexOps ops = POOL.pollLast();
            if (ops != null) {
                pooledBytes -= ops.capacityBytes();
                return ops;
            }
            for (SoftOps soft; (soft = SOFT_POOL.pollLast()) != null; ) {
                softBytes -= soft.bytes;
                ops = soft.get();
                if (ops != null) {
                    return ops;
                }
            }
        }
        return new IndexOps();
    }

    /** Gives back arrays taken (their changes applied or dropped): kept for reuse within the limit. */
    void giveBack(IndexOps ops) {
        ops.clear();
        long bytes = ops.capacityBytes();
        synchronized (HeldChangesBudget.class) {
            if (pooledBytes + bytes <= Math.min(STRONG_POOL, limit)) {
                POOL.addLast(ops);
                pooledBytes += bytes;
                return;
            }
            if (pooledBytes + softBytes + bytes > limit) {
                purgeCleared();
            }
            if (pooledBytes + softBytes + bytes <= limit) {
                SOFT_POOL.addLast(new SoftOps(ops, bytes));
                softBytes += bytes;
            }
        }
    }

    /** Bytes of arrays the JVM's pool keeps strongly (tests). */
    static long strongPoolBytes() {
        synchronized (HeldChangesBudget.class) {
            return pooledBytes;
        }
    }

    /** Drops the soft pool's cleared references (under the class's lock). */
    private static void purgeCleared() {
        for (Iterator<SoftOps> i = SOFT_POOL.iterator(); i.hasNext(); ) {
            SoftOps soft = i.next();
            if (soft.get() == null) {
                i.remove();
                softBytes -= soft.bytes;
            }
        }
    }

    /** Pooled arrays held softly, with their size when pooled. */
    private static final class SoftOps extends SoftReference<IndexOps> {
        final long bytes;

        SoftOps(IndexOps ops, long bytes) {
            super(ops);
            this.bytes = bytes;
        }
    }
}
