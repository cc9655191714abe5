package io.sluice.pagestore.internal;

import io.sluice.DataRegionFullException;
import io.sluice.SluiceException;

/**
 * A batch failed part way (for instance with {@link DataRegionFullException} as its cause). The
 * partition is consistent: {@link #applied()} entries took effect, {@link #notApplied()} did not.
 */
public class BatchApplyException extends SluiceException {

    private final int applied;
    private final int notApplied;

    public BatchApplyException(int applied, int notApplied, Throwable cause) {
        super("batch failed after " + applied + " of " + (applied + notApplied) + " entries were applied; "
                + notApplied + " were not: " + cause.getMessage(), cause);
        this.applied = applied;
        this.notApplied = notApplied;
    }

    public int applied() {
        return applied;
    }

    public int notApplied() {
        return notApplied;
    }
}
