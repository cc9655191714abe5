package io.sluice;

/**
 * Thrown by {@link DataStreamer#flush()} and {@link DataStreamer#close()} when batches failed:
 * says how many entries failed, with the first failure as the cause.
 */
public class StreamerException extends SluiceException {

    private final long failedEntries;

    public StreamerException(String message, long failedEntries, Throwable cause) {
        super(message, cause);
        this.failedEntries = failedEntries;
    }

    /** Entries whose batches failed. */
    public long failedEntries() {
        return failedEntries;
    }
}
