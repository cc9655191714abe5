package io.sluice.cluster.internal;

import org.apache.helix.NotificationContext;
import org.apache.helix.model.Message;
import org.apache.helix.participant.statemachine.StateModel;
import org.apache.helix.participant.statemachine.StateModelFactory;
import org.apache.helix.participant.statemachine.StateModelInfo;
import org.apache.helix.participant.statemachine.Transition;

/**
 * One partition of the {@code sluice} resource on this node, in Helix's MasterSlave state model: each transition
 * calls the node's {@link PartitionRoles}. Helix runs one transition of a partition at a time (on its message
 * threads, several partitions at once); a transition that throws puts the partition in ERROR on this node.
 * Public with public transition methods because Helix finds and calls them by reflection.
 */
@StateModelInfo(initialState = "OFFLINE", states = {"MASTER", "SLAVE", "OFFLINE", "DROPPED", "ERROR"})
public final class PartitionStateModel extends StateModel {

    private final int partition;
    private final PartitionRoles roles;

    PartitionStateModel(int partition, PartitionRoles roles) {
        this.partition = partition;
        this.roles = roles;
    }

    @Transition(from = "OFFLINE", to = "SLAVE")
    public synchronized void onBecomeSlaveFromOffline(Message message, NotificationContext context) throws Exception {
        roles.follow(partition);
    }

    @Transition(from = "SLAVE", to = "MASTER")
    public synchronized void onBecomeMasterFromSlave(Message message, NotificationContext context) throws Exception {
        roles.lead(partition);
    }

    @Transition(from = "MASTER", to = "SLAVE")
    public synchronized void onBecomeSlaveFromMaster(Message message, NotificationContext context) throws Exception {
        roles.stopLeading(partition);
    }

    @Transition(from = "SLAVE", to = "OFFLINE")
    public synchronized void onBecomeOfflineFromSlave(Message message, NotificationContext context) throws Exception {
        roles.release(partition);
    }

    @Transition(from = "OFFLINE", to = "DROPPED")
    public synchronized void onBecomeDroppedFromOffline(Message message, NotificationContext context)
            throws Exception {
        roles.drop(partition);
    }

    @Override
    @Transition(from = "ERROR", to = "DROPPED")
    public synchronized void onBecomeDroppedFromError(Message message, NotificationContext context)
            throws Exception {
        roles.drop(partition);
    }

    @Transition(from = "ERROR", to = "OFFLINE")
    public synchronized void onBecomeOfflineFromError(Message message, NotificationContext context) {
        // Nothing served in ERROR; the partition starts over from OFFLINE.
    }

    /**
     * Called by Helix on every model when its session changes or it disconnects. The node hears of a session loss
     * through {@link PartitionRoles#sessionLost()} and gets its partitions back through transitions, so this
     * does nothing (Helix's default logs a warning per partition).
     */
    @Override
    public void reset() {
    }

    /**
     * After the connection came back within the same session (Helix still counts this node as the partition's
     * MASTER, so it sends no transition): serve the partition again if this node leads it.
     */
    synchronized void reinstate() throws Exception {
        if ("MASTER".equals(getCurrentState())) {
            roles.lead(partition);
        }
    }

    /** Makes one model per partition of the {@code sluice} resource. */
    static final class Factory extends StateModelFactory<PartitionStateModel> {

        private final PartitionRoles roles;

        Factory(PartitionRoles roles) {
            this.roles = roles;
        }

        @Override
        public PartitionStateModel createNewStateModel(String resourceName, String partitionName) {
            return new PartitionStateModel(ClusterPaths.partitionNumber(partitionName), roles);
        }

        /** {@link #reinstate()} on every partition this node holds, in partition order of Helix's set. */
        void reinstateAll() throws Exception {
            for (String name : getPartitionSet(ClusterPaths.RESOURCE)) {
                PartitionStateModel model = getStateModel(ClusterPaths.RESOURCE, name);
                if (model != null) {
                    model.reinstate();
                }
            }
        }
    }
}
