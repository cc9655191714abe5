package io.sluice.server.internal.command;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.client.internal.Address;
import io.sluice.protocol.internal.ClusterMap;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What the status command found: the partition map one of the given nodes holds, and each member's own status
 * document (NODE_STATUS), or why it gave none. Rendered as a table for people or as one JSON document.
 *
 * @param asked       the node that gave the map
 * @param map         its map, or null if that node is standalone
 * @param members     one report per member of the map (the standalone node alone if there is no map)
 */
record StatusReport(Address asked, ClusterMap map, List<MemberReport> members) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One member: where it is, the partitions the map gives it, and its status document or the error that
     * replaced it.
     */
    record MemberReport(String id, String address, int partitions, JsonNode status, String error) {
    }

    /**
     * Asks the given nodes, in order, for the map until one answers, then asks every member of that map for its
     * status.
     *
     * @param tls a TLS context for nodes with TLS, or null for plain TCP
     * @throws IOException naming the addresses and the first error if none of them answers
     */
    static StatusReport read(List<Address> addresses, String token, Duration timeout, SSLContext tls)
            throws IOException {
        List<String> errors = new ArrayList<>();
        for (Address a : addresses) {
            try (AdminConnection first = AdminConnection.open(a, token, timeout, tls)) {
                ClusterMap map = first.clusterMap();
                if (map == null) {
                    return new StatusReport(a, null, List.of(report(first.nodeId(), a.toString(), 0, first)));
                }
                List<MemberReport> members = new ArrayList<>();
                for (int i = 0; i < map.nodes().size(); i++) {
                    ClusterMap.Member m = map.nodes().get(i);
                    int owned = owned(map, i);
                    if (m.id().equals(first.nodeId())) {
                        members.add(report(m.id(), m.address(), owned, first));
                        continue;
                    }
                    try (AdminConnection c = AdminConnection.open(new Address(m.host(), m.port()), token, timeout,
                            tls)) {
                        members.add(report(m.id(), m.address(), owned, c));
                    } catch (IOException e) {
                        members.add(new MemberReport(m.id(), m.address(), owned, null, e.getMessage()));
                    }
                }
                return new StatusReport(a, map, members);
            } catch (IOException e) {
                errors.add(e.getMessage());
            }
        }
        throw new IOException(addresses.size() == 1 ? errors.get(0)
                : "none of " + addresses + " answered; " + String.join("; ", errors));
    }

    private static MemberReport report(String id, String address, int partitions, AdminConnection c) {
        try {
            return new MemberReport(id, address, partitions, JSON.readTree(c.status()), null);
        } catch (JsonProcessingException e) {
            return new MemberReport(id, address, partitions, null, "its status is not JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            return new MemberReport(id, address, partitions, null, e.getMessage());
        }
    }

    private static int owned(ClusterMap map, int member) {
        int n = 0;
        for (int p = 0; p < map.partitions(); p++) {
            n += map.ownerIndex(p) == member ? 1 : 0;
        }
        return n;
    }

    /** Partitions no node serves now (moving, or their node away within the rebalance delay). */
    int unowned() {
        int n = 0;
        for (int p = 0; p < map.partitions(); p++) {
            n += map.ownerIndex(p) == ClusterMap.NO_OWNER ? 1 : 0;
        }
        return n;
    }

    /** The table people read. */
    String table() {
        StringBuilder b = new StringBuilder();
        if (map == null) {
            MemberReport node = members.get(0);
            b.append("standalone node ").append(node.id()).append(" at ").append(node.address())
                    .append(" (not a cluster member)\n");
            b.append(String.format("%-12s %-22s %12s %s%n", "node", "address", "entries", "status"));
            b.append(String.format("%-12s %-22s %12s %s%n", node.id(), node.address(), standaloneEntries(node),
                    state(node)));
            return b.toString();
        }
        if (map.partitions() == 0) {
            // A member's map before it has joined: it names nobody.
            return b.append("the node at ").append(asked).append(" has not joined its cluster yet: no map\n")
                    .toString();
        }
        b.append("map version ").append(map.version()).append(": ").append(map.partitions()).append(" partitions, ")
                .append(map.nodes().size()).append(" members, ").append(unowned())
                .append(" partitions without an owner (asked ").append(asked).append(")\n");
        String row = "%-12s %-22s %10s %8s %12s %6s %6s %6s %10s %10s %6s %s%n";
        b.append(String.format(row, "node", "address", "partitions", "served", "entries", "in", "out", "moved",
                "sent", "received", "eta", "status"));
        List<String> moving = new ArrayList<>();
        for (MemberReport m : members) {
            long in = count(m, "movingIn");
            long out = count(m, "movingOut");
            long waiting = number(m, "moves", "waiting");
            b.append(String.format(row, m.id(), m.address(), m.partitions(), text(number(m, "partitionsServed", null)),
                    text(number(m, "entriesServed", null)), text(in), text(out), text(number(m, "moves", "done")),
                    bytes(number(m, "moves", "bytesSent")), bytes(number(m, "moves", "bytesReceived")), eta(m),
                    state(m)));
            if (in > 0 || out > 0 || waiting > 0) {
                moving.add(m.id() + ": " + in + " in, " + out + " out"
                        + (waiting > 0 ? ", " + waiting + " waiting" : "")
                        + ", " + bytes(number(m, "moves", "bytesPerSecond")) + "/s, about " + eta(m) + " left");
            }
        }
        b.append(moving.isEmpty() ? "no moves in progress\n" : "moves in progress: " + String.join("; ", moving)
                + "\n");
        return b.toString();
    }

    /** The length of the member's {@code moves.field} array, else its {@code moves.inProgress} for "movingIn" (a
     * member of an older version), else -1. */
    private static long count(MemberReport m, String field) {
        JsonNode moves = m.status() == null ? null : m.status().get("moves");
        JsonNode v = moves == null ? null : moves.get(field);
        if (v != null && v.isArray()) {
            return v.size();
        }
        return field.equals("movingIn") ? number(m, "moves", "inProgress") : -1;
    }

    /** Bytes for people: 1.5 MiB; "?" if unknown. */
    static String bytes(long n) {
        if (n < 0) {
            return "?";
        }
        if (n < 1024) {
            return n + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double v = n;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(java.util.Locale.ROOT, "%.1f %s", v, units[u]);
    }

    /** The member's estimated time left: "-" with nothing moving, "?" if not known yet. */
    private static String eta(MemberReport m) {
        JsonNode moves = m.status() == null ? null : m.status().get("moves");
        if (moves == null || !moves.has("etaSeconds")) {
            return "?";
        }
        JsonNode eta = moves.get("etaSeconds");
        if (!eta.isNumber()) {
            return "?";
        }
        double s = eta.asDouble();
        return s == 0 ? "-" : s < 60 ? Math.round(s) + "s" : s < 3600 ? Math.round(s / 60) + "m" : Math.round(s / 3600)
                + "h";
    }

    /** A number of the member's status ({@code field}, or {@code field.sub}), or -1 if it has none. */
    private static long number(MemberReport m, String field, String sub) {
        JsonNode v = m.status() == null ? null : m.status().get(field);
        if (v != null && sub != null) {
            v = v.get(sub);
        }
        return v != null && v.isNumber() ? v.asLong() : -1;
    }

    private static String text(long n) {
        return n < 0 ? "?" : String.valueOf(n);
    }

    /** A standalone node's entries: the sum of its caches' sizes. */
    private static String standaloneEntries(MemberReport m) {
        JsonNode caches = m.status() == null ? null : m.status().get("caches");
        if (caches == null || !caches.isObject()) {
            return "?";
        }
        long n = 0;
        for (JsonNode size : caches) {
            n += size.asLong();
        }
        return String.valueOf(n);
    }

    private static String state(MemberReport m) {
        if (m.error() != null) {
            return m.error();
        }
        JsonNode joined = m.status() == null ? null : m.status().get("joined");
        return joined != null && !joined.asBoolean(true) ? "not joined" : "ok";
    }

    /** Everything as one JSON document: the map's summary and each member's status document as it sent it. */
    String json() {
        return write(document(), true);
    }

    /**
     * What the status page draws ({@link StatusPage}): {@link #json}'s document, plus {@code owners} (per partition
     * the index in {@code members} of its owner, -1 for none) and {@code backups} (per partition its backups'
     * indexes) when there is a map, and {@code time} (epoch milliseconds, for rates).
     */
    String pageJson() {
        ObjectNode root = document();
        root.put("time", System.currentTimeMillis());
        if (map != null) {
            ArrayNode owners = root.putArray("owners");
            ArrayNode backups = root.putArray("backups");
            for (int p = 0; p < map.partitions(); p++) {
                owners.add(map.ownerIndex(p));
                ArrayNode b = backups.addArray();
                for (int i : map.backupIndexes(p)) {
                    b.add(i);
                }
            }
        }
        return write(root, false);
    }

    private static String write(ObjectNode root, boolean pretty) {
        try {
            return pretty ? JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root)
                    : JSON.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private ObjectNode document() {
        ObjectNode root = JSON.createObjectNode();
        root.put("asked", asked.toString());
        if (map != null) {
            ObjectNode m = root.putObject("map");
            m.put("version", map.version());
            m.put("partitions", map.partitions());
            m.put("withoutOwner", unowned());
        }
        ArrayNode list = root.putArray("members");
        for (MemberReport r : members) {
            ObjectNode o = list.addObject();
            o.put("id", r.id());
            o.put("address", r.address());
            if (map != null) {
                o.put("partitions", r.partitions());
            }
            if (r.status() != null) {
                o.set("status", r.status());
            } else {
                o.put("error", r.error());
            }
        }
        return root;
    }
}
