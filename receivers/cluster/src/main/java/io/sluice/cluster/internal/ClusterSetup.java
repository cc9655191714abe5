package io.sluice.cluster.internal;

import org.apache.helix.AccessOption;
import org.apache.helix.ConfigAccessor;
import org.apache.helix.PropertyPathBuilder;
import org.apache.helix.manager.zk.ZkBaseDataAccessor;
import org.apache.helix.zookeeper.datamodel.ZNRecord;
import org.apache.helix.manager.zk.ZKHelixAdmin;
import org.apache.helix.manager.zk.ZKHelixManager;
import org.apache.helix.manager.zk.ZKUtil;
import org.apache.helix.model.BuiltInStateModelDefinitions;
import org.apache.helix.model.ClusterConfig;
import org.apache.helix.model.IdealState;
import org.apache.helix.zookeeper.api.client.HelixZkClient;

import java.time.Duration;

/**
 * Creates and inspects a Sluice cluster in ZooKeeper (what {@code sluice-node.jar create-cluster} runs): the Helix
 * cluster, the MasterSlave state model, and one resource {@code sluice} with P partitions, FULL_AUTO with
 * {@link RendezvousPlacement}, 1 + backups replicas, delayed rebalance with minActiveReplicas 0: a node away for
 * less than the delay keeps its replicas (without backups its partitions are unserved meanwhile); with backups,
 * each partition it led is led at once by its first backup (Helix makes MASTER the first live node of the
 * preference list, which keeps the away node for the delay), and only the re-creation of its replicas on other
 * nodes waits for the delay (BackupPlacementTest).
 */
// Helix 2 deprecates its single-ZooKeeper client API for the realm-aware (multi-ZooKeeper) one, which needs a routing
// service; Sluice runs on one ZooKeeper (ensemble), as Pinot does.
@SuppressWarnings("deprecation")
public final class ClusterSetup {

    /** How long set-up waits for ZooKeeper before it fails naming the address. */
    /** How often the leading controller runs a rebalance even when nothing changed (see create). */
    static final Duration REBALANCE_PERIOD = Duration.ofSeconds(10);

    public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** The most backups a partition has (CacheConfig.withBackups allows 0..3). */
    public static final int MAX_BACKUPS = 3;

    private ClusterSetup() {
    }

    /**
     * Creates the cluster; does nothing if it exists with the same partition count (the rebalance delay of an
     * existing cluster is left as it is).
     *
     * @return true if created, false if it existed already
     * @throws IllegalArgumentException if partitions is not in 1..32767 or the delay is negative
     * @throws IllegalStateException    if the cluster exists with another partition count, or ZooKeeper cannot be
     *                                  reached within {@link #CONNECT_TIMEOUT} (the message names the address)
     */
    public static boolean create(String zookeeper, String clusterName, int partitions, Duration rebalanceDelay) {
        return create(zookeeper, clusterName, partitions, rebalanceDelay, 0, CONNECT_TIMEOUT);
    }

    /**
     * Creates the cluster with {@code 1 + backups} replicas per partition; for an existing cluster with the same
     * partition count, raises its replica count to that if it is lower (never lowers it) and returns false.
     *
     * @return true if created, false if it existed already
     * @throws IllegalArgumentException if partitions is not in 1..32767, backups not in 0..{@value #MAX_BACKUPS}
     *                                  or the delay is negative
     * @throws IllegalStateException    if the cluster exists with another partition count, or ZooKeeper cannot be
     *                                  reached within {@link #CONNECT_TIMEOUT} (the message names the address)
     */
    public static boolean create(String zookeeper, String clusterName, int partitions, Duration rebalanceDelay,
                                 int backups) {
        return create(zookeeper, clusterName, partitions, rebalanceDelay, backups, CONNECT_TIMEOUT);
    }

