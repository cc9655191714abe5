package io.sluice.node.internal.cluster;

import io.sluice.cluster.internal.ClusterMembership;
import io.sluice.protocol.internal.ClusterMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Drops this node's copy of partitions it no longer serves, once it is retired: the map shows another owner AND
 * the owner log names that owner (so the new owner holds the partition whole; before that, its copy may still be
 * what the new owner pulls), and this node does not back it (a backup's copy is what a promotion serves). The removals are logged, so a restart does not bring them back. A sweep looks at every
 * partition; sweeps run one at a time on the cluster's background thread (never a Helix thread), a request made
 * while one runs coalescing into the next.
 */
final class RetiredPartitions {

    private static final Logger LOG = LoggerFactory.getLogger(RetiredPartitions.class);

    private final ClusterMembership membership;
    private final ServedPartitions served;
    private final LocalPartitions local;
    private final MoveStats stats;
    private final Executor background;
    private final AtomicBoolean requested = new AtomicBoolean();
    /** Whether this node backs a partition (its copy is kept: it is what a promotion serves). */
    private final java.util.function.IntPredicate backs;

    RetiredPartitions(ClusterMembership membership, ServedPartitions served, LocalPartitions local, MoveStats stats,
                      Executor background, java.util.function.IntPredicate backs) {
        this.backs = backs;
        this.membership = membership;
        this.served = served;
        this.local = local;
        this.stats = stats;
        this.background = background;
    }

    /** Asks for a sweep on the background thread (the map changed, a partition was dropped). */
    void sweepSoon() {
        if (requested.compareAndSet(false, true)) {
            background.execute(() -> {
                requested.set(false);
                try {
                    sweep();
                } catch (RuntimeException e) {
                    // ZooKeeper unreachable, the session expired: the next map change or drop sweeps again. Thrown
                    // on, it would end the background thread that moves and sweeps partitions.
                    LOG.warn("a sweep of retired partitions failed: {}", e.toString());
                }
            });
        }
    }

    /** Drops every retired partition's data now (on the caller's thread). @return partitions dropped */
    int sweep() {
        String self = membership.nodeId();
        ClusterMap map = membership.map();
        int dropped = 0;
        for (int p = 0; p < Math.min(map.partitions(), served.partitions()); p++) {
            String owner = map.owner(p);
            if (owner == null || owner.equals(self) || served.serves(p) || backs.test(p) || local.size(p) == 0) {
                continue;
            }
            if (!owner.equals(membership.owners().lastOwner(p))) {
                continue; // the new owner has not recorded itself yet: it may still pull this copy
            }
            ReentrantLock lock = served.moveLock(p);
            if (!lock.tryLock()) {
                continue; // being taken over by this node again: the takeover decides what the copy becomes
            }
            try {
                if (served.serves(p) || backs.test(p)) {
                    continue;
                }
                long removed = local.clear(p);
                stats.dropped(removed);
                dropped++;
                LOG.info("partition {}: removed this node's {} entries of it ('{}' owns it now, map version {})", p,
                        removed, owner, map.version());
            } catch (RuntimeException e) {
                LOG.warn("partition {}: could not remove this node's retired copy: {}", p, e.toString());
            } finally {
                lock.unlock();
            }
        }
        return dropped;
    }
}
