package io.sluice.samples.load;

import java.util.Arrays;

/**
 * The median and the range of one figure over a mode's runs.
 *
 * @param median the middle value; of an even count, the mean of the two middle values
 * @param min    the smallest value
 * @param max    the largest value
 * @param count  how many values the median is of; 0 for no values (then every figure is 0)
 */
record Spread(double median, double min, double max, int count) {

    /** The spread of {@code values}, in any order. */
    static Spread of(double... values) {
        if (values.length == 0) {
            return new Spread(0, 0, 0, 0);
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        double median = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        return new Spread(median, sorted[0], sorted[n - 1], n);
    }

    /** The range relative to the median, e.g. 0.08 when min and max lie 8% of the median apart; 0 if the median is 0. */
    double relativeRange() {
        return median == 0 ? 0 : (max - min) / median;
    }
}
