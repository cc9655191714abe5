package io.sluice.node.internal.cluster;

import io.sluice.cluster.internal.PartitionRoles;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Helix's role changes of this node's partitions, handed to the part that does each: taking over
 * ({@link PartitionTakeover}), giving up ({@link ServedPartitions#stopServing}, then its backups acknowledge what
 * they were sent: {@link PrimaryReplication}), backing ({@link BackupReplication}: SLAVE), dropping retired data
 * ({@link RetiredPartitions}). Helix may call it while the node is still joining (before the catalogue was applied):
 * a transition waits until the node has joined.
 */
final class NodeRoles implements PartitionRoles {

    private static final Logger LOG = LoggerFactory.getLogger(NodeRoles.class);
    /** How long a transition waits for the node to finish joining. */
    private static final long JOIN_BOUND_SECONDS = 120;
    /** How long giving a partition up waits at most for its backups to acknowledge what they were sent. */
    private static final long REPLICATION_DRAIN_SECONDS = 10;
    /** How long OFFLINE -> SLAVE waits for the copy to be in sync before it completes anyway. */
    private static final long SYNC_WAIT_MILLIS = 120_000;

    private final String nodeId;
    private final CompletableFuture<ClusterParts> joined;

    NodeRoles(String nodeId, CompletableFuture<ClusterParts> joined) {
        this.nodeId = nodeId;
        this.joined = joined;
    }

    private ClusterParts parts() throws InterruptedException {
        try {
            return joined.get(JOIN_BOUND_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("node '" + nodeId + "' did not join its cluster: " + e.getCause(),
                    e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("node '" + nodeId + "' has not finished joining its cluster after "
                    + JOIN_BOUND_SECONDS + " s");
        }
    }

    @Override
    public void follow(int partition) throws InterruptedException {
        BackupReplication backup = parts().backup();
        backup.follow(partition);
        // OFFLINE -> SLAVE completes once this copy is in sync (or there is nothing to catch up from): Helix drops
        // the replica this one replaces only then.
        backup.awaitInSync(partition, SYNC_WAIT_MILLIS);
    }

    @Override
    public void lead(int partition) throws InterruptedException {
        try {
            parts().takeover().lead(partition);
        } catch (RuntimeException e) {
            LOG.error("partition {}: node '{}' could not take it over: {}", partition, nodeId, e.toString());
            throw e;
        }
    }

    @Override
    public void stopLeading(int partition) throws InterruptedException {
        ClusterParts parts = parts();
        parts.served().stopServing(partition);
        // The next primary is one of the backups: what they were sent reaches them before it takes over.
        if (!parts.primary().awaitReplicated(partition, REPLICATION_DRAIN_SECONDS, TimeUnit.SECONDS)) {
            LOG.warn("partition {}: its backups did not acknowledge its last records within {} s", partition,
                    REPLICATION_DRAIN_SECONDS);
        }
        parts.primary().stopLeading(partition);
        parts.backup().follow(partition);
    }

    @Override
    public void release(int partition) throws InterruptedException {
        ClusterParts parts = parts();
        if (parts.served().serves(partition)) {
            parts.served().stopServing(partition); // MASTER -> OFFLINE without SLAVE in between: still safe
        }
        parts.primary().stopLeading(partition);
        parts.backup().stopFollowing(partition);
    }

    @Override
    public void drop(int partition) throws InterruptedException {
        parts().retired().sweepSoon();
    }

    @Override
    public void sessionLost() {
        ClusterParts parts = joined.isDone() && !joined.isCompletedExceptionally() ? joined.join() : null;
        if (parts != null) {
            parts.served().stopAll();
            LOG.warn("node '{}' lost its ZooKeeper session: it serves none of its partitions until Helix gives them"
                    + " back", nodeId);
        }
    }
}
