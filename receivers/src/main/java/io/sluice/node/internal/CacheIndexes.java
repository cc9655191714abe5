package io.sluice.node.internal;

import io.sluice.CacheConfig;
import io.sluice.IndexNotFoundException;
import io.sluice.pagestore.internal.PartitionStore;
import io.sluice.pagestore.internal.index.IndexSpec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;

/**
 * A cache's field indexes: their ids, which are built, and the config that lists them. Ids are given in declaration
 * order when the cache is made (or recovered: indexes are derived data, created on the partitions before they are
 * loaded, so the load and the log's replay fill them) and to later indexes after the largest so far, never reused
 * while the node runs. An index added to a cache that already exists ({@link #add}) is built partition by partition
 * on a thread of its own, each partition under its write lock; queries on it fail until every partition has it.
 * Thread-safe (its state changes under its own monitor).
 */
final class CacheIndexes {

    private static final Logger LOG = LoggerFactory.getLogger(CacheIndexes.class);

    /** One index and how far its build is. */
    static final class Index {
        final IndexSpec spec;
        /** Partitions that have it (all of them once built). */
        volatile int built;
        /** Why the build stopped, or null. */
        volatile String failed;
        /** Set (under this object's monitor) when the index is dropped: the build creates it on no more partitions. */
        boolean dropped;

        Index(IndexSpec spec, int built) {
            this.spec = spec;
            this.built = built;
        }
    }

    /** The config without indexes (this class lists them). */
    private final CacheConfig base;
    private final int partitions;
    private List<Index> indexes = List.of();
    private int nextId;

    private CacheIndexes(CacheConfig config) {
        this.base = withoutIndexes(config);
        this.partitions = config.partitions();
    }

    /**
     * The indexes a cache is made with, created on its (empty or about to be loaded) partitions.
     *
     * @throws io.sluice.DataRegionFullException if the region has no room for them
     */
    static CacheIndexes create(CacheConfig config, PartitionStore[] stores) {
        CacheIndexes all = new CacheIndexes(config);
        List<Index> list = new ArrayList<>();
        for (List<String> fields : config.indexes()) {
            IndexSpec spec = new IndexSpec(all.nextId++, fields);
            for (PartitionStore store : stores) {
                store.createIndex(spec);
            }
            list.add(new Index(spec, stores.length));
        }
        all.indexes = List.copyOf(list);
        return all;
    }

    /** The cache's config with the indexes it has now (building ones included), in declaration order. */
    synchronized CacheConfig config() {
        CacheConfig c = base;
        for (Index i : indexes) {
            c = c.index(i.spec.fields().toArray(String[]::new));
        }
        return c;
    }

    /** The fields of each index, in declaration order. */
    synchronized List<List<String>> declared() {
        List<List<String>> list = new ArrayList<>(indexes.size());
        for (Index i : indexes) {
            list.add(i.spec.fields());
        }
        return list;
    }

    /**
     * The index on these fields, ready to be read.
     *
     * @throws IndexNotFoundException if there is none
     * @throws IllegalStateException if it is still being built (saying how far), or its build failed
     */
    IndexSpec readable(List<String> fields) {
        Index index = find(fields);
        if (index == null) {
            throw IndexNotFoundException.of(base.name(), fields, declared());
        }
        if (index.failed != null) {
            throw new IllegalStateException("index " + fields + " of cache '" + base.name() + "' could not be built: "
                    + index.failed + "; destroy it (Cache.destroyIndex) and declare it again");
        }
        int built = index.built;
        if (built < partitions) {
            throw new IllegalStateException("index " + fields + " of cache '" + base.name() + "' is being built from"
                    + " the cache's entries: " + built + " of " + partitions + " partitions done; query it once it is"
                    + " ready");
        }
        return index.spec;
    }

    private synchronized Index find(List<String> fields) {
        for (Index i : indexes) {
            if (i.spec.fields().equals(fields)) {
                return i;
            }
        }
        return null;
    }

    /**
     * Adds the indexes of {@code wanted} this cache lacks, each built on a thread of its own.
     *
     * @param stores the cache's partitions (the owner's, not a view)
     * @return the indexes added
     */
    List<IndexSpec> add(List<List<String>> wanted, IntFunction<PartitionStore> stores) {
        List<Index> added = new ArrayList<>();
        synchronized (this) {
            List<Index> list = new ArrayList<>(indexes);
            for (List<String> fields : wanted) {
                if (find(fields) == null && added.stream().noneMatch(i -> i.spec.fields().equals(fields))) {
                    Index index = new Index(new IndexSpec(nextId++, fields), 0);
                    added.add(index);
                    list.add(index);
                }
            }
            indexes = List.copyOf(list);
        }
        for (Index index : added) {
            Thread t = new Thread(() -> build(index, stores), "sluice-index-build-" + base.name() + "-" + index.spec.id());
            t.setDaemon(true);
            t.start();
        }
        return added.stream().map(i -> i.spec).toList();
    }

    /** Creates the index on each partition in turn (each fill holds that partition's write lock). */
    private void build(Index index, IntFunction<PartitionStore> stores) {
        long start = System.nanoTime();
        try {
            for (int p = 0; p < partitions; p++) {
                synchronized (index) { // not while drop runs: a partition built after its drop would keep the index
                    if (index.dropped) {
                        return;
                    }
                    stores.apply(p).createIndex(index.spec);
                }
                index.built = p + 1;
            }
            LOG.info("index {} of cache '{}' built on {} partitions in {} ms", index.spec.fields(), base.name(),
                    partitions, (System.nanoTime() - start) / 1_000_000);
        } catch (RuntimeException | Error e) {
            index.failed = e.toString();
            if (!index.dropped) {
                LOG.warn("building index {} of cache '{}' failed", index.spec.fields(), base.name(), e);
            }
        }
    }

    /**
     * Drops the index on these fields from every partition.
     *
     * @return false if there was none
     */
    boolean drop(List<String> fields, IntFunction<PartitionStore> stores) {
        Index index;
        synchronized (this) {
            index = find(fields);
            if (index == null) {
                return false;
            }
            List<Index> list = new ArrayList<>(indexes);
            list.remove(index);
            indexes = List.copyOf(list);
        }
        synchronized (index) {
            index.dropped = true;
            for (int p = 0; p < partitions; p++) {
                stores.apply(p).dropIndex(index.spec.id());
            }
        }
        return true;
    }

    /** A copy of the config without its indexes. */
    private static CacheConfig withoutIndexes(CacheConfig c) {
        return CacheConfig.named(c.name()).withPartitions(c.partitions()).withStore(c.store())
                .withBackups(c.backups()).withWriteSync(c.writeSync()).withReadFromBackup(c.readFromBackup());
    }
}
