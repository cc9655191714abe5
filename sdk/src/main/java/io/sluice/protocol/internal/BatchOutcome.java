package io.sluice.protocol.internal;

/**
 * What became of one partition batch on the node.
 *
 * @param applied entries applied (for the isolated receiver: inserted or found already present)
 * @param failed  entries not applied
 * @param error   why entries failed, or {@code null} when none did
 */
public record BatchOutcome(int applied, int failed, Throwable error) {

    public static BatchOutcome success(int applied) {
        return new BatchOutcome(applied, 0, null);
    }

    public static BatchOutcome failure(int applied, int failed, Throwable error) {
        return new BatchOutcome(applied, failed, error);
    }

    public boolean succeeded() {
        return error == null;
    }
}
