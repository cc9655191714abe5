package io.sluice.e2e.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** Reads what the tests check in a node's NODE_STATUS JSON. */
final class NodeStatus {

    private static final ObjectMapper JSON = new ObjectMapper();

    private NodeStatus() {
    }

    /** The partitions this node took over from another node since it started ({@code moves.done}). */
    static long movesCompleted(String status) throws Exception {
        JsonNode done = JSON.readTree(status).path("moves").path("done");
        if (!done.isNumber()) {
            throw new AssertionError("no moves.done in the status " + status);
        }
        return done.asLong();
    }
}
