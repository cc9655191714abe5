package io.sluice.cluster.internal;

import org.apache.helix.zookeeper.api.client.HelixZkClient;
import org.apache.helix.zookeeper.datamodel.serializer.ByteArraySerializer;
import org.apache.helix.zookeeper.datamodel.serializer.ChainedPathZkSerializer;
import org.apache.helix.zookeeper.datamodel.serializer.ZNRecordSerializer;
import org.apache.helix.zookeeper.impl.factory.DedicatedZkClientFactory;

import java.time.Duration;

/**
 * Opens a ZooKeeper client for set-up, checks before joining, and Sluice's own data (catalogue, owner log): every
 * wait bounded (ZooKeeper clients retry forever by default, so an unreachable address would hang a start), errors
 * naming the address. Helix's layout is read and written as ZNRecords, Sluice's data below
 * {@link ClusterPaths#sluiceRoot()} as raw bytes.
 */
// Helix 2 deprecates its single-ZooKeeper client API for the realm-aware (multi-ZooKeeper) one, which needs a routing
// service; Sluice runs on one ZooKeeper (ensemble), as Pinot does.
@SuppressWarnings("deprecation")
final class ZkAccess {

    private ZkAccess() {
    }

    /**
     * A connected client; close it when done.
     *
     * @param cluster the cluster whose Sluice data this client reads as bytes (may be null: ZNRecords only)
     * @throws IllegalStateException if ZooKeeper at the address cannot be reached within the timeout
     */
    static HelixZkClient open(String zookeeper, String cluster, Duration timeout) {
        ChainedPathZkSerializer.Builder serializer = ChainedPathZkSerializer.builder(new ZNRecordSerializer());
        if (cluster != null) {
            serializer.serialize(new ClusterPaths(cluster).sluiceRoot(), new ByteArraySerializer());
        }
        HelixZkClient.ZkClientConfig config = new HelixZkClient.ZkClientConfig()
                .setConnectInitTimeout(timeout.toMillis())
                .setOperationRetryTimeout(timeout.toMillis())
                .setZkSerializer(serializer.build());
        try {
            return DedicatedZkClientFactory.getInstance().buildZkClient(
                    new HelixZkClient.ZkConnectionConfig(zookeeper).setSessionTimeout((int) timeout.toMillis()),
                    config);
        } catch (RuntimeException e) {
            throw unreachable(zookeeper, timeout, e);
        }
    }

    static IllegalStateException unreachable(String zookeeper, Duration timeout, Throwable cause) {
        return new IllegalStateException("cannot reach ZooKeeper at " + zookeeper + " within " + timeout.toMillis()
                + " ms (is it running, and is the address right?)", cause);
    }
}
