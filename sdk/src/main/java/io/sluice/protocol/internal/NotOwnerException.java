package io.sluice.protocol.internal;

import io.sluice.SluiceException;

/**
 * A cluster member was asked for a partition it does not serve now (error kind {@link ErrorKind#NOT_OWNER}). Not
 * a failure of the request's entries: a client refreshes its partition map and sends them to the owner, and gives
 * up only when no node serves the partition within its request timeout.
 */
public final class NotOwnerException extends SluiceException {

    public NotOwnerException(String message) {
        super(message);
    }
}
