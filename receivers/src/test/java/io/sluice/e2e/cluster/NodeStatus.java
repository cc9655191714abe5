package io.sluice.e2e.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/** Reads what the tests check in a node's NODE_STATUS JSON. */
final class NodeStatus {

    private static final ObjectMapper JSON = new ObjectMapper();

    private NodeStatus() {
    }

    /**
     * The node's replication counts (issue 27): partitions it backs, of them in sync and catching up, and the
     * backups in sync over the partitions it leads (those FULL_SYNC waits for).
     */
    record Replication(int backed, int inSync, int catchingUp, long followersInSync) {
    }

    /** The status's {@code replication} object. @throws AssertionError if it has none */
    static Replication replication(String status) throws Exception {
        JsonNode r = JSON.readTree(status).path("replication");
        if (!r.isObject()) {
            throw new AssertionError("no replication in the status " + status);
        }
        return new Replication(r.path("backed").asInt(), r.path("inSync").asInt(), r.path("catchingUp").asInt(),
                r.path("followersInSync").asLong());
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
