package io.sluice.cluster.internal;

import org.apache.helix.zookeeper.api.client.HelixZkClient;
import org.apache.helix.zookeeper.zkclient.exception.ZkNoNodeException;
import org.apache.helix.zookeeper.zkclient.exception.ZkNodeExistsException;

import java.nio.charset.StandardCharsets;

/**
 * The owner log in ZooKeeper: one znode per partition ({@link ClusterPaths#owner}) holding the last owner's id
 * (UTF-8), so that partitions moving at once write to different znodes. Thread-safe; each call is one or two
 * ZooKeeper round trips, retried while the connection is lost for up to the client's operation timeout.
 */
// Helix 2 deprecates its single-ZooKeeper client API for the realm-aware (multi-ZooKeeper) one, which needs a routing
// service; Sluice runs on one ZooKeeper (ensemble), as Pinot does.
@SuppressWarnings("deprecation")
final class ZkOwnerLog implements PartitionOwnerLog {

    private final HelixZkClient zk;
    private final ClusterPaths paths;

    ZkOwnerLog(HelixZkClient zk, ClusterPaths paths) {
        this.zk = zk;
        this.paths = paths;
        zk.createPersistent(paths.owners(), true);
    }

    @Override
    public String lastOwner(int partition) {
        byte[] id = zk.readData(paths.owner(partition), true);
        return id == null ? null : new String(id, StandardCharsets.UTF_8);
    }

    @Override
    public void recordOwner(int partition, String nodeId) {
        byte[] id = nodeId.getBytes(StandardCharsets.UTF_8);
        String path = paths.owner(partition);
        while (true) {
            try {
                zk.writeData(path, id);
                return;
            } catch (ZkNoNodeException e) {
                try {
                    zk.createPersistent(path, id);
                    return;
                } catch (ZkNodeExistsException raced) {
                    // created meanwhile by another node: overwrite it
                }
            }
        }
    }
}