    static boolean create(String zookeeper, String clusterName, int partitions, Duration rebalanceDelay,
                          int backups, Duration timeout) {
        if (backups < 0 || backups > MAX_BACKUPS) {
            throw new IllegalArgumentException("backups is " + backups + "; a cluster has 0.." + MAX_BACKUPS);
        }
        if (partitions < 1 || partitions > Short.MAX_VALUE) {
            throw new IllegalArgumentException("partitions is " + partitions + "; a cluster has 1.."
                    + Short.MAX_VALUE + " partitions");
        }
        if (rebalanceDelay.isNegative()) {
            throw new IllegalArgumentException("rebalance delay is negative: " + rebalanceDelay);
        }
        HelixZkClient zk = ZkAccess.open(zookeeper, null, timeout);
        try {
            ZKHelixAdmin admin = new ZKHelixAdmin(zk);
            if (ZKUtil.isClusterSetup(clusterName, zk)) {
                IdealState existing = admin.getResourceIdealState(clusterName, ClusterPaths.RESOURCE);
                if (existing != null) {
                    if (existing.getNumPartitions() != partitions) {
                        throw new IllegalStateException("cluster '" + clusterName + "' at " + zookeeper
                                + " exists with " + existing.getNumPartitions() + " partitions, not " + partitions
                                + "; the partition count is fixed when a cluster is created");
                    }
                    raiseReplicas(zk, clusterName, 1 + backups);
                    return false;
                }
            } else {
                admin.addCluster(clusterName, false);
            }
            // addCluster adds no state model definitions.
            if (admin.getStateModelDef(clusterName, ClusterPaths.STATE_MODEL) == null) {
                admin.addStateModelDef(clusterName, ClusterPaths.STATE_MODEL,
                        BuiltInStateModelDefinitions.MasterSlave.getStateModelDefinition());
            }
            ConfigAccessor configs = new ConfigAccessor(zk);
            ClusterConfig cluster = configs.getClusterConfig(clusterName);
            cluster.setDelayRebalaceEnabled(true);
            cluster.setRebalanceDelayTime(rebalanceDelay.toMillis());
            // The leader also rebalances every REBALANCE_PERIOD, not only when something changes or its one-shot
            // timer for the delay's end fires: that timer is one static task per resource name in Helix
            // (RebalanceScheduler) and a stale one (a leader that stopped leading, a previous cluster in the JVM)
            // kept a departed node's partitions ownerless past the delay (HelixMembershipTest, in the full build).
            cluster.setRebalanceTimePeriod(REBALANCE_PERIOD.toMillis());
            cluster.getRecord().setBooleanField(ZKHelixManager.ALLOW_PARTICIPANT_AUTO_JOIN, true);
            configs.setClusterConfig(clusterName, cluster);

            admin.addResource(clusterName, ClusterPaths.RESOURCE, partitions, ClusterPaths.STATE_MODEL,
                    IdealState.RebalanceMode.FULL_AUTO.name());
            // Without rebalance() the ideal state names no partitions and no external view ever appears.
            admin.rebalance(clusterName, ClusterPaths.RESOURCE, 1 + backups);
            IdealState ideal = admin.getResourceIdealState(clusterName, ClusterPaths.RESOURCE);
            ideal.setRebalanceStrategy(RendezvousPlacement.class.getName());
            ideal.setMinActiveReplicas(0);
            ideal.setDelayRebalanceEnabled(true);
            ideal.setRebalanceDelay(rebalanceDelay.toMillis());
            admin.setResourceIdealState(clusterName, ClusterPaths.RESOURCE, ideal);
            return true;
        } finally {
            zk.close();
        }
    }

