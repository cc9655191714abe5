package io.sluice.samples.load;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class AxisScaleTest {

    @Test
    void endsAtTheFirstRoundStepAtOrAboveTheLargestValue() {
        AxisScale rates = AxisScale.upTo(1_323_178, 6);
        assertThat(rates.step()).isEqualTo(500_000);
        assertThat(rates.max()).isEqualTo(1_500_000);
        assertThat(rates.ticks()).containsExactly(0, 500_000, 1_000_000, 1_500_000);

        AxisScale round = AxisScale.upTo(2_000_000, 4);
        assertThat(round.max()).isEqualTo(2_000_000);
        assertThat(round.step()).isEqualTo(500_000);

        AxisScale seconds = AxisScale.upTo(2.87, 10);
        assertThat(seconds.step()).isEqualTo(0.5);
        assertThat(seconds.max()).isEqualTo(3.0);
    }

    @Test
    void nothingToDrawGivesAnAxisToOne() {
        assertThat(AxisScale.upTo(0, 5).max()).isEqualTo(1);
        assertThat(AxisScale.upTo(Double.NaN, 5).max()).isEqualTo(1);
    }

    @Test
    void labelsUseThousandsOrMillionsAndTheDecimalsTheStepNeeds() {
        AxisScale millions = AxisScale.upTo(1_323_178, 6);
        assertThat(millions.label(0)).isEqualTo("0");
        assertThat(millions.label(500_000)).isEqualTo("0.5M");
        assertThat(millions.label(1_000_000)).isEqualTo("1.0M");
        AxisScale thousands = AxisScale.upTo(180_000, 4);
        assertThat(thousands.label(50_000)).isEqualTo("50k");
        AxisScale seconds = AxisScale.upTo(0.3, 6);
        assertThat(seconds.label(0.05)).isEqualTo("0.05");
        assertThat(seconds.fraction(0.15)).isCloseTo(0.5, org.assertj.core.api.Assertions.within(1e-9));
    }
}
