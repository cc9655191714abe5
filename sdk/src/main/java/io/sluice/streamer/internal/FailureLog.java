package io.sluice.streamer.internal;

/**
 * Failed entries since the last report: how many, in how many batches, and the first cause.
 * {@code flush()} and {@code close()} take the report and throw it. One lock, taken once per
 * failed batch, never on the success path.
 */
final class FailureLog {

    private long entries;
    private long batches;
    private Throwable firstCause;

    synchronized void record(long failedEntries, Throwable cause) {
        entries += failedEntries;
        batches++;
        if (firstCause == null) {
            firstCause = cause;
        }
    }

    /** The failures since the previous report, or null if there were none; starts a new report. */
    synchronized Report take() {
        if (batches == 0) {
            return null;
        }
        Report report = new Report(entries, batches, firstCause);
        entries = 0;
        batches = 0;
        firstCause = null;
        return report;
    }

    record Report(long entries, long batches, Throwable firstCause) {
    }
}
