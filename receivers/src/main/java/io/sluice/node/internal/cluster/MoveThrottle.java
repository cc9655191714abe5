package io.sluice.node.internal.cluster;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * At most {@code maxConcurrentMoves} partitions built on this node at once (issue 28): each build of a partition
 * from another member (a takeover's pull, {@link PartitionTakeover}; a backup catching up, {@link BackupReplication})
 * runs holding one permit, so a rebalance does not take every core, disk and link from the load. A promotion of an
 * in-sync backup builds nothing and takes no permit.
 *
 * <p>Takeovers go first: a backup's build waits while a takeover waits (a partition being taken over is served by
 * nobody; one catching up is served by its primary). A waiting build asks its {@code cancelled} every
 * {@link #POLL_MILLIS} ms and gives up ({@link PartitionPull.Cancelled}) once it says so, and a waiting thread that
 * is interrupted gives up too: Helix's transition threads are never held by a build that is no longer wanted.
 * While it waits, the partition counts in {@link MoveStats#waiting()}. Thread-safe.
 */
final class MoveThrottle {

    /** How often a waiting build asks whether it is still wanted. */
    static final long POLL_MILLIS = 100;

    private final int permits;
    private final MoveStats stats;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition freed = lock.newCondition();
    private int running;
    private int takeoversWaiting;

    /**
     * @param permits at most this many builds at once (at least 1)
     * @throws IllegalArgumentException if {@code permits} is below 1
     */
    MoveThrottle(int permits, MoveStats stats) {
        if (permits < 1) {
            throw new IllegalArgumentException("maxConcurrentMoves is " + permits + "; it must be at least 1");
        }
        this.permits = permits;
        this.stats = stats;
    }

    /**
     * Runs {@code build} holding a permit, once one is free, and reports it to the stats as a partition moving in
     * ({@link MoveStats#buildStarted}; an entry pull's bytes, {@link PartitionPull.Moved#bytes}, as received).
     *
     * @param from      the member it is built from
     * @param takeover  true for a takeover (goes before backups' builds)
     * @param cancelled asked while waiting: true gives up
     * @return what {@code build} returned
     * @throws PartitionPull.Cancelled if {@code cancelled} said so, or the thread was interrupted (its interrupt
     *                                 flag is set again), before a permit was free
     */
    <T> T build(int partition, String from, boolean takeover, BooleanSupplier cancelled, Supplier<T> build) {
        acquire(partition, takeover, cancelled);
        boolean ok = false;
        long entryBytes = 0;
        stats.buildStarted(partition, from, takeover);
        try {
            T result = build.get();
            ok = true;
            entryBytes = result instanceof PartitionPull.Moved m ? m.bytes() : 0;
            return result;
        } finally {
            stats.buildEnded(partition, ok, entryBytes);
            release();
        }
    }

    private void acquire(int partition, boolean takeover, BooleanSupplier cancelled) {
        lock.lock();
        try {
            if (free(takeover)) {
                running++;
                return;
            }
            takeoversWaiting += takeover ? 1 : 0;
            stats.waiting(partition, true);
            try {
                while (!free(takeover)) {
                    if (cancelled.getAsBoolean()) {
                        throw new PartitionPull.Cancelled();
                    }
                    try {
                        freed.await(POLL_MILLIS, TimeUnit.MILLISECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new PartitionPull.Cancelled();
                    }
                }
                running++;
            } finally {
                takeoversWaiting -= takeover ? 1 : 0;
                stats.waiting(partition, false);
            }
        } finally {
            lock.unlock();
        }
    }

    /** A permit is free for this kind of build (under the lock). */
    private boolean free(boolean takeover) {
        return running < permits && (takeover || takeoversWaiting == 0);
    }

    private void release() {
        lock.lock();
        try {
            running--;
            freed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Builds running now (tests). */
    int running() {
        lock.lock();
        try {
            return running;
        } finally {
            lock.unlock();
        }
    }
}
