package io.sluice.cluster.internal;

import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/** ZooKeeper in the test JVM on 127.0.0.1, tick 500 ms (sessions of 1 to 10 s). */
final class ZooKeeperForTests {

    private ZooKeeperForTests() {
    }

    static TestingServer start() throws Exception {
        InstanceSpec spec = new InstanceSpec(null, -1, -1, -1, true, -1, 500, -1, null, "127.0.0.1");
        return new TestingServer(spec, true);
    }
}
