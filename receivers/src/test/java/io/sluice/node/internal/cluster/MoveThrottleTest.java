package io.sluice.node.internal.cluster;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** Builds under {@link MoveThrottle}: at most K at once, takeovers first, a waiting one can be dropped. */
@Timeout(30)
class MoveThrottleTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MoveStats stats = new MoveStats(registry, () -> 0);
    /** The builds run on threads of their own (never the common pool). */
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @AfterEach
    void stop() {
        threads.shutdownNow();
        stats.close();
    }

    /** A build that runs until {@code release} counts down. */
    private Future<String> build(MoveThrottle throttle, int partition, boolean takeover, AtomicBoolean cancelled,
                                 CountDownLatch release, List<Integer> order) {
        return threads.submit(() -> throttle.build(partition, "peer", takeover, cancelled::get, () -> {
            order.add(partition);
            try {
                release.await(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return "built " + partition;
        }));
    }

    @Test
    void atMostKBuildsRunAtOnceAndTheOthersWaitVisibly() throws Exception {
        MoveThrottle throttle = new MoveThrottle(2, stats);
        CountDownLatch release = new CountDownLatch(1);
        List<Integer> order = new CopyOnWriteArrayList<>();
        AtomicBoolean no = new AtomicBoolean();
        Future<String> a = build(throttle, 1, false, no, release, order);
        Future<String> b = build(throttle, 2, false, no, release, order);
        await().atMost(Duration.ofSeconds(5)).until(() -> order.size() == 2);
        Future<String> c = build(throttle, 3, false, no, release, order);
        await().atMost(Duration.ofSeconds(5)).until(() -> stats.waiting() == 1);
        assertThat(throttle.running()).isEqualTo(2);
        assertThat(stats.movingIn()).containsExactlyInAnyOrder(1, 2);
        assertThat(registry.get(MoveStats.MOVE_PARTITIONS_IN_PROGRESS).tag(MoveStats.DIRECTION, "in").gauge().value())
                .isEqualTo(2);
        assertThat(registry.get(MoveStats.MOVE_PARTITIONS_WAITING).gauge().value()).isEqualTo(1);
        assertThat(order).doesNotContain(3);
        assertThat(stats.waitingPartitions()).containsExactly(3);

        release.countDown();
        assertThat(a.get(5, TimeUnit.SECONDS)).isEqualTo("built 1");
        assertThat(b.get(5, TimeUnit.SECONDS)).isEqualTo("built 2");
        assertThat(c.get(5, TimeUnit.SECONDS)).isEqualTo("built 3");
        assertThat(stats.waiting()).isZero();
        assertThat(stats.waitingPartitions()).isEmpty();
        assertThat(stats.movingIn()).isEmpty();
        assertThat(throttle.running()).isZero();
        assertThat(stats.etaSeconds()).isZero();
    }

    @Test
    void aWaitingTakeoverGoesBeforeAWaitingBackup() throws Exception {
        MoveThrottle throttle = new MoveThrottle(1, stats);
        CountDownLatch first = new CountDownLatch(1);
        CountDownLatch rest = new CountDownLatch(1);
        rest.countDown();
        List<Integer> order = new CopyOnWriteArrayList<>();
        AtomicBoolean no = new AtomicBoolean();
        Future<String> running = build(throttle, 1, false, no, first, order);
        await().atMost(Duration.ofSeconds(5)).until(() -> order.size() == 1);
        Future<String> backup = build(throttle, 2, false, no, rest, order);
        await().atMost(Duration.ofSeconds(5)).until(() -> stats.waiting() == 1);
        Future<String> takeover = build(throttle, 3, true, no, rest, order);
        await().atMost(Duration.ofSeconds(5)).until(() -> stats.waiting() == 2);

        first.countDown();
        running.get(5, TimeUnit.SECONDS);
        takeover.get(5, TimeUnit.SECONDS);
        backup.get(5, TimeUnit.SECONDS);
        assertThat(order).containsExactly(1, 3, 2);
    }

    @Test
    void aWaitingBuildThatIsNoLongerWantedOrIsInterruptedGivesUpWithoutRunning() throws Exception {
        MoveThrottle throttle = new MoveThrottle(1, stats);
        CountDownLatch release = new CountDownLatch(1);
        List<Integer> order = new CopyOnWriteArrayList<>();
        AtomicBoolean no = new AtomicBoolean();
        Future<String> running = build(throttle, 1, true, no, release, order);
        await().atMost(Duration.ofSeconds(5)).until(() -> order.size() == 1);

        AtomicBoolean stale = new AtomicBoolean();
        Future<String> dropped = build(throttle, 2, false, stale, release, order);
        await().atMost(Duration.ofSeconds(5)).until(() -> stats.waiting() == 1);
        stale.set(true); // a backup's catch-up made stale (a takeover of it, a restart)
        assertThatThrownBy(() -> dropped.get(5, TimeUnit.SECONDS)).hasCauseInstanceOf(PartitionPull.Cancelled.class);

        CompletableFuture<Thread> waiter = new CompletableFuture<>();
        Future<String> interrupted = threads.submit(() -> {
            waiter.complete(Thread.currentThread());
            return throttle.build(3, "peer", true, () -> false, () -> "built 3");
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> stats.waiting() == 1);
        waiter.get().interrupt(); // Helix stopping its transition threads
        assertThatThrownBy(() -> interrupted.get(5, TimeUnit.SECONDS))
                .hasCauseInstanceOf(PartitionPull.Cancelled.class);

        assertThat(stats.waiting()).isZero();
        release.countDown();
        running.get(5, TimeUnit.SECONDS);
        assertThat(order).containsExactly(1);
        assertThat(throttle.running()).isZero();
    }
}
