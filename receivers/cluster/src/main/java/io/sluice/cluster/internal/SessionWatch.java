package io.sluice.cluster.internal;

import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Turns the ZooKeeper connection states of the node's Helix session into "the session is lost" and "the same
 * session is back":
 * <ul>
 * <li>Expired: lost at once (another node may own the partitions now; Helix's new session gets them back through
 *     transitions).</li>
 * <li>Disconnected: the client notices silence after two thirds of the session timeout, so ZooKeeper may expire
 *     the session a third of it later: lost if still disconnected then.</li>
 * <li>SyncConnected after a loss that was not an expiry: the same session is back and Helix still counts this
 *     node as its partitions' master, so it sends no transition: {@code restored} serves them again.</li>
 * </ul>
 * Called on the ZooKeeper client's event thread; runs the callbacks on {@code timer}'s one thread.
 */
final class SessionWatch {

    private static final Logger LOG = LoggerFactory.getLogger(SessionWatch.class);

    private final String nodeId;
    private final long graceMillis;
    private final ScheduledExecutorService timer;
    private final Runnable lost;
    private final Runnable restored;

    private ScheduledFuture<?> pendingLoss;
    private boolean lostSameSession;
    private boolean closed;

    SessionWatch(String nodeId, Duration sessionTimeout, ScheduledExecutorService timer, Runnable lost,
                 Runnable restored) {
        this.nodeId = nodeId;
        this.graceMillis = Math.max(1, sessionTimeout.toMillis() / 3);
        this.timer = timer;
        this.lost = lost;
        this.restored = restored;
    }

    synchronized void stateChanged(KeeperState state) {
        if (closed) {
            return;
        }
        switch (state) {
            case Disconnected -> {
                if (pendingLoss == null && !lostSameSession) {
                    LOG.warn("node {} lost its ZooKeeper connection; it stops serving in {} ms unless it is back",
                            nodeId, graceMillis);
                    pendingLoss = timer.schedule(this::disconnectedTooLong, graceMillis, TimeUnit.MILLISECONDS);
                }
            }
            case Expired -> {
                cancelPending();
                lostSameSession = false;
                LOG.warn("node {}'s ZooKeeper session expired: it serves no partition until Helix gives them back",
                        nodeId);
                timer.execute(lost);
            }
            case SyncConnected -> {
                cancelPending();
                if (lostSameSession) {
                    lostSameSession = false;
                    LOG.warn("node {} is connected to ZooKeeper again in the same session: it serves its "
                            + "partitions again", nodeId);
                    timer.execute(restored);
                }
            }
            default -> {
            }
        }
    }

    synchronized void close() {
        closed = true;
        cancelPending();
    }

    private synchronized void disconnectedTooLong() {
        if (closed || pendingLoss == null) {
            return;
        }
        pendingLoss = null;
        lostSameSession = true;
        LOG.warn("node {} has been disconnected from ZooKeeper for {} ms: it serves no partition until it is back",
                nodeId, graceMillis);
        lost.run();
    }

    private void cancelPending() {
        if (pendingLoss != null) {
            pendingLoss.cancel(false);
            pendingLoss = null;
        }
    }
}
