package io.sluice;

/**
 * A remote node could not be reached, or the connection to it was lost before it answered: the
 * operation's outcome on the node is unknown (a batch may or may not have been applied; streamed
 * batches are at-least-once, see {@code docs/protocol.md}). Names the node and its address.
 */
public class NodeUnreachableException extends SluiceException {

    public NodeUnreachableException(String message) {
        super(message);
    }

    public NodeUnreachableException(String message, Throwable cause) {
        super(message, cause);
    }
}
