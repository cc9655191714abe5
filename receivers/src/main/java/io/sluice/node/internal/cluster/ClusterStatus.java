package io.sluice.node.internal.cluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.protocol.internal.ClusterMap;

/**
 * The node's cluster status as JSON (NODE_STATUS's answer, the status command):
 * <pre>{@code
 * {"nodeId": "a", "joined": true, "mapVersion": 12, "partitions": 1024,
 *  "members": [{"id": "a", "host": "127.0.0.1", "port": 10800, "partitions": 341}, ...],
 *  "partitionsServed": 341, "entriesServed": 1000000,
 *  "entriesApplied": 5000000,
 *  "moves": {"inProgress": 0, "done": 12, "entries": 40000, "bytes": 4400000, "lastMillis": 35,
 *            "droppedPartitions": 3, "droppedEntries": 9000,
 *            "movingIn": [{"partition": 7, "from": "b", "takeover": true, "millis": 1200}], "movingOut": [9],
 *            "waiting": 40, "waitingPartitions": [3, 8, ...], "transfers": [{"partition": 9, "peer": "c", "direction": "out", "totalBytes": 8388608,
 *            "doneBytes": 1048576}], "bytesSent": 1048576, "bytesReceived": 4400000, "bytesPerSecond": 2097152.0,
 *            "etaSeconds": 12.5},
 *  "replication": {"backed": 341, "inSync": 340, "catchingUp": 1, "followersInSync": 341, "streamResets": 0}}
 * }</pre>
 * {@code replication} (issue 27): the partitions this node backs, of them those in sync with their primary and
 * those catching up; over the partitions it leads, the backups in sync it counts for FULL_SYNC; its streams' resets.
 * {@code members[].partitions} counts the partitions the map gives each member. {@code entriesApplied}: the node's
 * {@code sluice.node.entries.applied} (entries of client batches applied here; its growth over time is the node's
 * load, as the status page draws it). {@code moves} (issue 28): {@code movingIn} the partitions being built here
 * now (a takeover, else a backup catching up; by files or entries), {@code movingOut} those whose files are sent
 * from here, {@code waiting} the builds waiting for a permit
 * and {@code waitingPartitions} their partitions, {@code transfers} the partition files on their way,
 * {@code bytesSent}/{@code bytesReceived} since the node started, {@code bytesPerSecond} lately, {@code etaSeconds}
 * the estimated time left ({@link MoveStats#etaSeconds}; null when not known yet).
 */
final class ClusterStatus {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ClusterStatus() {
    }

    static String json(String nodeId, boolean joined, ClusterMap map, ServedPartitions served, LocalPartitions local,
                       MoveStats moves) {
        return json(nodeId, joined, map, served, local, moves, null, null, -1);
    }

    static String json(String nodeId, boolean joined, ClusterMap map, ServedPartitions served, LocalPartitions local,
                       MoveStats moves, PrimaryReplication primary, BackupReplication backup, long entriesApplied) {
        ObjectNode root = JSON.createObjectNode();
        root.put("nodeId", nodeId);
        root.put("joined", joined);
        root.put("mapVersion", map.version());
        root.put("partitions", map.partitions());
        int[] owned = new int[map.nodes().size()];
        for (int p = 0; p < map.partitions(); p++) {
            if (map.ownerIndex(p) != ClusterMap.NO_OWNER) {
                owned[map.ownerIndex(p)]++;
            }
        }
        ArrayNode members = root.putArray("members");
        for (int i = 0; i < owned.length; i++) {
            ClusterMap.Member m = map.nodes().get(i);
            members.addObject().put("id", m.id()).put("host", m.host()).put("port", m.port())
                    .put("partitions", owned[i]);
        }
        int servedCount = 0;
        long entries = 0;
        if (served != null) {
            for (int p = 0; p < served.partitions(); p++) {
                if (served.serves(p)) {
                    servedCount++;
                    entries += local.size(p);
                }
            }
        }
        root.put("partitionsServed", servedCount);
        root.put("entriesServed", entries);
        if (entriesApplied >= 0) {
            root.put("entriesApplied", entriesApplied);
        }
        ObjectNode m = root.putObject("moves");
        if (moves != null) {
            m.put("inProgress", moves.inProgress()).put("done", moves.done()).put("entries", moves.entries())
                    .put("bytes", moves.bytes()).put("lastMillis", moves.lastMillis())
                    .put("droppedPartitions", moves.droppedPartitions()).put("droppedEntries", moves.droppedEntries());
            moving(m, moves);
        }
        if (primary != null && backup != null && served != null) {
            int backed = 0;
            int inSync = 0;
            int catchingUp = 0;
            long followers = 0;
            for (int p = 0; p < served.partitions(); p++) {
                int state = backup.state(p);
                backed += state != BackupReplication.NONE ? 1 : 0;
                inSync += state == BackupReplication.IN_SYNC ? 1 : 0;
                catchingUp += state == BackupReplication.CATCHING_UP ? 1 : 0;
                followers += primary.inSync(p).size();
            }
            root.putObject("replication").put("backed", backed).put("inSync", inSync).put("catchingUp", catchingUp)
                    .put("followersInSync", followers).put("streamResets", primary.streamResets());
        }
        try {
            return JSON.writeValueAsString(root);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("cannot write the status as JSON", e);
        }
    }

    /** The moves in progress: partitions moving in and out, transfers, bytes, rate, time left. */
    private static void moving(ObjectNode m, MoveStats moves) {
        long now = System.nanoTime();
        ArrayNode in = m.putArray("movingIn");
        for (MoveStats.Build b : moves.builds()) {
            in.addObject().put("partition", b.partition()).put("from", b.from()).put("takeover", b.takeover())
                    .put("millis", (now - b.startNanos()) / 1_000_000);
        }
        ArrayNode out = m.putArray("movingOut");
        moves.movingOut().forEach(out::add);
        m.put("waiting", moves.waiting());
        ArrayNode waitingFor = m.putArray("waitingPartitions");
        moves.waitingPartitions().forEach(waitingFor::add);
        ArrayNode transfers = m.putArray("transfers");
        for (MoveStats.TransferView t : moves.transfers()) {
            transfers.addObject().put("partition", t.partition()).put("peer", t.peer())
                    .put("direction", t.inbound() ? "in" : "out").put("totalBytes", t.totalBytes())
                    .put("doneBytes", t.doneBytes());
        }
        m.put("bytesSent", moves.bytesSent()).put("bytesReceived", moves.bytesReceived())
                .put("bytesPerSecond", Math.round(moves.bytesPerSecond()));
        double eta = moves.etaSeconds();
        if (Double.isNaN(eta)) {
            m.putNull("etaSeconds");
        } else {
            m.put("etaSeconds", Math.round(eta * 10) / 10.0);
        }
    }
}
