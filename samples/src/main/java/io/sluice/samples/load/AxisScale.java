package io.sluice.samples.load;

import java.util.Locale;

/**
 * A linear axis from 0 to a round maximum, in round steps (1, 2 or 5 times a power of ten), with
 * labels such as {@code 0}, {@code 500k}, {@code 1.5M} or {@code 0.25}.
 *
 * @param max  the axis' end, a multiple of {@code step}, at least the largest value drawn
 * @param step the distance between two ticks
 */
record AxisScale(double max, double step) {

    AxisScale {
        if (!(step > 0) || !(max >= step) || !Double.isFinite(max)) {
            throw new IllegalArgumentException("axis to " + max + " in steps of " + step
                    + ": both must be finite, the step positive and the end at least one step");
        }
    }

    /**
     * The axis for values from 0 to {@code largest}, with at most {@code ticks} steps.
     *
     * @param largest the largest value drawn; 0, negative or not a number give an axis from 0 to 1
     * @param ticks   most steps, at least 1
     */
    static AxisScale upTo(double largest, int ticks) {
        if (ticks < 1) {
            throw new IllegalArgumentException("ticks is " + ticks + "; it must be at least 1");
        }
        if (!(largest > 0) || !Double.isFinite(largest)) {
            return upTo(1, ticks);
        }
        double rough = largest / ticks;
        double magnitude = Math.pow(10, Math.floor(Math.log10(rough)));
        double fraction = rough / magnitude;
        double step = (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10) * magnitude;
        // The small tolerance keeps a value that is already round (2,000,000 with steps of 500,000) the end.
        double steps = Math.max(1, Math.ceil(largest / step - 1e-9));
        return new AxisScale(steps * step, step);
    }

    /** The ticks from 0 to {@link #max()}. */
    double[] ticks() {
        int count = (int) Math.round(max / step);
        double[] ticks = new double[count + 1];
        for (int i = 0; i <= count; i++) {
            ticks[i] = i * step;
        }
        return ticks;
    }

    /** Where {@code value} lies between 0 (the axis' start) and 1 (its end). */
    double fraction(double value) {
        return value / max;
    }

    /** A tick's label: k for thousands and M for millions when the axis reaches them, as many decimals as the step needs. */
    String label(double value) {
        if (value == 0) {
            return "0";
        }
        double unit = max >= 1e6 ? 1e6 : max >= 1e3 ? 1e3 : 1;
        String suffix = unit == 1e6 ? "M" : unit == 1e3 ? "k" : "";
        int decimals = (int) Math.max(0, Math.min(3, Math.ceil(-Math.log10(step / unit) - 1e-9)));
        return String.format(Locale.ROOT, "%." + decimals + "f", value / unit) + suffix;
    }
}
