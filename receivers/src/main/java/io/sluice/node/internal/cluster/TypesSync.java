package io.sluice.node.internal.cluster;

import io.sluice.binary.internal.BinaryContext;
import io.sluice.cluster.internal.ClusterCatalogue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The cluster's binary types on this node: types this node learns (a client's PUT_TYPES, an embedded registration,
 * recovery) are merged into the catalogue's type metadata, and the catalogue's are imported here, so that an object
 * written through one member reads on every member. The catalogue holds the {@link BinaryContext#exportTypes} form;
 * merging imports the stored metadata here and exports the union.
 */
final class TypesSync {

    private static final Logger LOG = LoggerFactory.getLogger(TypesSync.class);

    private final BinaryContext binary;
    private final ClusterCatalogue catalogue;
    private final Executor background;
    private final AtomicBoolean requested = new AtomicBoolean();
    /** The node's types version the catalogue has all of (guarded by this). */
    private long published = -1;

    TypesSync(BinaryContext binary, ClusterCatalogue catalogue, Executor background) {
        this.binary = binary;
        this.catalogue = catalogue;
        this.background = background;
    }

    /** On joining: the cluster's types imported here, this node's merged into the cluster's. */
    synchronized void join() {
        importCluster(catalogue.types());
        publish();
    }

    /**
     * The node may have learnt types: merges them into the catalogue on the background thread (never blocks: the
     * server calls it on an event loop).
     */
    void learnedTypes() {
        if (binary.typesVersion() == publishedVersion()) {
            return;
        }
        if (requested.compareAndSet(false, true)) {
            background.execute(() -> {
                requested.set(false);
                try {
                    publish();
                } catch (RuntimeException e) {
                    LOG.warn("could not merge this node's binary types into the cluster's catalogue: {}", e.toString());
                }
            });
        }
    }

    private synchronized long publishedVersion() {
        return published;
    }

    /** Merges this node's types into the catalogue's unless it has them all already. */
    synchronized void publish() {
        long version = binary.typesVersion();
        if (version == published) {
            return;
        }
        catalogue.updateTypes(stored -> {
            importCluster(stored);
            return binary.exportTypes();
        });
        published = binary.typesVersion();
    }

    /** The catalogue's types changed: imports them here (on the background thread, not ZooKeeper's). */
    synchronized void clusterChanged(byte[] types) {
        boolean unpublished = binary.typesVersion() != published;
        importCluster(types);
        if (unpublished) {
            learnedTypes(); // merged in a task of its own
        } else {
            published = binary.typesVersion(); // what was imported came from the catalogue
        }
    }

    private void importCluster(byte[] types) {
        if (types != null && types.length > 0) {
            binary.importTypes(types);
        }
    }
}
