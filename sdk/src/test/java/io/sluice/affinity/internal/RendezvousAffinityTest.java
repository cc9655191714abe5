package io.sluice.affinity.internal;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RendezvousAffinityTest {

    private static final int PARTITIONS = 1024;

    private static List<String> nodes(int n) {
        List<String> nodes = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            nodes.add("node-" + i);
        }
        return nodes;
    }

    @Test
    void ownerIsStableAndIndependentOfNodeOrder() {
        List<String> nodes = nodes(5);
        List<String> reversed = new ArrayList<>(nodes);
        java.util.Collections.reverse(reversed);
        for (int p = 0; p < PARTITIONS; p++) {
            String owner = RendezvousAffinity.owner(p, nodes);
            assertThat(RendezvousAffinity.owner(p, nodes)).isEqualTo(owner);
            assertThat(RendezvousAffinity.owner(p, reversed)).as("partition %d", p).isEqualTo(owner);
        }
    }

    @Test
    void aSingleNodeOwnsEveryPartition() {
        for (int p = 0; p < PARTITIONS; p++) {
            assertThat(RendezvousAffinity.owner(p, List.of("only"))).isEqualTo("only");
        }
    }

    @Test
    void partitionsAreBalancedOverSeveralNodes() {
        for (int n : new int[] {2, 3, 4, 8}) {
            Map<String, Integer> counts = new HashMap<>();
            for (int p = 0; p < PARTITIONS; p++) {
                counts.merge(RendezvousAffinity.owner(p, nodes(n)), 1, Integer::sum);
            }
            assertThat(counts).as("%d nodes", n).hasSize(n);
            double fair = (double) PARTITIONS / n;
            assertThat(counts.values()).as("%d nodes: %s", n, counts)
                    .allSatisfy(c -> assertThat(c).isBetween((int) (fair * 0.75), (int) (fair * 1.25)));
        }
    }

    @Test
    void addingANodeMovesOnlyPartitionsToTheNewNode() {
        List<String> before = nodes(4);
        List<String> after = nodes(5);
        int moved = 0;
        for (int p = 0; p < PARTITIONS; p++) {
            String oldOwner = RendezvousAffinity.owner(p, before);
            String newOwner = RendezvousAffinity.owner(p, after);
            if (!oldOwner.equals(newOwner)) {
                assertThat(newOwner).as("partition %d", p).isEqualTo("node-4");
                moved++;
            }
        }
        // The new node takes about its fair share (1/5), never more than a little over it.
        assertThat(moved).isBetween(PARTITIONS / 5 * 3 / 4, PARTITIONS / 5 * 5 / 4);
    }

    @Test
    void removingANodeMovesOnlyItsPartitions() {
        List<String> before = nodes(5);
        List<String> after = new ArrayList<>(before);
        after.remove("node-2");
        for (int p = 0; p < PARTITIONS; p++) {
            String oldOwner = RendezvousAffinity.owner(p, before);
            if (!oldOwner.equals("node-2")) {
                assertThat(RendezvousAffinity.owner(p, after)).as("partition %d", p).isEqualTo(oldOwner);
            }
        }
    }

    @Test
    void anEmptyTopologyIsRejected() {
        assertThatThrownBy(() -> RendezvousAffinity.owner(7, List.of()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("partition 7");
    }

    @Test
    void rankingStartsWithTheOwnerAndDropsALeavingNodeWithoutReorderingTheRest() {
        List<String> all = nodes(5);
        for (int p = 0; p < PARTITIONS; p++) {
            List<String> ranked = RendezvousAffinity.ranked(p, all);
            assertThat(ranked).containsExactlyInAnyOrderElementsOf(all);
            assertThat(ranked.get(0)).isEqualTo(RendezvousAffinity.owner(p, all));
            List<String> without = new ArrayList<>(all);
            without.remove("node-3");
            List<String> expected = new ArrayList<>(ranked);
            expected.remove("node-3");
            assertThat(RendezvousAffinity.ranked(p, without)).as("partition %d", p).isEqualTo(expected);
        }
    }
}
