package io.sluice.protocol.internal;

import io.sluice.SluiceException;

/**
 * A member is not following the sender for a partition (error kind {@link ErrorKind#NOT_FOLLOWING}): it does not
 * back the partition, leads it, or has not asked the sender for its records. Between members only.
 */
public final class NotFollowingException extends SluiceException {

    public NotFollowingException(String message) {
        super(message);
    }
}
