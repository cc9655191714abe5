package io.sluice.cluster.internal;

import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@Timeout(30)
class SessionWatchTest {

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final SessionWatch watch = new SessionWatch("n", Duration.ofMillis(600), timer,
            () -> events.add("lost"), () -> events.add("restored"));

    @AfterEach
    void stop() {
        timer.shutdownNow();
    }

    @Test
    void anExpiryIsALossAtOnceAndTheNewSessionRestoresNothing() {
        watch.stateChanged(KeeperState.Disconnected);
        watch.stateChanged(KeeperState.Expired);
        watch.stateChanged(KeeperState.SyncConnected);
        await().atMost(Duration.ofSeconds(5)).until(() -> events.equals(List.of("lost")));
        // the pending disconnect timer was cancelled by the expiry: still one loss after its time
        await().during(Duration.ofMillis(400)).atMost(Duration.ofSeconds(5))
                .until(() -> events.equals(List.of("lost")));
    }

    @Test
    void aShortDisconnectIsNoLoss() {
        watch.stateChanged(KeeperState.Disconnected);
        watch.stateChanged(KeeperState.SyncConnected);
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(events::isEmpty);
    }

    @Test
    void aLongDisconnectIsALossAndTheSameSessionBackRestoresThePartitions() {
        watch.stateChanged(KeeperState.Disconnected);
        await().atMost(Duration.ofSeconds(5)).until(() -> events.equals(List.of("lost")));
        watch.stateChanged(KeeperState.SyncConnected);
        await().atMost(Duration.ofSeconds(5)).until(() -> events.equals(List.of("lost", "restored")));
    }

    @Test
    void nothingIsReportedOnceClosed() {
        watch.close();
        watch.stateChanged(KeeperState.Expired);
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(events::isEmpty);
    }
}
