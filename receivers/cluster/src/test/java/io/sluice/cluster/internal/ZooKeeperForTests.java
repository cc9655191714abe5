package io.sluice.cluster.internal;

import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/** ZooKeeper in the test JVM on 127.0.0.1, tick 500 ms (sessions of 1 to 10 s). */
final class ZooKeeperForTests {

    private ZooKeeperForTests() {
    }

    static TestingServer start() throws Exception {
        // The test's ZooKeeper need not survive a power cut: without an fsync per write (3.6 ms on this disk, several
        // per Helix transition) three members settle 1,024 partitions in 30 s instead of 64 s (one run each, load 8).
        System.setProperty("zookeeper.forceSync", "no");
        InstanceSpec spec = new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1, null, "127.0.0.1");
        return new TestingServer(spec, true);
    }
}
