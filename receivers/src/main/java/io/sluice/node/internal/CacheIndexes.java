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
 * A cache's field indexes on its partitions and how far each is built. Which indexes a cache has, and their ids, are
 * its options (the catalogue's, logged and checkpointed: {@code CacheOptionsWire}); this class makes the partitions
 * follow them ({@link #follow}). Indexes are derived data: they are created on a cache's partitions when it is made
 * or recovered, before the partitions are loaded, so the checkpoint's load and the log's replay fill them. An index
 * added to a cache that holds data is built on a thread of its own, partition by partition (each under its write
 * lock); queries on it fail with a message saying how far the build is until every partition has it.
 * Thread-safe: the list changes under this object's monitor, a build and a drop of one index under the index's.
 */
final class CacheIndexes {

    private static final Logger LOG = LoggerFactory.getLogger(CacheIndexes.class);

    /** One index and how far its build is. */
    private static final class Index {
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

    /** Changes a cache's declared indexes (its options, logged): what {@link #create} and {@link #destroy} ask. */
    @FunctionalInterface
    interface Declarations {
        /** @return false if there was nothing to change (the index exists already, or does not exist) */
        boolean change(List<String> fields, boolean add);
    }

    private final String cache;
    private final int partitions;
    private final IntFunction<PartitionStore> stores;
    private final Declarations declarations;
    private List<Index> indexes = List.of();

    /**
     * @param stores       the cache's partitions (the owner's, not a skip-store view)
     * @param declarations where the cache's declared indexes change (the catalogue)
     */
    CacheIndexes(String cache, int partitions, IntFunction<PartitionStore> stores, Declarations declarations) {
        this.cache = cache;
        this.partitions = partitions;
        this.stores = stores;
        this.declarations = declarations;
    }

    /**
     * Declares a new index on these fields (logged with the cache's options); it is built in the background.
     *
     * @return false if the cache has that index already
     */
    boolean create(String... fields) {
        // Checked as a declaration is (CacheConfig.index: no field, a blank or repeated one are refused).
        return declarations.change(CacheConfig.named(cache).index(fields).indexes().get(0), true);
    }

    /**
     * Drops the index on these fields (logged with the cache's options).
     *
     * @return false if the cache has no such index
     */
    boolean destroy(List<String> fields) {
        return declarations.change(List.copyOf(fields), false);
    }

    /**
     * Makes the partitions have exactly these indexes: drops those not listed (by id), creates the new ones, at
     * once (a cache being made or recovered: its partitions are empty, or not served yet) or on a build thread.
     *
     * @param fields each index's fields, in declaration order
     * @param ids    each index's id (same order)
     * @throws io.sluice.DataRegionFullException if the region has no room for an index created at once
     */
    void follow(List<List<String>> fields, List<Integer> ids, boolean inBackground) {
        List<Index> added = new ArrayList<>();
        List<Index> dropped = new ArrayList<>();
        synchronized (this) {
            List<Index> next = new ArrayList<>();
            for (int i = 0; i < fields.size(); i++) {
                Index have = byId(ids.get(i));
                if (have != null && have.spec.fields().equals(fields.get(i))) {
                    next.add(have);
                } else {
                    Index index = new Index(new IndexSpec(ids.get(i), fields.get(i)), 0);
                    added.add(index);
                    next.add(index);
                }
            }
            for (Index i : indexes) {
                if (!next.contains(i)) {
                    dropped.add(i);
                }
            }
            indexes = List.copyOf(next);
        }
        for (Index index : dropped) {
            drop(index);
        }
        for (Index index : added) {
            if (inBackground) {
                Thread t = new Thread(() -> build(index), "sluice-index-build-" + cache + "-" + index.spec.id());
                t.setDaemon(true);
                t.start();
            } else {
                for (int p = 0; p < partitions; p++) {
                    stores.apply(p).index().create(index.spec);
                }
                index.built = partitions;
            }
        }
    }

    private Index byId(int id) {
        for (Index i : indexes) {
            if (i.spec.id() == id) {
                return i;
            }
        }
        return null;
    }

    private synchronized Index find(List<String> fields) {
        for (Index i : indexes) {
            if (i.spec.fields().equals(fields)) {
                return i;
            }
        }
        return null;
    }

    /** Whether the cache has an index on these fields (built or being built). */
    boolean has(List<String> fields) {
        return find(fields) != null;
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
            throw IndexNotFoundException.of(cache, fields, declared());
        }
        if (index.failed != null) {
            throw new IllegalStateException("index " + fields + " of cache '" + cache + "' could not be built: "
                    + index.failed + "; destroy it (Cache.destroyIndex) and create it again");
        }
        int built = index.built;
        if (built < partitions) {
            throw new IllegalStateException("index " + fields + " of cache '" + cache + "' is being built from the"
                    + " cache's entries: " + built + " of " + partitions + " partitions done; query it once it is"
                    + " ready");
        }
        return index.spec;
    }

    /** Creates the index on each partition in turn (each fill holds that partition's write lock). */
    private void build(Index index) {
        long start = System.nanoTime();
        try {
            for (int p = 0; p < partitions; p++) {
                synchronized (index) { // not while a drop runs: a partition built after its drop would keep the index
                    if (index.dropped) {
                        return;
                    }
                    stores.apply(p).index().create(index.spec);
                }
                index.built = p + 1;
            }
            LOG.info("index {} of cache '{}' built on {} partitions in {} ms", index.spec.fields(), cache, partitions,
                    (System.nanoTime() - start) / 1_000_000);
        } catch (RuntimeException | Error e) {
            index.failed = e.toString();
            synchronized (index) {
                if (!index.dropped) {
                    LOG.warn("building index {} of cache '{}' failed", index.spec.fields(), cache, e);
                }
            }
        }
    }

    /** Drops an index from every partition (those a build has not reached yet have nothing to drop). */
    private void drop(Index index) {
        synchronized (index) {
            index.dropped = true;
            for (int p = 0; p < partitions; p++) {
                try {
                    stores.apply(p).index().drop(index.spec.id());
                } catch (IllegalStateException destroyed) {
                    return; // the cache was destroyed: its partitions' pages are gone with it
                }
            }
        }
    }
}