    /**
     * Raises the resource's replica count to {@code replicas} if it is lower; never lowers it. A compare-and-set on
     * the ideal state's version, so that nodes raising it at once (caches created on two nodes) all take effect.
     *
     * @throws IllegalArgumentException if replicas is not in 1..1 + {@value #MAX_BACKUPS}
     * @throws IllegalStateException    if the cluster has no resource
     */
    static void raiseReplicas(HelixZkClient zk, String clusterName, int replicas) {
        if (replicas < 1 || replicas > 1 + MAX_BACKUPS) {
            throw new IllegalArgumentException("replicas is " + replicas + "; a partition has 1.." + (1 + MAX_BACKUPS)
                    + " (a primary and up to " + MAX_BACKUPS + " backups)");
        }
        String path = PropertyPathBuilder.idealState(clusterName, ClusterPaths.RESOURCE);
        ZkBaseDataAccessor<ZNRecord> accessor = new ZkBaseDataAccessor<>(zk);
        ZNRecord now = accessor.get(path, null, AccessOption.PERSISTENT);
        if (now == null) {
            throw new IllegalStateException("cluster '" + clusterName + "' has no resource "
                    + ClusterPaths.RESOURCE + "; create it first (create-cluster)");
        }
        if (replicaCount(now) >= replicas) {
            return;
        }
        boolean written = accessor.update(path, current -> {
            if (current == null || replicaCount(current) >= replicas) {
                return current;
            }
            IdealState ideal = new IdealState(current);
            ideal.setReplicas(Integer.toString(replicas));
            return ideal.getRecord();
        }, AccessOption.PERSISTENT);
        if (!written) {
            throw new IllegalStateException("could not raise the replicas of cluster '" + clusterName + "' to "
                    + replicas);
        }
    }

    /**
     * The cluster's replica count per partition (1 + backups).
     *
     * @throws IllegalStateException if the cluster does not exist, or ZooKeeper cannot be reached within
     *                               {@link #CONNECT_TIMEOUT}
     */
    public static int replicas(String zookeeper, String clusterName) {
        HelixZkClient zk = ZkAccess.open(zookeeper, null, CONNECT_TIMEOUT);
        try {
            requirePartitions(zk, zookeeper, clusterName);
            return replicaCount(new ZKHelixAdmin(zk).getResourceIdealState(clusterName, ClusterPaths.RESOURCE)
                    .getRecord());
        } finally {
            zk.close();
        }
    }

    /** The resource's replica count (1 if the ideal state names none). */
    static int replicaCount(ZNRecord idealState) {
        try {
            return Integer.parseInt(new IdealState(idealState).getReplicas());
        } catch (NumberFormatException e) {
            return 1;
        }
    }

    /**
     * Whether the cluster exists (with its resource).
     *
     * @throws IllegalStateException if ZooKeeper cannot be reached within {@link #CONNECT_TIMEOUT}
     */
    public static boolean exists(String zookeeper, String clusterName) {
        HelixZkClient zk = ZkAccess.open(zookeeper, null, CONNECT_TIMEOUT);
        try {
            return readPartitions(zk, clusterName) > 0;
        } finally {
            zk.close();
        }
    }

    /**
     * The cluster's partition count.
     *
     * @throws IllegalStateException if the cluster does not exist (the message says how to create it), or
     *                               ZooKeeper cannot be reached within {@link #CONNECT_TIMEOUT}
     */
    public static int partitions(String zookeeper, String clusterName) {
        HelixZkClient zk = ZkAccess.open(zookeeper, null, CONNECT_TIMEOUT);
        try {
            return requirePartitions(zk, zookeeper, clusterName);
        } finally {
            zk.close();
        }
    }

    /** The partition count, or 0 if the cluster or its resource does not exist. */
    static int readPartitions(HelixZkClient zk, String clusterName) {
        if (!ZKUtil.isClusterSetup(clusterName, zk)) {
            return 0;
        }
        IdealState ideal = new ZKHelixAdmin(zk).getResourceIdealState(clusterName, ClusterPaths.RESOURCE);
        return ideal == null ? 0 : ideal.getNumPartitions();
    }

    static int requirePartitions(HelixZkClient zk, String zookeeper, String clusterName) {
        int partitions = readPartitions(zk, clusterName);
        if (partitions <= 0) {
            throw missing(zookeeper, clusterName);
        }
        return partitions;
    }

    static IllegalStateException missing(String zookeeper, String clusterName) {
        return new IllegalStateException("cluster '" + clusterName + "' does not exist in ZooKeeper at " + zookeeper
                + "; create it first: java -jar sluice-node.jar create-cluster --zookeeper " + zookeeper
                + " --name " + clusterName);
    }
}
