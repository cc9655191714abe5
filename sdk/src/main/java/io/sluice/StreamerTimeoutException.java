package io.sluice;

/**
 * Thrown when a streamer waited longer than allowed: {@code addData} for buffer memory longer
 * than {@link StreamerOptions#maxBlock()}, or {@code flush}/{@code close} for batches longer than
 * {@link StreamerOptions#timeout()}.
 */
public class StreamerTimeoutException extends SluiceException {

    public StreamerTimeoutException(String message) {
        super(message);
    }
}
