package io.sluice.node.internal.cluster;

import io.sluice.protocol.internal.ClusterMap;
import io.sluice.protocol.internal.NotOwnerException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

@Timeout(30)
class ServedPartitionsTest {

    private static final ClusterMap MAP = new ClusterMap(7, List.of(new ClusterMap.Member("a", "127.0.0.1", 1),
            new ClusterMap.Member("b", "127.0.0.1", 2)), new int[]{0, 1, ClusterMap.NO_OWNER, 0});

    private final ServedPartitions served = new ServedPartitions("a", 4, () -> MAP, Duration.ofSeconds(10));

    @Test
    void aWriteIsRefusedUnlessThePartitionIsServedNamingPartitionNodeVersionAndOwner() {
        assertThatThrownBy(() -> served.enter(1)).isInstanceOf(NotOwnerException.class)
                .hasMessage("partition 1 is not served by node 'a' (map version 7; its owner in the map: 'b' at"
                        + " 127.0.0.1:2)");
        assertThatThrownBy(() -> served.checkServes(2)).isInstanceOf(NotOwnerException.class)
                .hasMessageContaining("partition 2").hasMessageContaining("none (moving or its node is away)");
        assertThat(served.inFlight(1)).isZero();
        served.serve(1);
        served.enter(1);
        assertThat(served.inFlight(1)).isEqualTo(1);
        served.exit(1);
        assertThat(served.inFlight(1)).isZero();
        assertThat(served.serves(1)).isTrue();
        assertThat(served.servedCount()).isEqualTo(1);
    }

    @Test
    void stoppingWaitsForTheWritesInFlightAndRefusesNewOnes() {
        served.serve(0);
        served.enter(0);
        served.enter(0);
        CompletableFuture<Boolean> stop = CompletableFuture.supplyAsync(() -> served.stopServing(0));
        await().atMost(Duration.ofSeconds(5)).until(() -> !served.serves(0));
        assertThatThrownBy(() -> served.enter(0)).isInstanceOf(NotOwnerException.class);
        served.exit(0);
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> !stop.isDone());
        served.exit(0);
        await().atMost(Duration.ofSeconds(5)).until(stop::isDone);
        assertThat(stop.join()).isTrue();
    }

    @Test
    void stoppingGivesUpAtItsBoundWhenAWriteNeverExits() {
        ServedPartitions bounded = new ServedPartitions("a", 4, () -> MAP, Duration.ofMillis(200));
        bounded.serve(3);
        bounded.enter(3);
        long start = System.nanoTime();
        assertThat(bounded.stopServing(3)).isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(200))
                .isLessThan(Duration.ofSeconds(5));
        assertThat(bounded.serves(3)).isFalse();
    }

    @Test
    void losingTheSessionStopsServingEverythingAtOnce() {
        for (int p = 0; p < 4; p++) {
            served.serve(p);
        }
        served.enter(2); // in flight: not waited for
        served.stopAll();
        assertThat(served.servedCount()).isZero();
        assertThatThrownBy(() -> served.enter(0)).isInstanceOf(NotOwnerException.class);
    }

    @Test
    void aPartitionOutOfTheClustersRangeIsAnIllegalArgument() {
        assertThatThrownBy(() -> served.enter(4)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("partition 4 is out of range: the cluster has 4 partitions");
        assertThat(served.serves(-1)).isFalse();
    }
}
