package io.sluice;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * How a cache is laid out: its name, its number of partitions, the {@link CacheStore} behind it, if any,
 * its copies in a cluster (backups, write sync mode, reads from backups) and the indexes on its values' fields.
 * Immutable: every {@code with}/{@code index} method returns a copy.
 *
 * <pre>{@code CacheConfig.named("orders").withPartitions(512).withStore(CacheStoreConfig.writeThrough("pg"))
 *     .withBackups(1).withWriteSync(WriteSyncMode.FULL_SYNC).index("secCode").index("account", "price")}</pre>
 */
public final class CacheConfig {

    /** Partitions of a cache unless set otherwise. */
    public static final int DEFAULT_PARTITIONS = 1024;
    /** The most partitions a cache may have. */
    public static final int MAX_PARTITIONS = 65_536;

    private final String name;
    private final int partitions;
    /** The most backups a cache may have. */
    public static final int MAX_BACKUPS = 3;

    /** The store behind the cache, or null. */
    private final CacheStoreConfig store;
    private final int backups;
    private final WriteSyncMode writeSync;
    private final boolean readFromBackup;
    /** Each index's fields, in declaration order (unmodifiable lists). */
    private final List<List<String>> indexes;

    private CacheConfig(String name, int partitions, CacheStoreConfig store, int backups, WriteSyncMode writeSync,
                        boolean readFromBackup, List<List<String>> indexes) {
        this.name = name;
        this.partitions = partitions;
        this.store = store;
        this.backups = backups;
        this.writeSync = writeSync;
        this.readFromBackup = readFromBackup;
        this.indexes = indexes;
    }

    /**
     * A config with the given name and {@value #DEFAULT_PARTITIONS} partitions.
     *
     * @throws NullPointerException if name is null
     * @throws IllegalArgumentException if name is blank
     */
    public static CacheConfig named(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("cache name must not be blank");
        }
        return new CacheConfig(name, DEFAULT_PARTITIONS, null, 0, WriteSyncMode.PRIMARY_SYNC, false, List.of());
    }

    /**
     * A copy with the given number of partitions.
     *
     * @throws IllegalArgumentException unless 1 &lt;= partitions &lt;= {@value #MAX_PARTITIONS}
     */
    public CacheConfig withPartitions(int partitions) {
        if (partitions < 1 || partitions > MAX_PARTITIONS) {
            throw new IllegalArgumentException("partitions is " + partitions
                    + "; it must be between 1 and " + MAX_PARTITIONS + " (CacheConfig.partitions)");
        }
        return new CacheConfig(name, partitions, store, backups, writeSync, readFromBackup, indexes);
    }

    /**
     * A copy backed by a cache store: the store's name must be registered on the node that creates
     * the cache ({@code NodeConfig.builder().store(name, factory)}); null removes the store. The store
     * is an embedded node's: a remote client's {@code createCache} does not carry it.
     */
    public CacheConfig withStore(CacheStoreConfig store) {
        return new CacheConfig(name, partitions, store, backups, writeSync, readFromBackup, indexes);
    }

    /**
     * A copy with this many backups: in a cluster, each partition of the cache is kept on its primary and on this
     * many other nodes (as many as the cluster has), which take over when the primary is lost. Ignored by a
     * standalone node. Default 0: a node's loss loses its partitions' entries until it comes back.
     *
     * @throws IllegalArgumentException unless 0 &lt;= backups &lt;= {@value #MAX_BACKUPS}
     */
    public CacheConfig withBackups(int backups) {
        if (backups < 0 || backups > MAX_BACKUPS) {
            throw new IllegalArgumentException("backups is " + backups + "; it must be between 0 and " + MAX_BACKUPS
                    + " (CacheConfig.backups)");
        }
        return new CacheConfig(name, partitions, store, backups, writeSync, readFromBackup, indexes);
    }

    /**
     * A copy whose writes are acknowledged per this mode (default {@link WriteSyncMode#PRIMARY_SYNC}); it matters
     * only with backups.
     *
     * @throws NullPointerException if mode is null
     */
    public CacheConfig withWriteSync(WriteSyncMode mode) {
        Objects.requireNonNull(mode, "writeSync");
        return new CacheConfig(name, partitions, store, backups, mode, readFromBackup, indexes);
    }

    /**
     * A copy whose scans may read a partition from a backup instead of its primary (default false: from the
     * primary). A backup may lag its primary by the writes not yet acknowledged under {@code PRIMARY_SYNC} or
     * {@code FULL_ASYNC}.
     */
    public CacheConfig withReadFromBackup(boolean readFromBackup) {
        return new CacheConfig(name, partitions, store, backups, writeSync, readFromBackup, indexes);
    }

    /**
     * A copy with one more index: on one field, or on several (composite, ascending, in the given order), of the
     * cache's binary-object values. Entries whose value lacks the (first) field or is not a binary object are not
     * in the index. Query it with {@code Cache.query(IndexQuery.on(fields...)...)}.
     *
     * @throws NullPointerException if fields or one of them is null
     * @throws IllegalArgumentException if no field is given, a field is blank or repeated, or the same index is
     *     already declared
     */
    public CacheConfig index(String... fields) {
        Objects.requireNonNull(fields, "fields");
        if (fields.length == 0) {
            throw new IllegalArgumentException("an index needs at least one field (CacheConfig.index)");
        }
        List<String> list = new ArrayList<>(fields.length);
        for (String field : fields) {
            Objects.requireNonNull(field, "field");
            if (field.isBlank()) {
                throw new IllegalArgumentException("an index field must not be blank (CacheConfig.index)");
            }
            if (list.contains(field)) {
                throw new IllegalArgumentException("field " + field + " is repeated in index " + List.of(fields));
            }
            list.add(field);
        }
        List<String> index = Collections.unmodifiableList(list);
        if (indexes.contains(index)) {
            throw new IllegalArgumentException("index " + index + " is already declared on cache " + name);
        }
        List<List<String>> all = new ArrayList<>(indexes);
        all.add(index);
        return new CacheConfig(name, partitions, store, backups, writeSync, readFromBackup,
                Collections.unmodifiableList(all));
    }

    /** Backups per partition in a cluster (0: none). */
    public int backups() {
        return backups;
    }

    public WriteSyncMode writeSync() {
        return writeSync;
    }

    public boolean readFromBackup() {
        return readFromBackup;
    }

    /** The declared indexes, each as its fields in order (unmodifiable). */
    public List<List<String>> indexes() {
        return indexes;
    }

    /** The store behind the cache, or {@code null} if there is none. */
    public CacheStoreConfig store() {
        return store;
    }

    public String name() {
        return name;
    }

    public int partitions() {
        return partitions;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CacheConfig c && c.name.equals(name) && c.partitions == partitions
                && Objects.equals(c.store, store) && c.backups == backups && c.writeSync == writeSync
                && c.readFromBackup == readFromBackup && c.indexes.equals(indexes);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, partitions, store, backups, writeSync, readFromBackup, indexes);
    }

    @Override
    public String toString() {
        return "CacheConfig{name=" + name + ", partitions=" + partitions + (store != null ? ", store=" + store : "")
                + (backups > 0 ? ", backups=" + backups + ", writeSync=" + writeSync : "")
                + (readFromBackup ? ", readFromBackup" : "") + (indexes.isEmpty() ? "" : ", indexes=" + indexes) + '}';
    }
}
