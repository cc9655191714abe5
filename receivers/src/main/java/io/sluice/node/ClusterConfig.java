package io.sluice.node;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * How a node joins a cluster: ZooKeeper's address, the cluster's name and the node's id in it, and optionally the
 * address it is reached at and its ZooKeeper session timeout. Immutable; every value is checked when it is set,
 * so a config that exists is well-formed (whether ZooKeeper answers and the cluster exists is found out when the
 * node joins: its start then fails naming them). Each setting's bounds and documentation are declared once, in
 * {@link NodeOptions} (its {@code CLUSTER} rows); the node file's {@code "cluster"} object is read into one.
 *
 * <pre>{@code
 * NodeConfig.builder()
 *         .cluster(ClusterConfig.of("127.0.0.1:2181", "demo", "a"))
 *         .build();
 * }</pre>
 *
 * <p>A cluster is joined by the node process ({@code sluice-node.jar}), which serves the other nodes and the
 * clients; {@link SluiceNode#start} refuses a config with a cluster. The cluster itself is made once, beforehand,
 * with {@code java -jar sluice-node.jar create-cluster} (docs/cluster.md).
 */
public final class ClusterConfig {

    /** The ZooKeeper session timeout unless set otherwise: how long a node that stopped answering keeps its role. */
    public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(10);

    /** One ZooKeeper server: a host name, an IPv4 address or a bracketed IPv6 address, and a port. */
    private static final Pattern SERVER = Pattern.compile("(\\[[0-9A-Fa-f:.]+]|[A-Za-z0-9_.-]+):([0-9]{1,5})");

    private final String zookeeper;
    private final String name;
    private final String nodeId;
    private final String advertisedHost;
    private final Duration sessionTimeout;
    private final int maxConcurrentMoves;
    private final long moveBytesPerSecond;
    private final MoveMethod moveMethod;

    /** How a node builds a partition it must hold whole (a takeover, a new backup, a backup that was away). */
    public enum MoveMethod {
        /** The partition's image as a partition file, sent whole and checked, then loaded (docs/cluster.md). */
        FILES,
        /** The partition's entries, page by page (PARTITION_SCAN): the baseline, and the fallback of FILES. */
        ENTRIES
    }

    /** Partitions a node builds at once unless set otherwise. */
    public static final int DEFAULT_MAX_CONCURRENT_MOVES = 2;

    /** Bytes a node sends per second for partition moves unless set otherwise (0 = no limit). */
    public static final long DEFAULT_MOVE_BYTES_PER_SECOND = 256L << 20;

    private ClusterConfig(String zookeeper, String name, String nodeId, String advertisedHost,
                          Duration sessionTimeout, int maxConcurrentMoves, long moveBytesPerSecond,
                          MoveMethod moveMethod) {
        this.zookeeper = zookeeper;
        this.name = name;
        this.nodeId = nodeId;
        this.advertisedHost = advertisedHost;
        this.sessionTimeout = sessionTimeout;
        this.maxConcurrentMoves = maxConcurrentMoves;
        this.moveBytesPerSecond = moveBytesPerSecond;
        this.moveMethod = moveMethod;
    }

    /**
     * A node {@code nodeId} of cluster {@code name}, whose coordination is on the ZooKeeper ensemble at
     * {@code zookeeper}; reached at the node's listening host, with the default session timeout.
     *
     * @param zookeeper ZooKeeper's connect string: {@code host:port[,host:port...]}
     * @param name      the cluster's name: 1 to 100 letters, digits, {@code _}, {@code -} or {@code .}
     * @param nodeId    this node's id, unique among the cluster's members (a second node with the same id is
     *                  refused when it joins); the same characters as the name
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException naming the setting and the value if the address is not a list of
     *         {@code host:port} with ports 1 to 65535, or the name or id is blank or has other characters
     */
    public static ClusterConfig of(String zookeeper, String name, String nodeId) {
        return new ClusterConfig(checkZooKeeper(zookeeper), checkName(NodeOptions.CLUSTER_NAME, name),
                checkName(NodeOptions.NODE_ID, nodeId), null, DEFAULT_SESSION_TIMEOUT, DEFAULT_MAX_CONCURRENT_MOVES,
                DEFAULT_MOVE_BYTES_PER_SECOND, MoveMethod.FILES);
    }

    /**
     * A copy reached at this host: the address the other nodes and the clients dial, put in the cluster's map.
     * Needed when the node listens on all addresses ({@code 0.0.0.0}); unset, it is the host the node listens on.
     *
     * @throws NullPointerException if host is null
     * @throws IllegalArgumentException if host is blank, has a space or a colon (no port: the node's own port is
     *         advertised), or is a wildcard address
     */
    public ClusterConfig withAdvertisedHost(String host) {
        Objects.requireNonNull(host, NodeOptions.ADVERTISED_HOST.name());
        String h = host.trim();
        if (isWildcard(h)) {
            throw new IllegalArgumentException(NodeOptions.ADVERTISED_HOST.name() + " is '" + host + "', which names"
                    + " no machine; give the address the other nodes and the clients dial (ClusterConfig.advertisedHost)");
        }
        if (h.isEmpty() || h.chars().anyMatch(c -> Character.isWhitespace(c) || c == '/')
                || (h.contains(":") && !h.startsWith("["))) {
            throw new IllegalArgumentException(NodeOptions.ADVERTISED_HOST.name() + " is '" + host + "'; it must "
                    + NodeOptions.ADVERTISED_HOST.bounds() + " (ClusterConfig.advertisedHost)");
        }
        return new ClusterConfig(zookeeper, name, nodeId, h, sessionTimeout, maxConcurrentMoves, moveBytesPerSecond,
                moveMethod);
    }

    /**
     * A copy with this ZooKeeper session timeout: a node that stops answering (killed, paused, cut off) keeps its
     * partitions this long before the cluster takes them from it, and a node whose session expired stops serving
     * writes until it has joined again. ZooKeeper's server bounds it to 2 to 20 of its ticks.
     *
     * @throws NullPointerException if timeout is null
     * @throws IllegalArgumentException unless 1 s &lt;= timeout &lt;= 10 minutes
     */
    public ClusterConfig withSessionTimeout(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        return new ClusterConfig(zookeeper, name, nodeId, advertisedHost, NodeOptions.SESSION_TIMEOUT.check(timeout),
                maxConcurrentMoves, moveBytesPerSecond, moveMethod);
    }

    /**
     * A copy that builds at most this many partitions at once (takeovers and backups catching up; a backup in sync
     * that is promoted builds nothing and never waits for this).
     *
     * @throws IllegalArgumentException unless 1 &lt;= moves &lt;= 64
     */
    public ClusterConfig withMaxConcurrentMoves(int moves) {
        return new ClusterConfig(zookeeper, name, nodeId, advertisedHost, sessionTimeout,
                NodeOptions.MAX_CONCURRENT_MOVES.check(moves), moveBytesPerSecond, moveMethod);
    }

    /**
     * A copy that sends at most this many bytes per second of partition moves, all its moves together, so that a
     * rebalance does not starve the load; 0 sends as fast as it can.
     *
     * @throws IllegalArgumentException if bytesPerSecond is negative
     */
    public ClusterConfig withMoveBytesPerSecond(long bytesPerSecond) {
        return new ClusterConfig(zookeeper, name, nodeId, advertisedHost, sessionTimeout, maxConcurrentMoves,
                NodeOptions.MOVE_BYTES_PER_SECOND.check(bytesPerSecond), moveMethod);
    }

    /**
     * A copy that builds partitions this way ({@link MoveMethod#FILES} unless set; {@link MoveMethod#ENTRIES} is the
     * entry-by-entry baseline).
     *
     * @throws NullPointerException if method is null
     */
    public ClusterConfig withMoveMethod(MoveMethod method) {
        Objects.requireNonNull(method, NodeOptions.MOVE_METHOD.name());
        return new ClusterConfig(zookeeper, name, nodeId, advertisedHost, sessionTimeout, maxConcurrentMoves,
                moveBytesPerSecond, method);
    }

    /** Partitions built at once; {@link #DEFAULT_MAX_CONCURRENT_MOVES} unless set. */
    public int maxConcurrentMoves() {
        return maxConcurrentMoves;
    }

    /** Bytes per second of partition moves this node sends, 0 for no limit. */
    public long moveBytesPerSecond() {
        return moveBytesPerSecond;
    }

    /** How partitions are built; {@link MoveMethod#FILES} unless set. */
    public MoveMethod moveMethod() {
        return moveMethod;
    }

    /** ZooKeeper's connect string, {@code host:port[,host:port...]}, as given (without spaces). */
    public String zookeeper() {
        return zookeeper;
    }

    /** The cluster's name. */
    public String name() {
        return name;
    }

    /** This node's id in the cluster. */
    public String nodeId() {
        return nodeId;
    }

    /** The host the node is reached at, if set; empty: the host it listens on. */
    public Optional<String> advertisedHost() {
        return Optional.ofNullable(advertisedHost);
    }

    /** The ZooKeeper session timeout; {@link #DEFAULT_SESSION_TIMEOUT} unless set. */
    public Duration sessionTimeout() {
        return sessionTimeout;
    }

    /** True for an address that means "every interface" rather than one machine ({@code 0.0.0.0}, {@code ::}). */
    public static boolean isWildcard(String host) {
        String h = host.trim();
        return h.equals("0.0.0.0") || h.equals("::") || h.equals("[::]") || h.equals("*");
    }

    private static String checkZooKeeper(String zookeeper) {
        Objects.requireNonNull(zookeeper, NodeOptions.ZOOKEEPER.name());
        String compact = zookeeper.replace(" ", "");
        if (compact.isEmpty()) {
            throw malformed(zookeeper, "it is blank");
        }
        for (String server : compact.split(",", -1)) {
            if (server.isEmpty()) {
                throw malformed(zookeeper, "it has an empty entry");
            }
            var m = SERVER.matcher(server);
            if (!m.matches()) {
                throw malformed(zookeeper, server.contains(":") ? "'" + server + "' is not host:port"
                        : "'" + server + "' has no port");
            }
            int port = Integer.parseInt(m.group(2));
            if (port < 1 || port > 65535) {
                throw malformed(zookeeper, "the port of '" + server + "' is not between 1 and 65535");
            }
        }
        return compact;
    }

    private static IllegalArgumentException malformed(String zookeeper, String why) {
        return new IllegalArgumentException(NodeOptions.ZOOKEEPER.name() + " is '" + zookeeper + "': " + why
                + "; it must " + NodeOptions.ZOOKEEPER.bounds() + " (ClusterConfig.zookeeper)");
    }

    private static String checkName(NodeOptions.Option<String> option, String value) {
        Objects.requireNonNull(value, option.name());
        return option.check(value);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ClusterConfig c && c.zookeeper.equals(zookeeper) && c.name.equals(name)
                && c.nodeId.equals(nodeId) && Objects.equals(c.advertisedHost, advertisedHost)
                && c.sessionTimeout.equals(sessionTimeout) && c.maxConcurrentMoves == maxConcurrentMoves
                && c.moveBytesPerSecond == moveBytesPerSecond && c.moveMethod == moveMethod;
    }

    @Override
    public int hashCode() {
        return Objects.hash(zookeeper, name, nodeId, advertisedHost, sessionTimeout, maxConcurrentMoves,
                moveBytesPerSecond, moveMethod);
    }

    @Override
    public String toString() {
        return "ClusterConfig{zookeeper=" + zookeeper + ", name=" + name + ", nodeId=" + nodeId
                + (advertisedHost == null ? "" : ", advertisedHost=" + advertisedHost)
                + ", sessionTimeout=" + sessionTimeout.toMillis() + "ms"
                + (maxConcurrentMoves == DEFAULT_MAX_CONCURRENT_MOVES ? "" : ", maxConcurrentMoves=" + maxConcurrentMoves)
                + (moveBytesPerSecond == DEFAULT_MOVE_BYTES_PER_SECOND ? ""
                        : ", moveBytesPerSecond=" + moveBytesPerSecond)
                + (moveMethod == MoveMethod.FILES ? "" : ", moveMethod=" + moveMethod) + "}";
    }
}
