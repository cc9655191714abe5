package io.sluice.node.internal.cluster;

import io.sluice.CacheNotFoundException;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.client.internal.PartitionScanConnection;
import io.sluice.cluster.internal.ClusterMembership;
import io.sluice.protocol.internal.ClusterMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Taking a partition over (Helix's SLAVE -> MASTER on this node): if the partition's last owner
 * ({@link io.sluice.cluster.internal.PartitionOwnerLog}) is another member of the map, this node's copy is cleared
 * and every cache's entries of the partition are pulled from that member page by page and applied here in logged
 * batches; once they are durable this node records itself as the owner and starts serving. If the last owner is
 * this node, nobody, or a node the map no longer names, the local data is served as it is (a node back within the
 * rebalance delay keeps its own). Runs on Helix's threads, holding the partition's move lock.
 */
final class PartitionTakeover {

    private static final Logger LOG = LoggerFactory.getLogger(PartitionTakeover.class);
    /** Entries per PARTITION_SCAN page (the serving node caps it too). */
    static final int PAGE = 4096;
    /** Pulls of one partition tried before the takeover fails. */
    static final int PULL_ATTEMPTS = 3;

    private final ClusterMembership membership;
    private final ServedPartitions served;
    private final LocalPartitions local;
    private final PartitionSource.Opener sources;
    private final MoveStats stats;

    PartitionTakeover(ClusterMembership membership, ServedPartitions served, LocalPartitions local,
                      PartitionSource.Opener sources, MoveStats stats) {
        this.membership = membership;
        this.served = served;
        this.local = local;
        this.sources = sources;
        this.stats = stats;
    }

    /**
     * Returns once this node holds the partition whole and serves it. A pull that fails (the last owner unreachable
     * for a while) is tried again, with the map read afresh (a last owner that left the map is not waited for).
     *
     * @throws RuntimeException if the last pull failed: the partition is not served (Helix puts it in ERROR here)
     * @throws InterruptedException if interrupted between attempts
     */
    void lead(int partition) throws InterruptedException {
        String self = membership.nodeId();
        ReentrantLock lock = served.moveLock(partition);
        lock.lock();
        try {
            String last = membership.owners().lastOwner(partition);
            if (last != null && !last.equals(self)) {
                pullFromLastOwner(partition, last);
            }
            if (!self.equals(last)) {
                membership.owners().recordOwner(partition, self);
            }
            served.serve(partition);
        } finally {
            lock.unlock();
        }
    }

    private void pullFromLastOwner(int partition, String last) throws InterruptedException {
        for (int attempt = 1; ; attempt++) {
            ClusterMap map = membership.map();
            ClusterMap.Member from = map.member(last);
            if (from == null) {
                LOG.info("partition {}: its last owner '{}' is not in the map (version {}); serving this node's"
                        + " data of it as it is", partition, last, map.version());
                return;
            }
            try {
                pull(partition, from);
                return;
            } catch (RuntimeException e) {
                if (attempt == PULL_ATTEMPTS) {
                    throw e;
                }
                LOG.warn("partition {}: pulling it from '{}' at {} failed (attempt {} of {}), trying again: {}",
                        partition, last, from.address(), attempt, PULL_ATTEMPTS, e.toString());
                Thread.sleep(1000L * attempt);
            }
        }
    }

    private void pull(int partition, ClusterMap.Member from) {
        long start = System.nanoTime();
        long entries = 0;
        long bytes = 0;
        boolean ok = false;
        stats.started();
        try {
            // Stale entries of an earlier time this node held the partition must not outlive the pull.
            long stale = local.clear(partition);
            PartitionSource source = sources.open(from);
            GrowableBuffer scratch = new GrowableBuffer(64 * 1024);
            for (String cache : local.caches()) {
                // The next page is asked for before this one is applied: the source reads while this node writes.
                PartitionScanConnection.PendingPage pending = source.request(cache, partition, null, PAGE);
                while (pending != null) {
                    PartitionScanConnection.Page page;
                    try {
                        page = pending.get();
                    } catch (CacheNotFoundException absent) {
                        break; // created after that member left it, or destroyed since: nothing of it to pull
                    }
                    List<byte[]> keysAndValues = page.keysAndValues();
                    pending = page.more() && page.entries() > 0
                            ? source.request(cache, partition, keysAndValues.get(keysAndValues.size() - 2), PAGE)
                            : null;
                    try {
                        bytes += local.apply(cache, partition, keysAndValues, scratch);
                    } catch (CacheNotFoundException destroyed) {
                        break; // destroyed here meanwhile (a page asked for is left unread)
                    }
                    entries += page.entries();
                }
            }
            local.awaitDurable();
            ok = true;
            LOG.info("partition {}: took it over from '{}' at {}: {} entries, {} bytes in {} ms{}", partition, from.id(),
                    from.address(), entries, bytes, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start),
                    stale > 0 ? " (" + stale + " stale entries of this node's older copy removed first)" : "");
        } finally {
            stats.ended(ok, entries, bytes, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        }
    }
}
