package io.sluice;

import java.util.Objects;

/**
 * How a cache is laid out: its name and its number of partitions.
 *
 * <pre>{@code CacheConfig.named("orders").withPartitions(512)}</pre>
 */
public final class CacheConfig {

    /** Partitions of a cache unless set otherwise. */
    public static final int DEFAULT_PARTITIONS = 1024;
    /** The most partitions a cache may have. */
    public static final int MAX_PARTITIONS = 65_536;

    private final String name;
    private final int partitions;

    private CacheConfig(String name, int partitions) {
        this.name = name;
        this.partitions = partitions;
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
        return new CacheConfig(name, DEFAULT_PARTITIONS);
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
        return new CacheConfig(name, partitions);
    }

    public String name() {
        return name;
    }

    public int partitions() {
        return partitions;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CacheConfig c && c.name.equals(name) && c.partitions == partitions;
    }

    @Override
    public int hashCode() {
        return name.hashCode() * 31 + partitions;
    }

    @Override
    public String toString() {
        return "CacheConfig{name=" + name + ", partitions=" + partitions + '}';
    }
}
