package io.sluice.node.internal;

/**
 * Whether a node is open, closing or closed, and the guards its caches and operations check: closing refuses new
 * caches and streamers; closed (the region is freed) refuses every cache operation. Thread-safe (volatile flags;
 * {@link #beginClosing} is called under the catalogue's lock so it orders against cache creation).
 */
final class NodeState {

    private final String nodeId;
    /** No new caches or streamers; streamers are being closed. */
    private volatile boolean closing;
    /** The region is freed: no cache operation may run. */
    private volatile boolean closed;

    NodeState(String nodeId) {
        this.nodeId = nodeId;
    }

    /** The node's id, as errors name it. */
    String nodeId() {
        return nodeId;
    }

    /** @throws IllegalStateException if the node is closed */
    void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("node '" + nodeId + "' is closed");
        }
    }

    /** @throws IllegalStateException if the node is closing or closed */
    void ensureNotClosing() {
        if (closing) {
            throw new IllegalStateException("node '" + nodeId + "' is closed");
        }
    }

    /** Marks the node closing. @return false if it was already */
    boolean beginClosing() {
        if (closing) {
            return false;
        }
        closing = true;
        return true;
    }

    /** Marks the node closed: its region is about to be freed. */
    void markClosed() {
        closed = true;
    }
}
