package io.sluice.node.internal.cluster;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** What {@link MoveStats} shows of moves in progress: partitions in and out, bytes, the meters, the time left. */
class MoveStatsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MoveStats stats = new MoveStats(registry, () -> 0);

    @AfterEach
    void close() {
        stats.close();
        assertThat(registry.getMeters()).as("meters left after close").isEmpty();
    }

    private double counter(String name) {
        return registry.get(name).functionCounter().count();
    }

    private double gauge(String name, String direction) {
        return direction == null ? registry.get(name).gauge().value()
                : registry.get(name).tag(MoveStats.DIRECTION, direction).gauge().value();
    }

    @Test
    void transfersAndBuildsAreMovingPartitionsAndTheirBytesAreCounted() {
        assertThat(stats.etaSeconds()).as("nothing moving").isZero();
        stats.buildStarted(4, "b", true); // built from the file coming in
        MoveStats.Transfer in = stats.transferStarted(4, "b", true, 1000);
        MoveStats.Transfer out = stats.transferStarted(9, "c", false, 4000);
        stats.buildStarted(5, "b", false); // an entry pull
        in.progressed(400);
        out.progressed(1000);

        assertThat(stats.movingIn()).containsExactly(4, 5);
        assertThat(stats.movingOut()).containsExactly(9);
        assertThat(gauge(MoveStats.MOVE_PARTITIONS_IN_PROGRESS, "in")).isEqualTo(2);
        assertThat(gauge(MoveStats.MOVE_PARTITIONS_IN_PROGRESS, "out")).isEqualTo(1);
        assertThat(counter(MoveStats.MOVE_BYTES_RECEIVED)).isEqualTo(400);
        assertThat(counter(MoveStats.MOVE_BYTES_SENT)).isEqualTo(1000);
        assertThat(stats.transfers()).extracting(MoveStats.TransferView::doneBytes).containsExactlyInAnyOrder(400L,
                1000L);

        in.ended(true);
        stats.buildEnded(4, true, 1000); // built from the file: its bytes were counted as they came
        stats.buildEnded(5, true, 2500); // the entry pull's bytes count as received once it ends
        out.ended(false);
        assertThat(stats.movingIn()).isEmpty();
        assertThat(stats.movingOut()).isEmpty();
        assertThat(stats.bytesReceived()).isEqualTo(2900);
        assertThat(stats.bytesSent()).isEqualTo(1000);
        assertThat(stats.etaSeconds()).isZero();
    }

    @Test
    void theTimeLeftIsUnknownUntilThereIsARateThenBytesLeftOverIt() {
        MoveStats.Transfer t = stats.transferStarted(1, "b", true, 10_000_000);
        assertThat(stats.etaSeconds()).as("no rate yet").isNaN();
        assertThat(gauge(MoveStats.MOVE_ETA_SECONDS, null)).isNaN();
        t.progressed(1_000_000);
        // Samples at least RecentRate.SAMPLE_NANOS apart give a rate: 9 MB left at it.
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(300)).until(() -> {
            t.progressed(100_000);
            double eta = stats.etaSeconds();
            return !Double.isNaN(eta) && eta > 0;
        });
        double rate = stats.bytesPerSecond();
        assertThat(rate).isPositive();
        long left = 10_000_000 - stats.transfers().get(0).doneBytes();
        assertThat(stats.etaSeconds()).isCloseTo(left / stats.bytesPerSecond(),
                org.assertj.core.data.Percentage.withPercentage(50));
        t.ended(true);
    }
}
