package io.sluice.samples.load;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class ProgressTimelineTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void rateOfEachSampleIsOverTheIntervalEndingThere() {
        ProgressTimeline timeline = new ProgressTimeline(SECOND);
        timeline.sample(SECOND, 100);
        timeline.sample(2 * SECOND, 300);
        timeline.sample(3 * SECOND, 300);
        timeline.last(4 * SECOND, 700);
        assertThat(timeline.size()).isEqualTo(4);
        assertThat(timeline.seconds(1)).isEqualTo(2.0);
        assertThat(timeline.entries(3)).isEqualTo(700);
        assertThat(timeline.entriesPerSecond(0)).isEqualTo(100);
        assertThat(timeline.entriesPerSecond(1)).isEqualTo(200);
        // A stall: nothing written over the interval.
        assertThat(timeline.entriesPerSecond(2)).isZero();
        assertThat(timeline.entriesPerSecond(3)).isEqualTo(400);
    }

    @Test
    void aLastSampleJustAfterTheNewestReplacesItRatherThanDrawASpike() {
        ProgressTimeline timeline = new ProgressTimeline(SECOND);
        timeline.sample(SECOND, 1000);
        timeline.sample(2 * SECOND, 2000);
        // 1 ms later the final 24 entries are counted: alone they would be a rate of 24,000/s.
        timeline.last(2 * SECOND + SECOND / 1000, 2024);
        assertThat(timeline.size()).isEqualTo(2);
        assertThat(timeline.entries(1)).isEqualTo(2024);
        assertThat(timeline.entriesPerSecond(1)).isCloseTo(1023.0, within(1.0));

        ProgressTimeline later = new ProgressTimeline(SECOND);
        later.sample(SECOND, 1000);
        later.last(SECOND + SECOND * 6 / 10, 1600);
        assertThat(later.size()).isEqualTo(2);
    }

    @Test
    void aLongLoadKeepsAtMostTheCapacityEvenlySpreadAndItsLastSample() {
        ProgressTimeline timeline = new ProgressTimeline(ProgressTimeline.MAX_SAMPLES, SECOND);
        int offered = 100_000;
        for (int i = 1; i <= offered; i++) {
            timeline.sample(i * SECOND, i * 10L);
        }
        timeline.last(offered * SECOND + SECOND, offered * 10L + 10);
        assertThat(timeline.size()).isLessThanOrEqualTo(ProgressTimeline.MAX_SAMPLES)
                .isGreaterThan(ProgressTimeline.MAX_SAMPLES / 2);
        assertThat(timeline.entries(timeline.size() - 1)).isEqualTo(offered * 10L + 10);
        // Evenly spread: every kept interval but the last spans the same time, and the rate stays true.
        double first = timeline.seconds(1) - timeline.seconds(0);
        for (int i = 1; i < timeline.size() - 1; i++) {
            assertThat(timeline.seconds(i) - timeline.seconds(i - 1)).as("interval %d", i).isEqualTo(first);
            assertThat(timeline.entriesPerSecond(i)).isEqualTo(10.0);
        }
        assertThat(timeline.seconds(timeline.size() - 1)).isEqualTo(offered + 1.0);
    }

    @Test
    void noneRecordsNothing() {
        ProgressTimeline.NONE.sample(SECOND, 1);
        ProgressTimeline.NONE.last(2 * SECOND, 2);
        assertThat(ProgressTimeline.NONE.size()).isZero();
        assertThat(ProgressTimeline.NONE.recording()).isFalse();
    }
}
