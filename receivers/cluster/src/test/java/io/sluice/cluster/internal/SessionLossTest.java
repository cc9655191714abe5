package io.sluice.cluster.internal;

import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** ZooKeeper goes away and comes back: the node stops serving, then serves its partitions again. */
@Timeout(120)
class SessionLossTest {

    private static final int PARTITIONS = 8;
    private TestingServer zk;
    private HelixMembership member;

    @AfterEach
    void stop() throws Exception {
        if (member != null) {
            member.close();
        }
        zk.close();
    }

    @Test
    void aNodeCutOffFromZooKeeperStopsServingAndServesAgainWhenTheSameSessionIsBack() throws Exception {
        zk = ZooKeeperForTests.start();
        ClusterSetup.create(zk.getConnectString(), "cut", PARTITIONS, Duration.ofSeconds(30));
        RecordingRoles roles = new RecordingRoles();
        member = HelixMembership.join(new ClusterSettings(zk.getConnectString(), "cut", "node-1", "127.0.0.1", 7000,
                Duration.ofSeconds(6)), roles);
        Set<Integer> all = new HashSet<>();
        for (int p = 0; p < PARTITIONS; p++) {
            all.add(p);
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> roles.leading().equals(all));

        zk.stop();
        // The client notices after 2/3 of the timeout, the node gives up a third later: 6 s in all.
        await().atMost(Duration.ofSeconds(20)).until(() -> roles.sessionsLost() == 1);
        assertThat(roles.leading()).isEmpty();
        roles.forget();

        zk.restart();
        await().atMost(Duration.ofSeconds(60)).until(() -> roles.leading().equals(all));
        assertThat(roles.calls()).extracting(RecordingRoles.Call::what).contains("lead");
    }
}
