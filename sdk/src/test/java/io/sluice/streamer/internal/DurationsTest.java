package io.sluice.streamer.internal;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class DurationsTest {

    @Test
    void messagesShowMillisecondsSecondsOrIso() {
        assertThat(Durations.describe(Duration.ofMillis(250))).isEqualTo("250 ms");
        assertThat(Durations.describe(Duration.ZERO)).isEqualTo("0 ms");
        assertThat(Durations.describe(Duration.ofSeconds(5))).isEqualTo("5 s");
        assertThat(Durations.describe(Duration.ofMinutes(5))).isEqualTo("300 s");
        assertThat(Durations.describe(Duration.ofHours(2))).isEqualTo("PT2H");
        assertThat(Durations.describe(Duration.ofSeconds(Long.MAX_VALUE)))
                .isEqualTo(Duration.ofSeconds(Long.MAX_VALUE).toString());
    }

    @Test
    void waitsLongerThanALongCanHoldBecomeACentury() {
        assertThat(Durations.toNanos(Duration.ofMillis(3))).isEqualTo(3_000_000);
        assertThat(Durations.toNanos(Duration.ofSeconds(Long.MAX_VALUE))).isEqualTo(Duration.ofDays(36_500).toNanos());
    }
}
