package io.sluice.protocol.internal;

import io.sluice.SluiceException;

/**
 * A member refused a record (or request) of a partition's primary because it knows a newer primary of the
 * partition: a higher epoch (error kind {@link ErrorKind#STALE_EPOCH}). Between members only.
 */
public final class StaleEpochException extends SluiceException {

    public StaleEpochException(String message) {
        super(message);
    }
}
