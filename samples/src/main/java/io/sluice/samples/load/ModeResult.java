package io.sluice.samples.load;

/**
 * What one mode measured and what verification found.
 *
 * @param mode         the mode's name
 * @param values       how values were made: {@code pojo}, {@code binary}, or {@code fields} (raw)
 * @param entries      entries written
 * @param seconds      wall time of the load, values made and streamer flushed included
 * @param encodedBytes bytes of keys (8 each) and encoded values written
 * @param expectedSize entries the store must hold: the distinct keys
 * @param actualSize   entries the store holds, or -1 if it could not be read
 * @param sampled      values read back and compared field by field
 * @param mismatched   sampled values missing or different
 * @param problem      {@code null} if verified, else what went wrong
 * @param progress     entries written over the load's time, sampled for {@code --plot};
 *                     {@link ProgressTimeline#NONE} when not recorded or when the load failed
 * @param cpuSeconds   CPU time of the whole process (every thread: producers, node, JIT, GC) during
 *                     the load; 0 if not measured
 */
public record ModeResult(String mode, String values, long entries, double seconds, long encodedBytes,
                         long expectedSize, long actualSize, int sampled, int mismatched, String problem,
                         ProgressTimeline progress, double cpuSeconds) {

    /** A result with no CPU time. */
    public ModeResult(String mode, String values, long entries, double seconds, long encodedBytes,
                      long expectedSize, long actualSize, int sampled, int mismatched, String problem,
                      ProgressTimeline progress) {
        this(mode, values, entries, seconds, encodedBytes, expectedSize, actualSize, sampled, mismatched, problem,
                progress, 0);
    }

    /** A result with no progress samples. */
    public ModeResult(String mode, String values, long entries, double seconds, long encodedBytes,
                      long expectedSize, long actualSize, int sampled, int mismatched, String problem) {
        this(mode, values, entries, seconds, encodedBytes, expectedSize, actualSize, sampled, mismatched, problem,
                ProgressTimeline.NONE);
    }

    /** The same result, with its mode's name replaced (e.g. marked remote). */
    ModeResult withMode(String name) {
        return new ModeResult(name, values, entries, seconds, encodedBytes, expectedSize, actualSize, sampled,
                mismatched, problem, progress, cpuSeconds);
    }

    /** The same result with the load's progress samples and the process's CPU time during it. */
    ModeResult withProgress(ProgressTimeline samples, double cpu) {
        return new ModeResult(mode, values, entries, seconds, encodedBytes, expectedSize, actualSize, sampled,
                mismatched, problem, samples, cpu);
    }

    /** Whether the load failed nothing and verification found nothing wrong. */
    public boolean verified() {
        return problem == null;
    }

    /** Entries per second; 0 if no time passed. */
    public double entriesPerSecond() {
        return seconds > 0 ? entries / seconds : 0;
    }

    /** Entries per CPU-second of the whole process; 0 if not measured. */
    public double entriesPerCpuSecond() {
        return cpuSeconds > 0 ? entries / cpuSeconds : 0;
    }

    /** Encoded megabytes (10^6 bytes) per second. */
    public double megabytesPerSecond() {
        return seconds > 0 ? encodedBytes / seconds / 1e6 : 0;
    }

    /** A result for a mode that threw before it could be verified. */
    static ModeResult failed(String mode, String values, long entries, double seconds, long expectedSize,
                             Throwable cause) {
        return new ModeResult(mode, values, entries, seconds, 0, expectedSize, -1, 0, 0,
                "failed: " + describe(cause));
    }

    static String describe(Throwable cause) {
        Throwable root = cause;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage() == null ? "" : ": " + root.getMessage();
        return root.getClass().getSimpleName() + message;
    }
}
