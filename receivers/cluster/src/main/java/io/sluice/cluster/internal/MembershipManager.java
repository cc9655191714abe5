package io.sluice.cluster.internal;

import org.apache.helix.InstanceType;
import org.apache.helix.SystemPropertyKeys;
import org.apache.helix.controller.pipeline.Pipeline;
import org.apache.helix.manager.zk.ZKHelixManager;
import org.apache.helix.zookeeper.zkclient.ZkClient;
import org.apache.helix.zookeeper.zkclient.ZkConnection;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;

import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The node's Helix manager (controller-participant: every node can lead the cluster), which also reports its
 * ZooKeeper connection states: Helix's own state listener hears only of a new session, not of a disconnect or an
 * expiry.
 */
final class MembershipManager extends ZKHelixManager {

    private final Consumer<KeeperState> states;

    private MembershipManager(ClusterSettings settings, Consumer<KeeperState> states) {
        super(settings.clusterName(), settings.nodeId(), InstanceType.CONTROLLER_PARTICIPANT, settings.zookeeper(),
                null);
        this.states = states;
    }

    /**
     * A manager, not connected yet. Helix reads its session and connect timeouts from system properties in its
     * constructor: they are set for that moment and restored, under a lock so that managers made at once (one
     * JVM, several nodes: tests) each get their own.
     */
    static MembershipManager create(ClusterSettings settings, Consumer<KeeperState> states) {
        synchronized (MembershipManager.class) {
            String timeout = Long.toString(settings.sessionTimeout().toMillis());
            String oldSession = System.setProperty(SystemPropertyKeys.ZK_SESSION_TIMEOUT, timeout);
            String oldConnect = System.setProperty(SystemPropertyKeys.ZK_CONNECTION_TIMEOUT, timeout);
            try {
                MembershipManager manager = new MembershipManager(settings, states);
                // Sluice runs no Helix tasks: the task pipeline would only double the leader's work per event.
                manager.setEnabledControlPipelineTypes(new HashSet<>(Set.of(Pipeline.Type.DEFAULT)));
                return manager;
            } finally {
                restore(SystemPropertyKeys.ZK_SESSION_TIMEOUT, oldSession);
                restore(SystemPropertyKeys.ZK_CONNECTION_TIMEOUT, oldConnect);
            }
        }
    }

    /**
     * The ZooKeeper handle of this manager's session now (a new one after an expiry), or null before it connected
     * or if Helix's client is not the ZkClient of Helix 2.0.1 (the lease then never holds: see HelixMembershipTest).
     */
    ZooKeeper zooKeeper() {
        if (_zkclient instanceof ZkClient client && client.getConnection() instanceof ZkConnection connection) {
            return connection.getZookeeper();
        }
        return null;
    }

    @Override
    public void handleStateChanged(KeeperState state) {
        super.handleStateChanged(state);
        states.accept(state);
    }

    private static void restore(String key, String old) {
        if (old == null) {
            System.clearProperty(key);
        } else {
            System.setProperty(key, old);
        }
    }
}
