package io.sluice.pagestore.internal.checkpoint;

/**
 * A checkpoint was not taken because moving the mark now would lose something (the message says what); the
 * previous checkpoint and the log since it stay, and a later checkpoint tries again.
 */
public final class CheckpointDeferredException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    public CheckpointDeferredException(String message) {
        super(message);
    }
}
