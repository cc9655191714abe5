package io.sluice.cluster.internal;

import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The node's lease on its partitions: proof, at most half a session timeout old, that its ZooKeeper session is
 * alive and still holds its live instance. Every sessionTimeout/6 a daemon thread sends one asynchronous
 * {@code exists} of the live-instance znode on the session's own handle; an answer whose ephemeral owner is that
 * session confirms the lease as of the moment the request was SENT (the server heard from the session after that,
 * so it cannot expire the session before send + session timeout). The lease is valid until send + timeout/2
 * (monotonic clock; the timeout is the smaller of the configured and the negotiated one), which leaves another half
 * timeout between the end of the lease and the earliest moment another node can be promoted in this one's place.
 *
 * <p>A disconnect, an expiry or a closed session ends the lease at once, and answers to probes sent before that do
 * not renew it; after a reconnect a probe is sent at once. A process paused (SIGSTOP, a long GC) past the lease
 * finds it ended when it resumes: no probe answered in the meantime. Thread-safe; {@link #valid()} is one volatile
 * read and a clock read.
 */
final class SessionLease implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SessionLease.class);

    private final String nodeId;
    private final String liveInstancePath;
    private final Supplier<ZooKeeper> handle;
    private final long configuredTimeoutNanos;
    private final long periodMillis;
    private final ScheduledExecutorService probes;
    /** Told when a probe finds the session's connection down (Helix may report it late: see {@link #probe}). */
    private final Runnable onSilence;

    /** Lease end (System.nanoTime scale); meaningful only while {@link #held}. */
    private volatile long validUntil;
    private volatile boolean held;
    /** The session the lease was last confirmed for; meaningful only while {@link #held}. */
    private volatile long heldSession;
    /** Bumped by every invalidation: a probe answered after one that followed its send renews nothing. */
    private long generation;
    private boolean closed;

    /**
     * @param handle the session's current ZooKeeper handle, or null while there is none (not connected yet)
     */
    SessionLease(String nodeId, String liveInstancePath, Supplier<ZooKeeper> handle, Duration sessionTimeout,
                 Runnable onSilence) {
        this.onSilence = onSilence;
        this.nodeId = nodeId;
        this.liveInstancePath = liveInstancePath;
        this.handle = handle;
        this.configuredTimeoutNanos = sessionTimeout.toNanos();
        this.periodMillis = Math.max(1, sessionTimeout.toMillis() / 6);
        this.probes = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sluice-cluster-lease-" + nodeId);
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts probing: the first probe at once, then every sessionTimeout/6. */
    void start() {
        probes.scheduleAtFixedRate(this::probe, 0, periodMillis, TimeUnit.MILLISECONDS);
    }

    /** Whether the lease holds now: confirmed by an answer to a probe sent less than half a timeout ago. */
    boolean valid() {
        return held && System.nanoTime() - validUntil < 0;
    }

    /** Whether the lease holds now ({@link #valid}) and was confirmed for this session. */
    boolean heldBy(long session) {
        return valid() && heldSession == session;
    }

    /** The probe period (sessionTimeout/6). */
    Duration period() {
        return Duration.ofMillis(periodMillis);
    }

    /** Called with each connection state of the session (on the ZooKeeper client's event thread). */
    void stateChanged(KeeperState state) {
        switch (state) {
            case SyncConnected -> probeSoon();
            case Disconnected, Expired, Closed, AuthFailed -> invalidate(state);
            default -> {
            }
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        held = false;
        generation++;
        probes.shutdownNow();
    }

    private void probeSoon() {
        try {
            probes.execute(this::probe);
        } catch (RejectedExecutionException closing) {
            // closed meanwhile
        }
    }

    private synchronized void invalidate(KeeperState state) {
        generation++;
        if (held && !closed) {
            LOG.warn("node {}: lease on its partitions ended ({})", nodeId, state);
        }
        held = false;
    }

    private void probe() {
        long gen;
        synchronized (this) {
            if (closed) {
                return;
            }
            gen = generation;
        }
        // Outside the lock: getting the handle goes through Helix's client, and invalidate(), called on Helix's
        // event thread, must never wait behind it. A handle of a later session is harmless: its answer names that
        // session, and confirm() drops it if an invalidation came in between.
        ZooKeeper zk = handle.get();
        if (zk == null) {
            return; // no session yet, or none to probe: the lease runs out on the clock
        }
        if (!zk.getState().isConnected()) {
            // Helix reports a lost connection on its event thread, which a callback in flight may hold until the
            // connection is back (a child watch re-subscribing waits for it): the client's own state is current,
            // so a probe that finds it down ends the lease and tells the session watch itself.
            invalidate(KeeperState.Disconnected);
            onSilence.run();
            return;
        }
        long sent = System.nanoTime();
        long session = zk.getSessionId();
        long half = Math.min(configuredTimeoutNanos, TimeUnit.MILLISECONDS.toNanos(zk.getSessionTimeout())) / 2;
        try {
            zk.exists(liveInstancePath, false, (rc, path, ctx, stat) -> {
                if (rc == KeeperException.Code.OK.intValue() && stat != null && stat.getEphemeralOwner() == session) {
                    confirm(gen, sent + half, session);
                }
            }, null);
        } catch (RuntimeException e) {
            LOG.debug("node {}: lease probe not sent", nodeId, e);
        }
    }

    private synchronized void confirm(long gen, long until, long session) {
        if (closed || gen != generation) {
            return;
        }
        if (!held || heldSession != session || until - validUntil > 0) {
            if (!held) {
                LOG.info("node {}: lease on its partitions held (session confirmed by ZooKeeper)", nodeId);
            }
            validUntil = until;
            heldSession = session;
            held = true;
        }
    }
}
