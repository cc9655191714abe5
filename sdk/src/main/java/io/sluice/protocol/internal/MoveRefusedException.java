package io.sluice.protocol.internal;

import io.sluice.SluiceException;

/**
 * A member cannot send a partition as its file now (error kind {@link ErrorKind#MOVE_REFUSED}): it is not a cluster
 * member, it is not a copy in sync of the partition when the asker needs one, or the partition's image could not be
 * written (too large, its disk full). Between members only: the asker builds the partition another way.
 */
public final class MoveRefusedException extends SluiceException {

    public MoveRefusedException(String message) {
        super(message);
    }
}
