package io.sluice;

import java.util.Objects;

/**
 * How a cache is laid out: its name, its number of partitions, and the {@link CacheStore} behind
 * it, if any.
 *
 * <pre>{@code CacheConfig.named("orders").withPartitions(512).withStore(CacheStoreConfig.writeThrough("pg"))}</pre>
 */
public final class CacheConfig {

    /** Partitions of a cache unless set otherwise. */
    public static final int DEFAULT_PARTITIONS = 1024;
    /** The most partitions a cache may have. */
    public static final int MAX_PARTITIONS = 65_536;

    private final String name;
    private final int partitions;
    /** The store behind the cache, or null. */
    private final CacheStoreConfig store;

    private CacheConfig(String name, int partitions, CacheStoreConfig store) {
        this.name = name;
        this.partitions = partitions;
        this.store = store;
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
        return new CacheConfig(name, DEFAULT_PARTITIONS, null);
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
        return new CacheConfig(name, partitions, store);
    }

    /**
     * A copy backed by a cache store: the store's name must be registered on the node that creates
     * the cache ({@code NodeConfig.builder().store(name, factory)}); null removes the store. The store
     * is an embedded node's: a remote client's {@code createCache} does not carry it.
     */
    public CacheConfig withStore(CacheStoreConfig store) {
        return new CacheConfig(name, partitions, store);
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
                && Objects.equals(c.store, store);
    }

    @Override
    public int hashCode() {
        return (name.hashCode() * 31 + partitions) * 31 + Objects.hashCode(store);
    }

    @Override
    public String toString() {
        return "CacheConfig{name=" + name + ", partitions=" + partitions + (store != null ? ", store=" + store : "") + '}';
    }
}
