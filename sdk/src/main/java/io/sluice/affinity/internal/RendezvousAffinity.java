package io.sluice.affinity.internal;

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
            int score = Murmur3.fmix(node.hashCode() * 31 + Murmur3.fmix(partition + 0x9e3779b9));
            if (best == null || Integer.compareUnsigned(score, bestScore) > 0
                    || (score == bestScore && node.compareTo(best) < 0)) {
                best = node;
                bestScore = score;
            }
        }
        return best;
    }
}
