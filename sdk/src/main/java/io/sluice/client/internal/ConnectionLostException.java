package io.sluice.client.internal;

import io.sluice.NodeUnreachableException;

/**
 * A request that may be sent again: the connection to its node could not be opened (refused while
 * the node restarts), or was lost before the request was written or answered. Thrown only inside the
 * client and retried there (see {@link Retriable}); when the retries run out the caller gets a plain
 * {@link NodeUnreachableException}.
 */
final class ConnectionLostException extends NodeUnreachableException {

    ConnectionLostException(String message) {
        super(message);
    }

    ConnectionLostException(String message, Throwable cause) {
        super(message, cause);
    }
}
