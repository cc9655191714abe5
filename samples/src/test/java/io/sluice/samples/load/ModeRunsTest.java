package io.sluice.samples.load;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ModeRunsTest {

    private static ModeResult run(double seconds, double cpuSeconds, String problem) {
        return new ModeResult("put", "binary", 1000, seconds, 100_000, 1000, problem == null ? 1000 : 999, 1000, 0,
                problem).withProgress(ProgressTimeline.NONE, cpuSeconds);
    }

    @Test
    void theMedianOfAnOddCountIsTheMiddleValueAndOfAnEvenCountTheMeanOfTheTwoMiddleOnes() {
        assertThat(Spread.of(5, 1, 3)).isEqualTo(new Spread(3, 1, 5, 3));
        assertThat(Spread.of(4, 1, 10, 2)).isEqualTo(new Spread(3, 1, 10, 4));
        assertThat(Spread.of(7)).isEqualTo(new Spread(7, 7, 7, 1));
        assertThat(Spread.of()).isEqualTo(new Spread(0, 0, 0, 0));
        assertThat(Spread.of(90, 110, 100).relativeRange()).isEqualTo(0.2);
    }

    @Test
    void ratesAreOverTheVerifiedRunsAndCpuRatesOverThoseThatMeasuredCpu() {
        ModeRuns runs = new ModeRuns(List.of(run(1, 2, null), run(0.5, 0, null), run(0.25, 0.5, null)));
        assertThat(runs.entriesPerSecond()).isEqualTo(new Spread(2000, 1000, 4000, 3));
        assertThat(runs.entriesPerCpuSecond()).isEqualTo(new Spread(1250, 500, 2000, 2));
        assertThat(runs.seconds().median()).isEqualTo(0.5);
        assertThat(runs.verified()).isTrue();
        // The median-time run stands for the mode.
        assertThat(runs.shown().seconds()).isEqualTo(0.5);
        assertThat(runs.label()).isEqualTo("put/binary");
    }

    @Test
    void aRunThatDidNotVerifyStandsForItsModeAndItsRateIsNoFigure() {
        ModeRuns runs = new ModeRuns(List.of(run(1, 1, null), run(3, 1, "LOST 1 entries"), run(2, 1, null)));
        assertThat(runs.verified()).isFalse();
        assertThat(runs.shown().problem()).isEqualTo("LOST 1 entries");
        assertThat(runs.entriesPerSecond().count()).isEqualTo(2);
    }

    @Test
    void aModeHasAtLeastOneRun() {
        assertThatThrownBy(() -> new ModeRuns(List.of())).isInstanceOf(IllegalArgumentException.class);
    }
}
