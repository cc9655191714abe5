package io.sluice.cluster.internal;

import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The lease: held while ZooKeeper answers the session's probes, ended at once by a loss, and by silence. */
@Timeout(120)
class SessionLeaseTest {

    private static final Duration SESSION = Duration.ofSeconds(6);
    private static final int PARTITIONS = 8;
    private TestingServer zk;
    private HelixMembership member;
    private ZooKeeper raw;
    private SessionLease lease;

    @BeforeEach
    void start() throws Exception {
        zk = ZooKeeperForTests.start();
    }

    @AfterEach
    void stop() throws Exception {
        if (lease != null) {
            lease.close();
        }
        if (member != null) {
            member.close();
        }
        if (raw != null) {
            raw.close();
        }
        zk.close();
    }

    private RecordingRoles joinOne(String cluster) {
        ClusterSetup.create(zk.getConnectString(), cluster, PARTITIONS, Duration.ofSeconds(30));
        RecordingRoles roles = new RecordingRoles();
        member = HelixMembership.join(new ClusterSettings(zk.getConnectString(), cluster, "node-1", "127.0.0.1",
                7000, SESSION), roles);
        return roles;
    }

    private static Set<Integer> all() {
        Set<Integer> all = new HashSet<>();
        for (int p = 0; p < PARTITIONS; p++) {
            all.add(p);
        }
        return all;
    }

    @Test
    void theLeaseEndsTheMomentZooKeeperGoesAndHoldsAgainWhenTheSameSessionIsBack() throws Exception {
        RecordingRoles roles = joinOne("lease");
        await().atMost(Duration.ofSeconds(30)).until(member::leaseValid);
        await().atMost(Duration.ofSeconds(60)).until(() -> roles.leading().equals(all()));
        long session = member.zooKeeper().getSessionId();
        // held steadily: renewed every timeout/6 (1 s), each renewal good for timeout/2 (3 s)
        await().during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(10)).until(member::leaseValid);

        long stopped = System.nanoTime();
        zk.stop();
        await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(10)).until(() -> !member.leaseValid());
        assertThat(Duration.ofNanos(System.nanoTime() - stopped)).isLessThan(Duration.ofMillis(1500));

        zk.restart();
        await().atMost(Duration.ofSeconds(30)).until(member::leaseValid);
        assertThat(member.zooKeeper().getSessionId()).isEqualTo(session);
        await().atMost(Duration.ofSeconds(30)).until(() -> roles.leading().equals(all()));
    }

    @Test
    void anExpiredSessionEndsTheLeaseAtOnceAndTheNewSessionHoldsItOnceHelixRegisteredIt() throws Exception {
        RecordingRoles roles = joinOne("expiry");
        await().atMost(Duration.ofSeconds(30)).until(member::leaseValid);
        await().atMost(Duration.ofSeconds(60)).until(() -> roles.leading().equals(all()));
        ZooKeeper session = member.zooKeeper();
        long id = session.getSessionId();

        // Another handle on the same session, closed: the server ends the session, as it does when it expires.
        CountDownLatch connected = new CountDownLatch(1);
        ZooKeeper twin = new ZooKeeper(zk.getConnectString(), (int) SESSION.toMillis(), e -> {
            if (e.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        }, id, session.getSessionPasswd());
        assertThat(connected.await(10, TimeUnit.SECONDS)).isTrue();
        long killed = System.nanoTime();
        twin.close();
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10)).until(() -> !member.leaseValid());
        assertThat(Duration.ofNanos(System.nanoTime() - killed)).isLessThan(SESSION.dividedBy(2));

        await().atMost(Duration.ofSeconds(30)).until(() -> roles.sessionsLost() == 1);
        await().atMost(Duration.ofSeconds(60)).until(member::leaseValid);
        assertThat(member.zooKeeper().getSessionId()).isNotEqualTo(id);
        await().atMost(Duration.ofSeconds(60)).until(() -> roles.leading().equals(all()));
    }

    /** A raw session holding an ephemeral znode, as a node's session holds its live instance. */
    private String liveNode() throws Exception {
        CountDownLatch connected = new CountDownLatch(1);
        raw = new ZooKeeper(zk.getConnectString(), 3000, e -> {
            if (e.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        });
        assertThat(connected.await(10, TimeUnit.SECONDS)).isTrue();
        return raw.create("/live", new byte[0], ZooDefs.Ids.OPEN_ACL_UNSAFE, CreateMode.EPHEMERAL);
    }

    @Test
    void aProcessThatHearsNothingLosesTheLeaseHalfATimeoutAfterItsLastAnsweredProbe() throws Exception {
        String path = liveNode();
        AtomicReference<ZooKeeper> handle = new AtomicReference<>(raw);
        Duration timeout = Duration.ofSeconds(3);
        lease = new SessionLease("n", path, handle::get, timeout, () -> { });
        assertThat(lease.period()).isEqualTo(Duration.ofMillis(500));
        assertThat(lease.valid()).isFalse();
        lease.start();
        await().atMost(Duration.ofSeconds(10)).until(lease::valid);
        await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(lease::valid);

        // No probe goes out any more (as in a process paused, or a thread that cannot reach ZooKeeper), and no
        // connection event tells of it: the lease runs out on the monotonic clock.
        long silent = System.nanoTime();
        handle.set(null);
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10)).until(() -> !lease.valid());
        Duration held = Duration.ofNanos(System.nanoTime() - silent);
        assertThat(held).isLessThanOrEqualTo(timeout.dividedBy(2).plusMillis(300))
                .isGreaterThanOrEqualTo(timeout.dividedBy(2).minus(lease.period()).minusMillis(300));

        handle.set(raw);
        await().atMost(Duration.ofSeconds(5)).until(lease::valid);
    }

    @Test
    void aLiveNodeOfAnotherSessionConfirmsNothing() throws Exception {
        String path = liveNode();
        CountDownLatch connected = new CountDownLatch(1);
        try (ZooKeeper other = new ZooKeeper(zk.getConnectString(), 3000, e -> {
            if (e.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                connected.countDown();
            }
        })) {
            assertThat(connected.await(10, TimeUnit.SECONDS)).isTrue();
            lease = new SessionLease("n", path, () -> other, Duration.ofSeconds(3), () -> { });
            lease.start();
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5)).until(() -> !lease.valid());
            // and a missing node neither
            SessionLease missing = new SessionLease("m", "/nothing", () -> raw, Duration.ofSeconds(3), () -> { });
            try {
                missing.start();
                await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5)).until(() -> !missing.valid());
            } finally {
                missing.close();
            }
        }
    }
}
