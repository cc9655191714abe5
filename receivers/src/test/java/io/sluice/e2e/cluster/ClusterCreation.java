package io.sluice.e2e.cluster;

import java.time.Duration;

/** Creates a cluster the way {@code sluice-node.jar create-cluster} does, before its first node starts. */
final class ClusterCreation {

    private ClusterCreation() {
    }

    static void create(String zookeeper, String name, int partitions, Duration rebalanceDelay) {
        throw new UnsupportedOperationException("ClusterSetup (branch helix) is not merged yet");
    }
}
