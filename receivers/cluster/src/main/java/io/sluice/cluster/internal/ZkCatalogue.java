package io.sluice.cluster.internal;

import org.apache.helix.zookeeper.api.client.HelixZkClient;
import org.apache.helix.zookeeper.zkclient.IZkChildListener;
import org.apache.helix.zookeeper.zkclient.IZkDataListener;
import org.apache.helix.zookeeper.zkclient.exception.ZkBadVersionException;
import org.apache.helix.zookeeper.zkclient.exception.ZkNodeExistsException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * The cluster catalogue in ZooKeeper: one znode per cache under {@link ClusterPaths#caches()} (its name
 * URL-encoded into one path segment, its description bytes as data) and one znode of type metadata
 * ({@link ClusterPaths#types()}) updated by compare-and-set on its version. ZooKeeper watches (re-armed by the
 * client, and fired again after a new session) call the listeners with the whole state read afresh, on the
 * client's event thread.
 */
// Helix 2 deprecates its single-ZooKeeper client API for the realm-aware (multi-ZooKeeper) one, which needs a routing
// service; Sluice runs on one ZooKeeper (ensemble), as Pinot does.
@SuppressWarnings("deprecation")
final class ZkCatalogue implements ClusterCatalogue, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ZkCatalogue.class);
    private static final byte[] NONE = new byte[0];

    private final HelixZkClient zk;
    private final ClusterPaths paths;
    private final List<Consumer<Map<String, byte[]>>> cacheListeners = new CopyOnWriteArrayList<>();
    private final List<Consumer<byte[]>> typeListeners = new CopyOnWriteArrayList<>();
    private final IZkChildListener cachesWatch = (parent, children) -> fireCaches();
    private final IZkDataListener typesWatch = new IZkDataListener() {
        @Override
        public void handleDataChange(String path, Object data) {
            fireTypes();
        }

        @Override
        public void handleDataDeleted(String path) {
            fireTypes();
        }
    };

    ZkCatalogue(HelixZkClient zk, ClusterPaths paths) {
        this.zk = zk;
        this.paths = paths;
        zk.createPersistent(paths.caches(), true);
        try {
            zk.createPersistent(paths.types(), NONE);
        } catch (ZkNodeExistsException e) {
            // another node made it
        }
        zk.subscribeChildChanges(paths.caches(), cachesWatch);
        zk.subscribeDataChanges(paths.types(), typesWatch);
    }

    @Override
    public byte[] putCacheIfAbsent(String name, byte[] description) {
        String path = cachePath(name);
        while (true) {
            try {
                zk.createPersistent(path, description);
                return description;
            } catch (ZkNodeExistsException e) {
                byte[] existing = zk.readData(path, true);
                if (existing != null) {
                    return existing;
                }
                // removed between the two calls: try again
            }
        }
    }

    @Override
    public boolean removeCache(String name) {
        return zk.delete(cachePath(name));
    }

    @Override
    public Map<String, byte[]> caches() {
        Map<String, byte[]> caches = new TreeMap<>();
        for (String child : zk.getChildren(paths.caches())) {
            byte[] description = zk.readData(paths.caches() + "/" + child, true);
            if (description != null) {
                caches.put(URLDecoder.decode(child, StandardCharsets.UTF_8), description);
            }
        }
        return Collections.unmodifiableMap(caches);
    }

    @Override
    public void onCachesChange(Consumer<Map<String, byte[]>> listener) {
        cacheListeners.add(listener);
    }

    @Override
    public byte[] types() {
        byte[] types = zk.readData(paths.types(), true);
        return types == null ? NONE : types;
    }

    @Override
    public void updateTypes(UnaryOperator<byte[]> merge) {
        while (true) {
            Stat stat = new Stat();
            byte[] stored = zk.readData(paths.types(), stat);
            stored = stored == null ? NONE : stored;
            byte[] merged = merge.apply(stored);
            if (Arrays.equals(merged, stored)) {
                return;
            }
            try {
                zk.writeData(paths.types(), merged, stat.getVersion());
                return;
            } catch (ZkBadVersionException e) {
                // another node updated them first: merge into theirs
            }
        }
    }

    @Override
    public void onTypesChange(Consumer<byte[]> listener) {
        typeListeners.add(listener);
    }

    /** Stops watching (the client is closed by its owner). */
    @Override
    public void close() {
        zk.unsubscribeChildChanges(paths.caches(), cachesWatch);
        zk.unsubscribeDataChanges(paths.types(), typesWatch);
    }

    private String cachePath(String name) {
        if (name.isEmpty()) {
            throw new IllegalArgumentException("a cache name is empty");
        }
        return paths.caches() + "/" + URLEncoder.encode(name, StandardCharsets.UTF_8);
    }

    private void fireCaches() {
        if (cacheListeners.isEmpty()) {
            return;
        }
        Map<String, byte[]> caches = caches();
        for (Consumer<Map<String, byte[]>> listener : cacheListeners) {
            try {
                listener.accept(caches);
            } catch (RuntimeException e) {
                LOG.warn("a cache catalogue listener failed", e);
            }
        }
    }

    private void fireTypes() {
        if (typeListeners.isEmpty()) {
            return;
        }
        byte[] types = types();
        for (Consumer<byte[]> listener : typeListeners) {
            try {
                listener.accept(types);
            } catch (RuntimeException e) {
                LOG.warn("a type metadata listener failed", e);
            }
        }
    }
}
