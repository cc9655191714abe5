package io.sluice.samples.load;

/**
 * One row of the result table, as printed and as written to {@code --csv} and {@code --json}.
 *
 * @param mode             the mode
 * @param values           pojo, binary, or fields (raw)
 * @param entries          entries written
 * @param seconds          wall time of the load
 * @param entriesPerSecond entries / seconds
 * @param vsFastest        entries/s relative to the fastest mode of the run (1.0 for the fastest)
 * @param vsRaw            entries/s relative to the raw baseline, or {@code null} if it did not run
 * @param megabytesPerSecond encoded megabytes (key + value) per second
 * @param entriesPerCpuSecond entries per CPU-second of the whole process (0 if not measured)
 * @param verified         whether the store holds what was loaded
 * @param expectedSize     distinct keys loaded
 * @param actualSize       entries the store holds (-1 if unknown)
 * @param sampled          values read back and compared
 * @param mismatched       sampled values missing or different
 * @param problem          what went wrong, or {@code null}
 * @param runs             timed runs the figures are the medians of (1 without {@code --repeat})
 * @param entriesPerSecondMin    the slowest run's entries/s (the figure itself for one run or a row that did not verify)
 * @param entriesPerSecondMax    the fastest run's entries/s
 * @param entriesPerCpuSecondMin the smallest entries per CPU-second over the runs (0 if not measured)
 * @param entriesPerCpuSecondMax the largest entries per CPU-second over the runs (0 if not measured)
 */
public record ResultRow(String mode, String values, long entries, double seconds, double entriesPerSecond,
                        double vsFastest, Double vsRaw, double megabytesPerSecond,
                        double entriesPerCpuSecond, boolean verified,
                        long expectedSize, long actualSize, int sampled, int mismatched, String problem,
                        int runs, double entriesPerSecondMin, double entriesPerSecondMax,
                        double entriesPerCpuSecondMin, double entriesPerCpuSecondMax) {
}
