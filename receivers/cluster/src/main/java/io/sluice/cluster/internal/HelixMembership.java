package io.sluice.cluster.internal;

import io.sluice.protocol.internal.ClusterMap;
import org.apache.helix.HelixDataAccessor;
import org.apache.helix.HelixException;
import org.apache.helix.PropertyKey;
import org.apache.helix.PropertyType;
import org.apache.helix.manager.zk.ZKHelixAdmin;
import org.apache.helix.manager.zk.ZKHelixDataAccessor;
import org.apache.helix.manager.zk.ZkBaseDataAccessor;
import org.apache.helix.model.InstanceConfig;
import org.apache.helix.spectator.RoutingTableProvider;
import org.apache.helix.zookeeper.api.client.HelixZkClient;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A node's membership on Helix: a controller-participant manager (its partitions' transitions go to the node's
 * {@link PartitionRoles}; it may lead the cluster), a spectator view of the external view ({@link MapView}), a
 * watch on its session ({@link SessionWatch}), and a second ZooKeeper client, with bounded retries, for the
 * catalogue and the owner log (Sluice's data needs no session of its own: nothing of it is ephemeral).
 */
// Helix 2 deprecates its single-ZooKeeper client API for the realm-aware (multi-ZooKeeper) one, which needs a routing
// service; Sluice runs on one ZooKeeper (ensemble), as Pinot does.
@SuppressWarnings("deprecation")
public final class HelixMembership implements ClusterMembership {

    private static final Logger LOG = LoggerFactory.getLogger(HelixMembership.class);
    /** How long past its session timeout a node waits for a live instance of its id to go (its own, killed). */
    private static final Duration STALE_LIVE_INSTANCE_MARGIN = Duration.ofSeconds(2);

    private final ClusterSettings settings;
    private final HelixZkClient store;
    private final ScheduledExecutorService sessionTimer;
    private final SessionWatch session;
    private final SessionLease lease;
    private final MembershipManager manager;
    private final PartitionStateModel.Factory models;
    private final MapView view;
    private final ZkCatalogue catalogue;
    private final ZkOwnerLog owners;
    private RoutingTableProvider routing;
    private boolean closed;

    private HelixMembership(ClusterSettings settings, PartitionRoles roles, HelixZkClient store, int partitions) {
        this.settings = settings;
        this.store = store;
        ClusterPaths paths = new ClusterPaths(settings.clusterName());
        this.owners = new ZkOwnerLog(store, paths);
        this.catalogue = new ZkCatalogue(store, paths);
        this.view = new MapView(partitions);
        this.models = new PartitionStateModel.Factory(roles);
        this.sessionTimer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "sluice-cluster-session-" + settings.nodeId());
            t.setDaemon(true);
            return t;
        });
        this.session = new SessionWatch(settings.nodeId(), settings.sessionTimeout(), sessionTimer,
                roles::sessionLost, this::reinstate);
        this.lease = new SessionLease(settings.nodeId(), paths.liveInstance(settings.nodeId()), this::zooKeeper,
                settings.sessionTimeout(), () -> session.stateChanged(KeeperState.Disconnected));
        this.manager = MembershipManager.create(settings, state -> {
            lease.stateChanged(state);
            session.stateChanged(state);
        });
        manager.getStateMachineEngine().registerStateModelFactory(ClusterPaths.STATE_MODEL, models);
    }

    /**
     * Joins the cluster: returns once this node is a live member, with a map (possibly not naming it yet: Helix
     * assigns its partitions after it joined, and {@link #onMapChange} tells of each new map).
     *
     * @throws IllegalStateException if ZooKeeper cannot be reached within the session timeout, the cluster does
     *                               not exist (the message names it, the address and how to create it), or a
     *                               node with this id is live in the cluster (refused after the session timeout
     *                               plus 2 s, the time for a killed node's session to expire)
     */
    public static HelixMembership join(ClusterSettings settings, PartitionRoles roles) {
        Objects.requireNonNull(roles, "roles");
        Duration timeout = settings.sessionTimeout();
        HelixZkClient store = ZkAccess.open(settings.zookeeper(), settings.clusterName(), timeout);
        HelixMembership membership = null;
        try {
            int partitions = ClusterSetup.requirePartitions(store, settings.zookeeper(), settings.clusterName());
            awaitNoLiveInstance(store, settings);
            publishAddress(store, settings);
            HelixThreads.makeSchedulersDaemon();
            membership = new HelixMembership(settings, roles, store, partitions);
            membership.connect();
            return membership;
        } catch (RuntimeException e) {
            if (membership != null) {
                membership.close();
            } else {
                store.close();
            }
            throw e;
        }
    }

    private void connect() {
        try {
            manager.connect();
        } catch (HelixException e) {
            if (String.valueOf(e.getMessage()).contains("already has a live-instance")) {
                throw duplicate(settings);
            }
            throw new IllegalStateException(failed(e), e);
        } catch (Exception e) {
            throw new IllegalStateException(failed(e), e);
        }
        // Probing starts once connected: started before connect(), SessionLossTest's node never saw its session
        // lost (cause not found). A partition Helix gives during connect() is acknowledged for from the first
        // probe's answer on (until then its writes are refused NOT_OWNER and sent again).
        lease.start();
        routing = new RoutingTableProvider(manager, PropertyType.EXTERNALVIEW, false, 0);
        routing.addRoutingTableChangeListener(view, null);
        view.update(routing.getRoutingTableSnapshot());
        LOG.info("node {} joined cluster {} at {} ({} partitions)", settings.nodeId(), settings.clusterName(),
                settings.zookeeper(), view.current().partitions());
    }

    private String failed(Exception e) {
        return "node " + settings.nodeId() + " could not join cluster '" + settings.clusterName()
                + "' at ZooKeeper " + settings.zookeeper() + ": " + e.getMessage();
    }

    @Override
    public String nodeId() {
        return settings.nodeId();
    }

    @Override
    public ClusterMap map() {
        return view.current();
    }

    @Override
    public void onMapChange(Consumer<ClusterMap> listener) {
        view.addListener(listener);
    }

    @Override
    public ClusterCatalogue catalogue() {
        return catalogue;
    }

    @Override
    public PartitionOwnerLog owners() {
        return owners;
    }

    @Override
    public boolean leaseValid() {
        return lease.valid();
    }

    @Override
    public long sessionId() {
        org.apache.zookeeper.ZooKeeper zk = zooKeeper();
        return zk == null ? 0 : zk.getSessionId();
    }

    @Override
    public boolean leaseHeldBy(long session) {
        return lease.heldBy(session);
    }

    @Override
    public void ensureReplicas(int replicas) {
        ClusterSetup.raiseReplicas(store, settings.clusterName(), replicas);
    }

    /** The ZooKeeper handle of this node's Helix session now, or null before it connected. */
    org.apache.zookeeper.ZooKeeper zooKeeper() {
        // null until the manager exists (the lease's thread starts after it is made)
        MembershipManager m = manager;
        return m == null ? null : m.zooKeeper();
    }

    /**
     * Leaves the cluster: the session ends at once, so the leader sees the node gone (its partitions wait out the
     * rebalance delay, then move). Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        lease.close();
        session.close();
        if (routing != null) {
            routing.shutdown();
        }
        try {
            manager.disconnect();
        } catch (RuntimeException e) {
            LOG.warn("node {} did not leave cluster {} cleanly", settings.nodeId(), settings.clusterName(), e);
        }
        if (routing != null) {
            HelixThreads.endRouterUpdater(routing); // after the disconnect: no ZooKeeper call can swallow it then
        }
        catalogue.close();
        store.close();
        sessionTimer.shutdownNow();
        LOG.info("node {} left cluster {}", settings.nodeId(), settings.clusterName());
    }

    private void reinstate() {
        try {
            models.reinstateAll();
        } catch (Exception e) {
            LOG.error("node {} could not serve its partitions again after its connection came back",
                    settings.nodeId(), e);
        }
    }

    /** Waits for a live instance of this id to go (a killed node's session expiring), or refuses. */
    private static void awaitNoLiveInstance(HelixZkClient zk, ClusterSettings settings) {
        String path = new ClusterPaths(settings.clusterName()).liveInstance(settings.nodeId());
        long deadline = System.nanoTime() + settings.sessionTimeout().plus(STALE_LIVE_INSTANCE_MARGIN).toNanos();
        boolean logged = false;
        while (zk.exists(path)) {
            if (System.nanoTime() - deadline > 0) {
                throw duplicate(settings);
            }
            if (!logged) {
                LOG.warn("node id {} is live in cluster {}: waiting up to {} ms for that session to expire",
                        settings.nodeId(), settings.clusterName(),
                        settings.sessionTimeout().plus(STALE_LIVE_INSTANCE_MARGIN).toMillis());
                logged = true;
            }
            try {
                TimeUnit.MILLISECONDS.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while joining cluster " + settings.clusterName(), e);
            }
        }
    }

    private static IllegalStateException duplicate(ClusterSettings settings) {
        return new IllegalStateException("a node with id '" + settings.nodeId() + "' is already live in cluster '"
                + settings.clusterName() + "' at ZooKeeper " + settings.zookeeper()
                + "; node ids must be unique: stop that node or give this one another id");
    }

    /** Creates or updates this node's InstanceConfig with the address clients reach it at. */
    private static void publishAddress(HelixZkClient zk, ClusterSettings settings) {
        HelixDataAccessor accessor = new ZKHelixDataAccessor(settings.clusterName(), new ZkBaseDataAccessor<>(zk));
        PropertyKey key = accessor.keyBuilder().instanceConfig(settings.nodeId());
        InstanceConfig config = accessor.getProperty(key);
        if (config == null) {
            config = new InstanceConfig(settings.nodeId());
            config.setHostName(settings.host());
            config.setPort(Integer.toString(settings.port()));
            config.setInstanceEnabled(true);
            new ZKHelixAdmin(zk).addInstance(settings.clusterName(), config);
        } else if (!settings.host().equals(config.getHostName())
                || !Integer.toString(settings.port()).equals(config.getPort())) {
            config.setHostName(settings.host());
            config.setPort(Integer.toString(settings.port()));
            accessor.setProperty(key, config);
        }
    }
}
