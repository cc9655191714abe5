package io.sluice.cluster.internal;

import java.util.Map;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * The cluster-wide catalogue in ZooKeeper: the caches (by name, each with its description as the node encodes it)
 * and the binary type metadata, so that a cache created or a type registered through one node exists on all, and
 * a node that joins later learns them.
 */
public interface ClusterCatalogue {

    /** Adds a cache unless one with the name exists; returns the description now stored (the existing one if any). */
    byte[] putCacheIfAbsent(String name, byte[] description);

    /** Removes a cache; true if it was there. */
    boolean removeCache(String name);

    /** The caches now: name to description. */
    Map<String, byte[]> caches();

    /** Called with the whole catalogue of caches after each change (also ones this node made), on a ZooKeeper thread. */
    void onCachesChange(Consumer<Map<String, byte[]>> listener);

    /** The cluster's binary type metadata (the {@code exportTypes} form), empty if none yet. */
    byte[] types();

    /**
     * Merges into the cluster's type metadata: {@code merge} gets the stored metadata and returns the new one; retried
     * on a concurrent change, so it may run more than once.
     */
    void updateTypes(UnaryOperator<byte[]> merge);

    /** Called with the cluster's type metadata after each change, on a ZooKeeper thread. */
    void onTypesChange(Consumer<byte[]> listener);
}
