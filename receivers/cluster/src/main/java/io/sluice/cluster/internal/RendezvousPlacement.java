package io.sluice.cluster.internal;

import io.sluice.affinity.internal.RendezvousAffinity;
import org.apache.helix.controller.dataproviders.ResourceControllerDataProvider;
import org.apache.helix.controller.rebalancer.strategy.RebalanceStrategy;
import org.apache.helix.zookeeper.datamodel.ZNRecord;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Helix's placement of the {@code sluice} resource: each partition's preference list is the given nodes ranked by
 * rendezvous hashing ({@link RendezvousAffinity#ranked}, the function clients use too), cut to the replica count;
 * the first is the MASTER. A pure function of (partition, nodes): deterministic, and a node that joins or leaves
 * moves only the partitions it gains or loses (about 1/N).
 *
 * <p>Helix loads it by class name in the leading controller (every node can lead), hence the public no-arg
 * constructor; {@code init} is called before each computation, on the controller's pipeline thread.
 */
public final class RendezvousPlacement implements RebalanceStrategy<ResourceControllerDataProvider> {

    private String resource;
    private List<String> partitions = List.of();
    private int replicas;

    public RendezvousPlacement() {
    }

    @Override
    public void init(String resourceName, List<String> partitions, LinkedHashMap<String, Integer> states,
                     int maximumPerNode) {
        this.resource = resourceName;
        this.partitions = List.copyOf(partitions);
        int sum = 0;
        for (int count : states.values()) {
            sum += count;
        }
        this.replicas = sum;
    }

    /** Preference lists over {@code liveNodes} (Helix passes the live nodes, or the active ones while it delays). */
    @Override
    public ZNRecord computePartitionAssignment(List<String> allNodes, List<String> liveNodes,
                                               Map<String, Map<String, String>> currentMapping,
                                               ResourceControllerDataProvider clusterData) {
        ZNRecord record = new ZNRecord(resource);
        for (String name : partitions) {
            List<String> ranked = liveNodes.isEmpty() ? List.of()
                    : RendezvousAffinity.ranked(ClusterPaths.partitionNumber(name), liveNodes);
            record.setListField(name, new ArrayList<>(ranked.subList(0, Math.min(replicas, ranked.size()))));
        }
        return record;
    }
}
