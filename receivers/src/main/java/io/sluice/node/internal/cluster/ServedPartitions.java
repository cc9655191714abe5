package io.sluice.node.internal.cluster;

import io.sluice.protocol.internal.ClusterMap;
import io.sluice.protocol.internal.NotOwnerException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Which partitions this node serves now, and the writes in flight on each: the gate every request passes. A write
 * {@link #enter enters} its partition (admitted only while it is served) and {@link #exit exits} it once applied or
 * failed; {@link #stopServing} closes the gate and then waits for the writes already admitted, so the next owner,
 * reading the partition after this returns, sees every write this node accepted.
 *
 * <p>Why it holds: {@code enter} counts itself in and then reads the served flag; {@code stopServing} clears the
 * flag and then reads the count (all volatile, so one total order). Either the write sees the gate closed (and
 * leaves), or the stop sees the write counted (and waits for its exit).
 *
 * <p>Also holds one lock per partition ({@link #moveLock}): taking a partition over and dropping its retired data
 * hold it, so the two never overlap. Thread-safe.
 */
final class ServedPartitions {

    private static final Logger LOG = LoggerFactory.getLogger(ServedPartitions.class);
    /** Once a stop has waited this long for writes in flight, it says so (once). */
    private static final long SLOW_DRAIN_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final String nodeId;
    private final Supplier<ClusterMap> map;
    private final long drainBoundNanos;
    /** Per partition 1 while served, else 0. */
    private final AtomicIntegerArray served;
    /** Per partition the writes admitted and not yet exited. */
    private final AtomicIntegerArray inFlight;
    private final ReentrantLock[] moveLocks;

    /**
     * @param nodeId     this node (named in the refusals)
     * @param partitions the cluster's partition count
     * @param map        the current map (its version and the owner are named in the refusals)
     * @param drainBound how long {@link #stopServing} waits at most for writes in flight
     */
    ServedPartitions(String nodeId, int partitions, Supplier<ClusterMap> map, Duration drainBound) {
        this.nodeId = nodeId;
        this.map = map;
        this.drainBoundNanos = drainBound.toNanos();
        this.served = new AtomicIntegerArray(partitions);
        this.inFlight = new AtomicIntegerArray(partitions);
        this.moveLocks = new ReentrantLock[partitions];
        for (int p = 0; p < partitions; p++) {
            moveLocks[p] = new ReentrantLock();
        }
    }

    int partitions() {
        return served.length();
    }

    /** True if the partition is served now. */
    boolean serves(int partition) {
        return partition >= 0 && partition < served.length() && served.get(partition) == 1;
    }

    /** @throws NotOwnerException unless the partition is served now */
    void checkServes(int partition) {
        if (!serves(partition)) {
            throw notOwner(partition);
        }
    }

    /**
     * Admits a write: the caller must {@link #exit} once it was applied or failed.
     *
     * @throws NotOwnerException unless the partition is served now (nothing to exit then)
     */
    void enter(int partition) {
        checkRange(partition);
        inFlight.incrementAndGet(partition);
        if (served.get(partition) != 1) {
            inFlight.decrementAndGet(partition);
            throw notOwner(partition);
        }
    }

    /** Ends a write {@link #enter} admitted. */
    void exit(int partition) {
        inFlight.decrementAndGet(partition);
    }

    /** Writes admitted on the partition and not yet exited. */
    int inFlight(int partition) {
        return inFlight.get(partition);
    }

    /** Starts serving the partition. */
    void serve(int partition) {
        served.set(partition, 1);
    }

    /**
     * Stops admitting writes to the partition, then waits until the ones admitted exited, at most the drain bound.
     *
     * @return true if they all exited; false if some were still in flight at the bound (logged)
     */
    boolean stopServing(int partition) {
        served.set(partition, 0);
        long start = System.nanoTime();
        boolean warned = false;
        long park = TimeUnit.MICROSECONDS.toNanos(50);
        while (inFlight.get(partition) > 0) {
            long waited = System.nanoTime() - start;
            if (waited >= drainBoundNanos) {
                LOG.error("partition {}: {} writes still in flight after {} ms; stopped serving it without them (the"
                        + " next owner may not see them)", partition, inFlight.get(partition),
                        TimeUnit.NANOSECONDS.toMillis(waited));
                return false;
            }
            if (!warned && waited >= SLOW_DRAIN_NANOS) {
                warned = true;
                LOG.warn("partition {}: stopping to serve it waits for {} writes in flight ({} ms so far)", partition,
                        inFlight.get(partition), TimeUnit.NANOSECONDS.toMillis(waited));
            }
            LockSupport.parkNanos(park);
            park = Math.min(park * 2, TimeUnit.MILLISECONDS.toNanos(5));
        }
        return true;
    }

    /** Stops serving the partition at once, waiting for nothing (it was fenced: another node leads it now). */
    void refuse(int partition) {
        served.set(partition, 0);
    }

    /** Stops serving every partition at once, waiting for nothing (the session was lost: another node may own them). */
    void stopAll() {
        for (int p = 0; p < served.length(); p++) {
            served.set(p, 0);
        }
    }

    /** Partitions served now. */
    int servedCount() {
        int n = 0;
        for (int p = 0; p < served.length(); p++) {
            n += served.get(p);
        }
        return n;
    }

    /** The lock taking the partition over and dropping its retired data hold. */
    ReentrantLock moveLock(int partition) {
        return moveLocks[partition];
    }

    private void checkRange(int partition) {
        if (partition < 0 || partition >= served.length()) {
            throw new IllegalArgumentException("partition " + partition + " is out of range: the cluster has "
                    + served.length() + " partitions");
        }
    }

    private NotOwnerException notOwner(int partition) {
        ClusterMap m = map.get();
        String owner = partition >= 0 && partition < m.partitions() ? m.owner(partition) : null;
        ClusterMap.Member member = owner == null ? null : m.member(owner);
        return new NotOwnerException("partition " + partition + " is not served by node '" + nodeId
                + "' (map version " + m.version() + "; its owner in the map: "
                + (owner == null ? "none (moving or its node is away)"
                : "'" + owner + "'" + (member == null ? "" : " at " + member.address())) + ")");
    }
}
