package io.sluice;

/**
 * Live counters of one streamer. Every entry added ends as applied or failed: once the streamer
 * has been flushed, {@code added() == applied() + failed()} (entries cancelled by
 * {@code close(true)} count as failed).
 */
public interface StreamerMetrics {

    /** Entries (puts and removals) accepted by {@code addData}/{@code removeData}. */
    long added();

    /** Entries whose batch was applied on the node. */
    long applied();

    /** Entries whose batch failed or was cancelled. */
    long failed();

    /** Batches sent to nodes. */
    long batchesSent();

    /** Bytes buffered now (encoded entries not yet acknowledged by the node). */
    long bufferedBytes();
}
