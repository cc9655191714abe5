package io.sluice.cluster.internal;

import org.apache.helix.zookeeper.datamodel.ZNRecord;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The placement as Helix calls it, 1024 partitions, one replica (MASTER 1). */
class RendezvousPlacementTest {

    private static final int PARTITIONS = 1024;

    private static Map<String, List<String>> place(List<String> nodes) {
        List<String> partitions = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            partitions.add(ClusterPaths.partitionName(p));
        }
        LinkedHashMap<String, Integer> states = new LinkedHashMap<>();
        states.put("MASTER", 1);
        RendezvousPlacement placement = new RendezvousPlacement();
        placement.init(ClusterPaths.RESOURCE, partitions, states, Integer.MAX_VALUE);
        ZNRecord record = placement.computePartitionAssignment(nodes, nodes, Map.of(), null);
        return record.getListFields();
    }

    private static Map<String, Integer> counts(Map<String, List<String>> placed) {
        Map<String, Integer> counts = new HashMap<>();
        placed.values().forEach(l -> counts.merge(l.get(0), 1, Integer::sum));
        return counts;
    }

    @Test
    void placesEveryPartitionOnceDeterministicallyAndBalanced() {
        List<String> three = List.of("node-1", "node-2", "node-3");
        Map<String, List<String>> placed = place(three);
        assertThat(placed).hasSize(PARTITIONS);
        assertThat(placed.values()).allSatisfy(l -> assertThat(l).hasSize(1));
        assertThat(place(three)).isEqualTo(placed);
        Map<String, Integer> counts = counts(placed);
        assertThat(counts).containsOnlyKeys(three);
        for (String node : three) {
            assertThat(counts.get(node)).as(node).isBetween((int) (PARTITIONS / 3.0 * 0.9),
                    (int) (PARTITIONS / 3.0 * 1.1));
        }
    }

    @Test
    void aFourthNodeTakesAboutAQuarterAndNothingElseMoves() {
        Map<String, List<String>> before = place(List.of("node-1", "node-2", "node-3"));
        Map<String, List<String>> after = place(List.of("node-1", "node-2", "node-3", "node-4"));
        int moved = 0;
        for (String partition : before.keySet()) {
            String was = before.get(partition).get(0);
            String is = after.get(partition).get(0);
            if (!was.equals(is)) {
                assertThat(is).as(partition).isEqualTo("node-4");
                moved++;
            }
        }
        assertThat(moved).isBetween((int) (PARTITIONS / 4.0 * 0.9), (int) (PARTITIONS / 4.0 * 1.1));
    }

    @Test
    void replicasFollowTheRankingAndNoNodesMeanEmptyLists() {
        LinkedHashMap<String, Integer> states = new LinkedHashMap<>();
        states.put("MASTER", 1);
        states.put("SLAVE", 1);
        RendezvousPlacement placement = new RendezvousPlacement();
        placement.init(ClusterPaths.RESOURCE, List.of("sluice_7"), states, Integer.MAX_VALUE);
        List<String> nodes = List.of("a", "b", "c");
        assertThat(placement.computePartitionAssignment(nodes, nodes, Map.of(), null).getListField("sluice_7"))
                .isEqualTo(io.sluice.affinity.internal.RendezvousAffinity.ranked(7, nodes).subList(0, 2));
        assertThat(placement.computePartitionAssignment(nodes, List.of(), Map.of(), null).getListField("sluice_7"))
                .isEmpty();
    }

    @Test
    void everyPartitionsReplicasAreDistinctNodesInRendezvousOrder() {
        LinkedHashMap<String, Integer> states = new LinkedHashMap<>();
        states.put("MASTER", 1);
        states.put("SLAVE", 3);
        List<String> partitions = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            partitions.add(ClusterPaths.partitionName(p));
        }
        RendezvousPlacement placement = new RendezvousPlacement();
        placement.init(ClusterPaths.RESOURCE, partitions, states, Integer.MAX_VALUE);
        List<String> five = List.of("node-1", "node-2", "node-3", "node-4", "node-5");
        Map<String, List<String>> placed = placement.computePartitionAssignment(five, five, Map.of(), null)
                .getListFields();
        for (int p = 0; p < PARTITIONS; p++) {
            List<String> replicas = placed.get(ClusterPaths.partitionName(p));
            assertThat(replicas).as("partition %d", p).hasSize(4).doesNotHaveDuplicates()
                    .isEqualTo(io.sluice.affinity.internal.RendezvousAffinity.ranked(p, five).subList(0, 4));
        }
        // fewer nodes than replicas: each node once
        List<String> two = List.of("node-1", "node-2");
        assertThat(placement.computePartitionAssignment(two, two, Map.of(), null).getListFields().values())
                .allSatisfy(l -> assertThat(l).hasSize(2).doesNotHaveDuplicates());
    }

    @Test
    void theMapListsBackupsInRendezvousOrder() {
        List<String> slaves = new ArrayList<>(List.of("node-4", "node-1", "node-3"));
        Map<String, Integer> index = Map.of("node-1", 0, "node-2", 1, "node-3", 2, "node-4", 3);
        for (int p = 0; p < 64; p++) {
            int[] backups = MapView.backupIndexes(p, slaves, index);
            List<String> ranked = io.sluice.affinity.internal.RendezvousAffinity.ranked(p, slaves);
            assertThat(backups).containsExactly(ranked.stream().mapToInt(index::get).toArray());
        }
        assertThat(MapView.backupIndexes(0, List.of(), index)).isNull();
    }

    @Test
    void partitionNamesMapToNumbersAndBack() {
        assertThat(ClusterPaths.partitionNumber(ClusterPaths.partitionName(1023))).isEqualTo(1023);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> ClusterPaths.partitionNumber("other_3"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
