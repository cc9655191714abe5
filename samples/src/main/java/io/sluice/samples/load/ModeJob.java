package io.sluice.samples.load;

import java.util.ArrayList;
import java.util.List;

/**
 * One row of the table before it runs: a mode and the kind of values it loads ({@code null} for
 * the raw baseline, which writes the fields itself).
 */
record ModeJob(LoadMode mode, ValueKind kind) {

    /** The run's jobs in the order the modes were named, each node mode once per value kind. */
    static List<ModeJob> of(LoadSettings settings) {
        List<ModeJob> jobs = new ArrayList<>();
        for (LoadMode mode : settings.modes()) {
            if (mode == LoadMode.RAW) {
                jobs.add(new ModeJob(mode, null));
            } else {
                for (ValueKind kind : settings.values()) {
                    jobs.add(new ModeJob(mode, kind));
                }
            }
        }
        return jobs;
    }

    /** {@code mode/values}, as the progress lines and the charts name it. */
    String label() {
        return mode.cliName() + '/' + (kind == null ? LoadRun.RAW_VALUES : kind.cliName());
    }

    /**
     * The order of the forked runs: every job once, then every job again, {@code repeat} times
     * (A B C A B C ...), so that a slow stretch of a shared machine falls on every mode alike
     * instead of on all runs of one.
     *
     * @return pairs of (job index, run number from 0)
     */
    static List<int[]> interleaved(int jobs, int repeat) {
        List<int[]> order = new ArrayList<>(jobs * repeat);
        for (int run = 0; run < repeat; run++) {
            for (int job = 0; job < jobs; job++) {
                order.add(new int[]{job, run});
            }
        }
        return order;
    }
}
