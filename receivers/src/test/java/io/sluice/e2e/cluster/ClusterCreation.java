package io.sluice.e2e.cluster;

import java.nio.file.Path;
import java.time.Duration;

/** Creates a cluster the way an operator does before its first node starts. */
final class ClusterCreation {

    private ClusterCreation() {
    }

    static void create(String zookeeper, String name, int partitions, Duration rebalanceDelay, Path dir)
            throws Exception {
        throw new UnsupportedOperationException("ClusterSetup is not there yet");
    }
}
