package io.sluice.protocol.internal;

/** The operations of a request, by their one-byte code (bodies in {@code docs/protocol.md}). */
public enum Op {
    /** Partition batches of a streamer: cache, receiver, flags, batches of entries as the client buffered them. */
    STREAM(1),
    /** The partition count of a cache (and whether it exists). */
    CACHE_PARTITIONS(2),
    CREATE_CACHE(3),
    DESTROY_CACHE(4),
    GET(5),
    PUT(6),
    REMOVE(7),
    SIZE(8),
    GET_ALL(9),
    /** Puts and removals of a putAll/removeAll, as one batch of entries. */
    WRITE_ALL(10),
    /** A page of one partition's entries after a key. */
    SCAN(11),
    TOPOLOGY(12),
    /** The client's binary type metadata (types, fields, schemas) for the node's registry. */
    PUT_TYPES(13),
    /** The node's binary type metadata. */
    GET_TYPES(14),
    INVOKE_ALL(15),
    /**
     * The names of the node's caches. A new op within version 1 (ops are added with new codes; a node
     * that predates one answers it with error kind 8, unknown op, and closes the connection).
     */
    CACHE_NAMES(16),
    /** The cluster's partition map as this node knows it ({@link ClusterMap}), or "standalone". */
    CLUSTER_MAP(17),
    /**
     * SCAN's body and answer, served whether or not this node owns the partition now: how a node taking over a
     * partition reads it from the node that held it (never used by clients; a client's SCAN goes to the owner).
     */
    PARTITION_SCAN(18),
    /** The node's status for the status command: a JSON document (members, map version, partitions, moves). */
    NODE_STATUS(19),
    /**
     * A primary's writes for its backups (issue 27): records of the partitions a member backs, in the order the
     * primary applied them, with the primary's epoch ({@link ReplicaCodec}). Member to member only.
     */
    REPLICATE(20),
    /** A backup asks a partition's primary to send it the partition's records from now on; answers the epoch. */
    REPLICA_FOLLOW(21),
    /** A backup that caught up tells the partition's primary it is in sync (it counts for FULL_SYNC from then). */
    REPLICA_SYNCED(22),
    /** A page of an index query's entries from the partitions this node serves, merged in index order. */
    INDEX_QUERY(25),
    /** Drops an index of a cache. */
    DESTROY_INDEX(26),
    /** Adds an index to a cache, built in the background. */
    CREATE_INDEX(27),
    /**
     * Member to member (issue 28): one cache's partition as a partition file, a header then the file in chunks each
     * with its CRC32C, on a connection of its own ({@code PartitionFileWire}).
     */
    PARTITION_FILE(28);

    private static final Op[] BY_CODE = new Op[256];

    static {
        for (Op op : values()) {
            BY_CODE[op.code] = op;
        }
    }

    public final int code;

    Op(int code) {
        this.code = code;
    }

    /** The op of a code, or null if there is none. */
    public static Op of(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
