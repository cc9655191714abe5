package io.sluice.cluster.internal;

import org.apache.helix.zookeeper.api.client.HelixZkClient;
import org.apache.helix.zookeeper.zkclient.exception.ZkBadVersionException;
import org.apache.helix.zookeeper.zkclient.exception.ZkNodeExistsException;
import org.apache.zookeeper.data.Stat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The owner log in ZooKeeper: one znode per partition ({@link ClusterPaths#owner}) holding the partition's epoch and
 * last owner, so that partitions moving at once write to different znodes:
 * <pre>
 * offset  size  field
 * 0       1     u8 0: format marker (a record written before epochs existed is the owner's UTF-8 id alone, whose
 *               first byte is a letter or digit: it reads as epoch 0)
 * 1       8     int64 epoch (big-endian), &gt;= 1
 * 9       ...   the owner's id, UTF-8
 * </pre>
 * {@link #recordOwner} is a compare-and-set on the znode's version: read (epoch e, version v), write (e + 1, self)
 * expecting v, again from the read if another node wrote meanwhile; so epochs are strictly increasing per
 * partition whoever writes, and two nodes recording at once get different epochs (the later write the higher).
 * Thread-safe; each call is one or a few ZooKeeper round trips, each retried while the connection is lost for up to
 * the client's operation timeout.
 */
// Helix 2 deprecates its single-ZooKeeper client API for the realm-aware (multi-ZooKeeper) one, which needs a routing
// service; Sluice runs on one ZooKeeper (ensemble), as Pinot does.
@SuppressWarnings("deprecation")
final class ZkOwnerLog implements PartitionOwnerLog {

    private static final byte FORMAT = 0;
    private static final int HEADER = 9;

    private final HelixZkClient zk;
    private final ClusterPaths paths;

    ZkOwnerLog(HelixZkClient zk, ClusterPaths paths) {
        this.zk = zk;
        this.paths = paths;
        zk.createPersistent(paths.owners(), true);
    }

    @Override
    public String lastOwner(int partition) {
        byte[] record = zk.readData(paths.owner(partition), true);
        return record == null ? null : owner(record);
    }

    @Override
    public long epoch(int partition) {
        byte[] record = zk.readData(paths.owner(partition), true);
        return record == null ? 0 : epoch(record);
    }

    @Override
    public long recordOwner(int partition, String nodeId) {
        String path = paths.owner(partition);
        while (true) {
            Stat stat = new Stat();
            byte[] record = zk.readDataAndStat(path, stat, true);
            if (record == null) {
                try {
                    zk.createPersistent(path, record(1, nodeId));
                    return 1;
                } catch (ZkNodeExistsException raced) {
                    continue; // created meanwhile by another node: bump its epoch
                }
            }
            long next = epoch(record) + 1;
            try {
                zk.writeDataGetStat(path, record(next, nodeId), stat.getVersion());
                return next;
            } catch (ZkBadVersionException raced) {
                // written meanwhile by another node (or by this one, a retried write that had gone through): read
                // again and bump past it
            }
        }
    }

    static byte[] record(long epoch, String nodeId) {
        byte[] id = nodeId.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(HEADER + id.length).put(FORMAT).putLong(epoch).put(id).array();
    }

    static long epoch(byte[] record) {
        return isLegacy(record) ? 0 : ByteBuffer.wrap(record, 1, 8).getLong();
    }

    static String owner(byte[] record) {
        return isLegacy(record) ? new String(record, StandardCharsets.UTF_8)
                : new String(record, HEADER, record.length - HEADER, StandardCharsets.UTF_8);
    }

    private static boolean isLegacy(byte[] record) {
        return record.length < HEADER || record[0] != FORMAT;
    }
}
