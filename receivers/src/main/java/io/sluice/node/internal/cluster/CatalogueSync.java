package io.sluice.node.internal.cluster;

import io.sluice.CacheConfig;
import io.sluice.CacheNotFoundException;
import io.sluice.cluster.internal.ClusterCatalogue;
import io.sluice.node.internal.ExistingCacheCheck;
import io.sluice.node.internal.NodeCache;
import io.sluice.node.internal.NodeEngine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The cluster's caches on this node: the catalogue in ZooKeeper is the truth, and the node's caches follow it.
 * Creating or destroying a cache on a member goes through the catalogue first ({@link #create}, {@link #destroy});
 * every member applies each change ({@link #apply}). Every cache of a cluster has the cluster's partition count.
 *
 * <p>One lock orders this node's own changes against applying the catalogue, and {@link #apply} reads the catalogue
 * afresh under it, so a change notification that was read before this node's own change cannot undo it.
 */
final class CatalogueSync {

    private static final Logger LOG = LoggerFactory.getLogger(CatalogueSync.class);

    private final NodeEngine node;
    private final ClusterCatalogue catalogue;
    private final int partitions;
    private final Object lock = new Object();

    CatalogueSync(NodeEngine node, ClusterCatalogue catalogue, int partitions) {
        this.node = node;
        this.catalogue = catalogue;
        this.partitions = partitions;
    }

    /**
     * The config with the cluster's partition count: {@link CacheConfig#DEFAULT_PARTITIONS} becomes it.
     *
     * @throws IllegalArgumentException if the config asks for another count
     */
    CacheConfig withClusterPartitions(CacheConfig config) {
        if (config.partitions() == partitions) {
            return config;
        }
        if (config.partitions() == CacheConfig.DEFAULT_PARTITIONS) {
            return config.withPartitions(partitions);
        }
        throw new IllegalArgumentException("cache '" + config.name() + "' asks for " + config.partitions()
                + " partitions; every cache of this cluster has the cluster's " + partitions
                + " (leave CacheConfig.partitions at its default)");
    }

    /**
     * On joining: the caches this node's config declares and the catalogue lacks are added to it; every other
     * local cache the catalogue lacks was destroyed in the cluster while this node was away and goes; then the
     * catalogue is applied.
     */
    void join() {
        synchronized (lock) {
            Map<String, byte[]> caches = catalogue.caches();
            Set<String> declared = new HashSet<>();
            for (CacheConfig c : node.config().caches()) {
                declared.add(c.name());
                if (!caches.containsKey(c.name())) {
                    catalogue.putCacheIfAbsent(c.name(), CacheDescription.encode(withClusterPartitions(c)));
                } else if (!ExistingCacheCheck.sameOptions(CacheDescription.decode(caches.get(c.name())), c)) {
                    LOG.warn("cache '{}' is declared by this node's config as {}, but the cluster has it as {}: the"
                            + " cluster's options hold (a cache's options are fixed when it is created)", c.name(), c,
                            CacheDescription.decode(caches.get(c.name())));
                }
            }
            for (String name : node.cacheNames()) {
                if (!caches.containsKey(name) && !declared.contains(name)) {
                    LOG.info("cache '{}' was destroyed in the cluster while this node was away: destroying it here",
                            name);
                    node.destroyCache(name);
                }
            }
            apply();
        }
    }

    /** Makes the node's caches the catalogue's: missing ones created, ones it lacks destroyed. */
    void apply() {
        synchronized (lock) {
            Map<String, byte[]> caches = catalogue.caches();
            for (Map.Entry<String, byte[]> e : caches.entrySet()) {
                try {
                    ensureLocal(CacheDescription.decode(e.getValue()));
                } catch (RuntimeException failed) {
                    LOG.error("cache '{}' of the cluster's catalogue cannot be created on this node: {}", e.getKey(),
                            failed.toString());
                }
            }
            for (String name : node.cacheNames()) {
                if (!caches.containsKey(name)) {
                    LOG.info("cache '{}' was destroyed in the cluster: destroying it here", name);
                    node.destroyCache(name);
                }
            }
        }
    }

    /**
     * The cache as described, created here if missing, re-created if it has another partition count, given the
     * cluster's options if it has others (the catalogue is the truth).
     */
    private NodeCache<Object, Object> ensureLocal(CacheConfig config) {
        NodeCache<Object, Object> existing = localOrNull(config.name());
        if (existing != null && existing.partitions() != config.partitions()) {
            LOG.warn("cache '{}' has {} partitions on this node and {} in the cluster: this node's copy is destroyed"
                    + " and the cache created with the cluster's count", config.name(), existing.partitions(),
                    config.partitions());
            node.destroyCache(config.name());
        } else if (existing != null && !ExistingCacheCheck.sameOptions(existing.config(), config)) {
            LOG.warn("cache '{}' is {} on this node and {} in the cluster: this node's copy takes the cluster's"
                    + " options", config.name(), existing.config(), config);
            node.adoptOptions(config);
        }
        node.getOrCreateCache(config);
        return node.nodeCache(config.name());
    }

    private NodeCache<Object, Object> localOrNull(String name) {
        try {
            return node.nodeCache(name);
        } catch (CacheNotFoundException absent) {
            return null;
        }
    }

    /**
     * Creates a cache in the cluster: written to the catalogue, then created here (the other members create it
     * when they see the change).
     *
     * @param ifAbsent false to refuse a cache the cluster has already
     * @return the cache on this node (the cluster's, if one existed: its config may differ from the one asked for)
     * @throws IllegalArgumentException if the config asks for another partition count than the cluster's
     * @throws IllegalStateException    if {@code ifAbsent} is false and the cluster has the cache, or it has the
     *                                  cache with other options ({@link ExistingCacheCheck})
     */
    NodeCache<Object, Object> create(CacheConfig config, boolean ifAbsent) {
        CacheConfig cluster = withClusterPartitions(config);
        byte[] description = CacheDescription.encode(cluster);
        synchronized (lock) {
            byte[] existing = catalogue.caches().get(cluster.name());
            if (existing != null && !ifAbsent) {
                throw new IllegalStateException("cache '" + cluster.name() + "' already exists in the cluster (with "
                        + CacheDescription.decode(existing).partitions() + " partitions); use Sluice.cache(name) or"
                        + " getOrCreateCache(config)");
            }
            byte[] stored = existing != null ? existing : catalogue.putCacheIfAbsent(cluster.name(), description);
            CacheConfig inCluster = CacheDescription.decode(stored);
            ExistingCacheCheck.requireSameOptions(inCluster, cluster, "the cluster");
            return ensureLocal(inCluster);
        }
    }

    /**
     * The cache on this node; one the catalogue has and this node has not created yet (the change notification is
     * on its way) is created now.
     *
     * @throws CacheNotFoundException if neither has it
     */
    NodeCache<Object, Object> cache(String name) {
        NodeCache<Object, Object> local = localOrNull(name);
        if (local != null) {
            return local;
        }
        synchronized (lock) {
            byte[] description = catalogue.caches().get(name);
            if (description == null) {
                throw new CacheNotFoundException(name);
            }
            return ensureLocal(CacheDescription.decode(description));
        }
    }

    /**
     * Destroys a cache in the cluster: removed from the catalogue, then here (the others follow).
     *
     * @return true if the cluster or this node had it
     */
    boolean destroy(String name) {
        synchronized (lock) {
            boolean inCluster = catalogue.removeCache(name);
            boolean here = node.destroyCache(name);
            return inCluster || here;
        }
    }
}
