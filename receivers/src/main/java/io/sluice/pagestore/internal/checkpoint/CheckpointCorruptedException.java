package io.sluice.pagestore.internal.checkpoint;

import io.sluice.SluiceException;

/**
 * A checkpoint file fails a check (a block's or a header's CRC32C, its magic, a length): recovery stops
 * rather than skip what is there. The message names the file and the byte position.
 */
public final class CheckpointCorruptedException extends SluiceException {
    public CheckpointCorruptedException(String message) {
        super(message);
    }

    public CheckpointCorruptedException(String message, Throwable cause) {
        super(message, cause);
    }
}
