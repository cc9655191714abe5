package io.sluice.node.internal.cluster;

import io.sluice.cluster.internal.ClusterMembership;
import io.sluice.protocol.internal.ClusterMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;

/**
 * Taking a partition over (Helix's SLAVE -> MASTER on this node). If the partition's last owner
 * ({@link io.sluice.cluster.internal.PartitionOwnerLog}) is another member of the map, this node's copy is cleared
 * and the caches' entries of the partition are pulled from that member page by page and applied here in logged
 * batches ({@link PartitionPull}) - all caches, or, when this node was a backup in sync with that last owner
 * ({@link BackupReplication}), only the caches that are not replicated (backups 0): the replicated ones are here
 * already. If the last owner is a node the map no longer names and this node was not in sync with it (a copy still
 * catching up when its primary died), the partition is pulled from a backup the map names, if there is one. If the
 * last owner is this node or nobody, or this node was in sync with it, or no other copy is left, the local data is
 * served as it is (a node back within the rebalance delay keeps its own; a backup promoted after its primary died
 * serves what it was sent). Then this node records itself as the owner, which bumps the partition's epoch, leads the
 * partition's replication at that epoch ({@link PrimaryReplication}) and starts serving. Runs on Helix's threads,
 * holding the partition's move lock.
 */
final class PartitionTakeover {

    private static final Logger LOG = LoggerFactory.getLogger(PartitionTakeover.class);
    /** Entries per PARTITION_SCAN page (the serving node caps it too). */
    static final int PAGE = PartitionPull.PAGE;
    /** Pulls of one partition tried before the takeover fails. */
    static final int PULL_ATTEMPTS = 3;

    private final ClusterMembership membership;
    private final ServedPartitions served;
    private final LocalPartitions local;
    private final PartitionBuild pull;
    private final MoveThrottle throttle;
    private final MoveStats stats;
    private final PrimaryReplication primary;
    private final BackupReplication backup;

    PartitionTakeover(ClusterMembership membership, ServedPartitions served, LocalPartitions local,
                      PartitionBuild pull, MoveThrottle throttle, MoveStats stats, PrimaryReplication primary,
                      BackupReplication backup) {
        this.membership = membership;
        this.served = served;
        this.local = local;
        this.pull = pull;
        this.throttle = throttle;
        this.stats = stats;
        this.primary = primary;
        this.backup = backup;
    }

    /**
     * Returns once this node holds the partition whole and serves it. A pull that fails (the last owner unreachable
     * for a while) is tried again, with the map read afresh (a last owner that left the map is not waited for).
     *
     * @throws RuntimeException if the last pull failed or the epoch could not be recorded: the partition is not
     *                          served (Helix puts it in ERROR here)
     * @throws InterruptedException if interrupted between attempts
     */
    void lead(int partition) throws InterruptedException {
        String self = membership.nodeId();
        // Before the lock: a catch-up holding it gives up at its next page.
        String inSyncWith = backup.stopFollowing(partition);
        ReentrantLock lock = served.moveLock(partition);
        lock.lock();
        try {
            String last = membership.owners().lastOwner(partition);
            if (last != null && !last.equals(self)) {
                if (!last.equals(inSyncWith)) {
                    pullFromLastOwner(partition, last, name -> true, false);
                } else if (local.caches().stream().anyMatch(name -> !local.replicated(name))) {
                    // Caught up: only the caches without backups come from the last owner, if it can be reached;
                    // the replicated ones are served either way (a failed pull leaves the others as they are).
                    try {
                        pullFromLastOwner(partition, last, name -> !local.replicated(name), true);
                    } catch (RuntimeException e) {
                        LOG.warn("partition {}: the caches without backups could not be pulled from '{}': {}",
                                partition, last, e.toString());
                    }
                }
            }
            long epoch = membership.owners().recordOwner(partition, self);
            backup.knowEpoch(partition, epoch);
            primary.lead(partition, epoch, membership.sessionId());
            served.serve(partition);
            if (inSyncWith != null) {
                LOG.info("partition {}: promoted from backup (in sync with '{}'), epoch {}", partition, inSyncWith,
                        epoch);
            }
        } finally {
            lock.unlock();
        }
    }

    private void pullFromLastOwner(int partition, String last, Predicate<String> caches, boolean inSync)
            throws InterruptedException {
        for (int attempt = 1; ; attempt++) {
            ClusterMap map = membership.map();
            ClusterMap.Member from = map.member(last);
            if (from == null && !inSync) {
                // This node's copy may be partial (a backup still catching up, promoted once its primary died): a
                // backup the map names had everything the last owner acknowledged, so the partition comes from it.
                from = otherBackup(map, partition);
                if (from != null && attempt == 1) {
                    LOG.info("partition {}: its last owner '{}' is not in the map (version {}) and this node was not"
                            + " in sync with it: taking the partition from its backup '{}'", partition, last,
                            map.version(), from.id());
                }
            }
            if (from == null) {
                LOG.info("partition {}: its last owner '{}' is not in the map (version {}); serving this node's"
                        + " data of it as it is", partition, last, map.version());
                return;
            }
            try {
                pull(partition, from, caches);
                return;
            } catch (RuntimeException e) {
                if (attempt == PULL_ATTEMPTS) {
                    throw e;
                }
                LOG.warn("partition {}: pulling it from '{}' at {} failed (attempt {} of {}), trying again: {}",
                        partition, from.id(), from.address(), attempt, PULL_ATTEMPTS, e.toString());
                Thread.sleep(1000L * attempt);
            }
        }
    }

    /** A backup of the partition in the map other than this node, or null. */
    private ClusterMap.Member otherBackup(ClusterMap map, int partition) {
        String self = membership.nodeId();
        for (int i = 0; i < map.backupCount(partition); i++) {
            ClusterMap.Member m = map.nodes().get(map.backupIndex(partition, i));
            if (!m.id().equals(self)) {
                return m;
            }
        }
        return null;
    }

    private void pull(int partition, ClusterMap.Member from, Predicate<String> caches) {
        long start = System.nanoTime();
        boolean ok = false;
        PartitionPull.Moved moved = new PartitionPull.Moved(0, 0, 0);
        stats.started();
        try {
            // At most maxConcurrentMoves builds at once; waiting ends only if Helix interrupts the thread.
            moved = throttle.build(partition, from.id(), true, () -> false,
                    () -> pull.build(partition, from, caches, () -> false));
            ok = true;
            LOG.info("partition {}: took it over from '{}' at {}: {} entries, {} bytes in {} ms{}", partition, from.id(),
                    from.address(), moved.entries(), moved.bytes(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), moved.stale() > 0 ? " ("
                            + moved.stale() + " stale entries of this node's older copy removed first)" : "");
        } finally {
            stats.ended(ok, moved.entries(), moved.bytes(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        }
    }
}
