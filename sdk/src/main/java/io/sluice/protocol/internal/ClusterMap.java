package io.sluice.protocol.internal;

import io.netty.buffer.ByteBuf;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Which node serves each partition now, as one version of the cluster's agreed map (Helix's external view): the
 * nodes with the address clients reach them at, per partition the index of its owner (its primary), or
 * {@link #NO_OWNER} while no node serves it (a node away within the rebalance delay, a partition moving), and the
 * indexes of its backups (the members holding it in SLAVE state, in rendezvous order; none in a cluster without
 * backups). Immutable. The answer body of CLUSTER_MAP (op 17) when the node is a cluster member:
 * <pre>
 * offset  size    field
 * 0       1       u8 mode: 0 standalone (nothing follows: the node owns every partition of its caches),
 *                 1 cluster member (the map follows)
 * 1       8       int64 version: grows with every change of the map, never goes back
 * 9       4       int32 partitions, P
 * 13      4       int32 nodes, N
 * 17      ...     N x (string id, string host, int32 port)
 * ...     2 x P   int16 owner per partition: an index into the nodes, or -1 (no owner now)
 * ...     ...     P x (u8 backups B, B x u16 node index): each partition's backups, in rendezvous order; absent
 *                 in the answer of a node from before backups (read as none)
 * </pre>
 * A partition's owner and backups are distinct nodes.
 */
public final class ClusterMap {

    /** The owner index of a partition no node serves now. */
    public static final int NO_OWNER = -1;

    /** A node of the map and where clients reach it. */
    public record Member(String id, String host, int port) {
        public Member {
            Objects.requireNonNull(id, "id");
            Objects.requireNonNull(host, "host");
        }

        public String address() {
            return host + ":" + port;
        }
    }

    private static final short[] NO_BACKUPS = new short[0];
    /** The most backups a partition has in a map (a cache has at most 3; the wire's count is a u8). */
    public static final int MAX_BACKUPS = 255;

    private final long version;
    private final List<Member> nodes;
    private final short[] owners;
    private final short[][] backups;

    /**
     * A map without backups.
     *
     * @param owners per partition the index of its owner in {@code nodes}, or {@link #NO_OWNER}; copied
     * @throws IllegalArgumentException if an index is out of range, or more nodes than an index can name
     */
    public ClusterMap(long version, List<Member> nodes, int[] owners) {
        this(version, nodes, owners, null);
    }

    /**
     * @param owners  per partition the index of its owner in {@code nodes}, or {@link #NO_OWNER}; copied
     * @param backups per partition the indexes of its backups in {@code nodes}, in rendezvous order (a null array
     *                or a null or empty row: none); copied
     * @throws IllegalArgumentException if an index is out of range, a backup is the owner or named twice, a
     *                                  partition has more than {@link #MAX_BACKUPS}, {@code backups} is not one row
     *                                  per partition, or more nodes than an index can name
     */
    public ClusterMap(long version, List<Member> nodes, int[] owners, int[][] backups) {
        if (nodes.size() > Short.MAX_VALUE) {
            throw new IllegalArgumentException("a map names at most " + Short.MAX_VALUE + " nodes, not " + nodes.size());
        }
        if (backups != null && backups.length != owners.length) {
            throw new IllegalArgumentException("backups for " + backups.length + " partitions, owners for "
                    + owners.length);
        }
        this.version = version;
        this.nodes = List.copyOf(nodes);
        this.owners = new short[owners.length];
        this.backups = new short[owners.length][];
        for (int p = 0; p < owners.length; p++) {
            if (owners[p] < NO_OWNER || owners[p] >= nodes.size()) {
                throw new IllegalArgumentException("partition " + p + " names node " + owners[p] + " of "
                        + nodes.size());
            }
            this.owners[p] = (short) owners[p];
            this.backups[p] = backupRow(p, owners[p], backups == null ? null : backups[p], nodes.size());
        }
    }

    private static short[] backupRow(int partition, int owner, int[] row, int nodes) {
        if (row == null || row.length == 0) {
            return NO_BACKUPS;
        }
        if (row.length > MAX_BACKUPS) {
            throw new IllegalArgumentException("partition " + partition + " has " + row.length
                    + " backups; a map names at most " + MAX_BACKUPS);
        }
        short[] copy = new short[row.length];
        for (int i = 0; i < row.length; i++) {
            int b = row[i];
            if (b < 0 || b >= nodes) {
                throw new IllegalArgumentException("partition " + partition + " names node " + b + " of " + nodes
                        + " as a backup");
            }
            if (b == owner) {
                throw new IllegalArgumentException("partition " + partition + " names its owner, node " + b
                        + ", as a backup");
            }
            for (int j = 0; j < i; j++) {
                if (copy[j] == b) {
                    throw new IllegalArgumentException("partition " + partition + " names node " + b
                            + " twice as a backup");
                }
            }
            copy[i] = (short) b;
        }
        return copy;
    }

    public long version() {
        return version;
    }

    public int partitions() {
        return owners.length;
    }

    public List<Member> nodes() {
        return nodes;
    }

    /** The index of the partition's owner in {@link #nodes()}, or {@link #NO_OWNER}. */
    public int ownerIndex(int partition) {
        return owners[partition];
    }

    /** The id of the partition's owner, or null while no node serves it. */
    public String owner(int partition) {
        int i = owners[partition];
        return i == NO_OWNER ? null : nodes.get(i).id();
    }

    /**
     * The indexes in {@link #nodes()} of the partition's backups (members holding it in SLAVE state), in rendezvous
     * order; empty if it has none. A new array on each call: {@link #backupCount}/{@link #backupIndex} allocate
     * nothing.
     */
    public int[] backupIndexes(int partition) {
        short[] row = backups[partition];
        int[] copy = new int[row.length];
        for (int i = 0; i < row.length; i++) {
            copy[i] = row[i];
        }
        return copy;
    }

    /** How many backups the partition has in this map. */
    public int backupCount(int partition) {
        return backups[partition].length;
    }

    /** The index in {@link #nodes()} of the partition's {@code i}-th backup (0 = first in rendezvous order). */
    public int backupIndex(int partition, int i) {
        return backups[partition][i];
    }

    /** The node with this id, or null if the map does not name it. */
    public Member member(String id) {
        for (Member m : nodes) {
            if (m.id().equals(id)) {
                return m;
            }
        }
        return null;
    }

    /** Writes the answer body of CLUSTER_MAP for a cluster member (mode 1 and the map). */
    public void write(ByteBuf out) {
        out.writeByte(1);
        out.writeLong(version);
        out.writeInt(owners.length);
        out.writeInt(nodes.size());
        for (Member m : nodes) {
            Wire.writeString(out, m.id());
            Wire.writeString(out, m.host());
            out.writeInt(m.port());
        }
        for (short owner : owners) {
            out.writeShort(owner);
        }
        for (short[] row : backups) {
            out.writeByte(row.length);
            for (short b : row) {
                out.writeShort(b);
            }
        }
    }

    /** Writes the answer body of CLUSTER_MAP for a standalone node (mode 0). */
    public static void writeStandalone(ByteBuf out) {
        out.writeByte(0);
    }

    /**
     * Reads a CLUSTER_MAP answer body.
     *
     * @return the map, or null if the node is standalone
     * @throws Wire.MalformedFrameException if the body does not follow the layout
     */
    public static ClusterMap read(ByteBuf in) {
        int mode = Wire.readByte(in, "map mode");
        if (mode == 0) {
            return null;
        }
        if (mode != 1) {
            throw new Wire.MalformedFrameException("unknown map mode " + mode);
        }
        long version = Wire.readLong(in, "map version");
        int partitions = Wire.readInt(in, "partitions");
        if (partitions < 0 || partitions > in.readableBytes() / 2) {
            throw new Wire.MalformedFrameException("the map claims " + partitions + " partitions");
        }
        int n = Wire.readCount(in, 8, "map nodes");
        List<Member> nodes = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            nodes.add(new Member(Wire.readString(in, "node id"), Wire.readString(in, "node host"),
                    Wire.readInt(in, "node port")));
        }
        Wire.need(in, 2 * partitions, "partition owners");
        int[] owners = new int[partitions];
        for (int p = 0; p < partitions; p++) {
            owners[p] = in.readShort();
        }
        int[][] backups = null;
        if (in.isReadable()) {
            Wire.need(in, partitions, "partition backups");
            backups = new int[partitions][];
            for (int p = 0; p < partitions; p++) {
                int count = Wire.readByte(in, "backup count");
                Wire.need(in, 2 * count, "backups of partition " + p);
                int[] row = new int[count];
                for (int i = 0; i < count; i++) {
                    row[i] = in.readUnsignedShort();
                }
                backups[p] = row;
            }
        }
        try {
            return new ClusterMap(version, nodes, owners, backups);
        } catch (IllegalArgumentException e) {
            throw new Wire.MalformedFrameException(e.getMessage());
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ClusterMap m && m.version == version && m.nodes.equals(nodes)
                && Arrays.equals(m.owners, owners) && Arrays.deepEquals(m.backups, backups);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(version) * 31 + nodes.hashCode();
    }

    @Override
    public String toString() {
        return "ClusterMap{version=" + version + ", nodes=" + nodes + ", partitions=" + owners.length + '}';
    }
}
