package io.sluice.e2e.cluster;

import io.sluice.cluster.internal.ClusterSetup;

import java.time.Duration;

/** Creates a cluster the way {@code sluice-node.jar create-cluster} does, before its first node starts. */
final class ClusterCreation {

    private ClusterCreation() {
    }

    static void create(String zookeeper, String name, int partitions, Duration rebalanceDelay) {
        if (!ClusterSetup.create(zookeeper, name, partitions, rebalanceDelay)) {
            throw new IllegalStateException("cluster " + name + " existed already at " + zookeeper);
        }
    }
}
