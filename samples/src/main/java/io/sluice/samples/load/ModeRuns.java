package io.sluice.samples.load;

import java.util.Comparator;
import java.util.List;

/**
 * Every timed run of one mode (with one kind of value), in the order they ran; the table shows
 * their medians and ranges, the plot every run.
 *
 * @param runs at least one run
 */
record ModeRuns(List<ModeResult> runs) {

    ModeRuns {
        if (runs.isEmpty()) {
            throw new IllegalArgumentException("a mode has at least one run");
        }
        runs = List.copyOf(runs);
    }

    /** One run. */
    static ModeRuns of(ModeResult run) {
        return new ModeRuns(List.of(run));
    }

    /** The mode's name, as in its first run. */
    String mode() {
        return runs.get(0).mode();
    }

    /** How the values were made, as in the first run. */
    String values() {
        return runs.get(0).values();
    }

    /** {@code mode/values}, as the progress lines and the charts name a mode. */
    String label() {
        return mode() + '/' + values();
    }

    /** Whether every run loaded and verified. */
    boolean verified() {
        return runs.stream().allMatch(ModeResult::verified);
    }

    /**
     * The run that stands for the mode: the first that did not verify, if any (a failure is never
     * hidden by a median), else the run with the median time (of an even count, the slower of the
     * two middle ones).
     */
    ModeResult shown() {
        for (ModeResult run : runs) {
            if (!run.verified()) {
                return run;
            }
        }
        return runs.stream().sorted(Comparator.comparingDouble(ModeResult::seconds)).toList().get(runs.size() / 2);
    }

    /** The runs that finished (their times are figures): those whose store could be read. */
    List<ModeResult> finished() {
        return runs.stream().filter(r -> r.actualSize() >= 0).toList();
    }

    /** Entries/s over the verified runs. */
    Spread entriesPerSecond() {
        return Spread.of(runs.stream().filter(ModeResult::verified).mapToDouble(ModeResult::entriesPerSecond).toArray());
    }

    /** Entries per CPU-second over the verified runs that measured CPU time. */
    Spread entriesPerCpuSecond() {
        return Spread.of(runs.stream().filter(r -> r.verified() && r.cpuSeconds() > 0)
                .mapToDouble(ModeResult::entriesPerCpuSecond).toArray());
    }

    /** Seconds over the verified runs. */
    Spread seconds() {
        return Spread.of(runs.stream().filter(ModeResult::verified).mapToDouble(ModeResult::seconds).toArray());
    }

    /** Encoded megabytes per second over the verified runs. */
    Spread megabytesPerSecond() {
        return Spread.of(runs.stream().filter(ModeResult::verified).mapToDouble(ModeResult::megabytesPerSecond).toArray());
    }
}
