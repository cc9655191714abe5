package io.sluice.streamer.internal;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Durations of the options, as waits take them and as messages show them. */
final class Durations {

    private Durations() {
    }

    /** A duration in nanoseconds; durations too long for a long become a century. */
    static long toNanos(Duration d) {
        try {
            return d.toNanos();
        } catch (ArithmeticException tooLong) {
            return TimeUnit.DAYS.toNanos(365 * 100);
        }
    }

    /** A duration as people write it in a message: "250 ms", "5 s", else ISO-8601. */
    static String describe(Duration d) {
        if (d.getSeconds() < 3600) {
            long nanos = d.toNanos();
            if (nanos < 1_000_000_000 && nanos % 1_000_000 == 0) {
                return d.toMillis() + " ms";
            }
            if (nanos % 1_000_000_000 == 0) {
                return d.getSeconds() + " s";
            }
        }
        return d.toString();
    }
}
