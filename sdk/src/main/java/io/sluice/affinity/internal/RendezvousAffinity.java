package io.sluice.affinity.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Maps a partition to its owner node by rendezvous (highest random weight) hashing: each node
 * scores every partition and the highest score owns it, so adding or removing a node moves only
 * the partitions it gains or loses. With one node every partition maps to it, through the same
 * code a cluster uses.
 */
public final class RendezvousAffinity {

    private RendezvousAffinity() {
    }

    /**
     * The owner of the partition among the nodes.
     *
     * @throws IllegalArgumentException if there are no nodes
     */
    public static String owner(int partition, List<String> nodeIds) {
        if (nodeIds.isEmpty()) {
            throw new IllegalArgumentException("no node owns partition " + partition + ": the topology is empty");
        }
        String best = null;
        int bestScore = 0;
        for (String node : nodeIds) {
            int s = score(partition, node);
            if (best == null || ranksBefore(s, node, bestScore, best)) {
                best = node;
                bestScore = s;
            }
        }
        return best;
    }

    /**
     * The nodes in the order they claim the partition: the first is its {@link #owner}, the next would own it if
     * the first left, and so on (the order of the others does not change when a node leaves or joins).
     *
     * @return a new list, the nodes ordered by descending score (ties by id)
     */
    public static List<String> ranked(int partition, List<String> nodeIds) {
        int n = nodeIds.size();
        int[] scores = new int[n];
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            scores[i] = score(partition, nodeIds.get(i));
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> ranksBefore(scores[a], nodeIds.get(a), scores[b], nodeIds.get(b)) ? -1
                : ranksBefore(scores[b], nodeIds.get(b), scores[a], nodeIds.get(a)) ? 1 : 0);
        List<String> ranked = new ArrayList<>(n);
        for (Integer i : order) {
            ranked.add(nodeIds.get(i));
        }
        return ranked;
    }

    /** The node's claim on the partition: the one hash definition client and cluster share. */
    private static int score(int partition, String node) {
        return Murmur3.fmix(node.hashCode() * 31 + Murmur3.fmix(partition + 0x9e3779b9));
    }

    private static boolean ranksBefore(int score, String node, int otherScore, String other) {
        int c = Integer.compareUnsigned(score, otherScore);
        return c > 0 || (c == 0 && node.compareTo(other) < 0);
    }
}
