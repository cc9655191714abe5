/**
 * The built-in JDBC {@link io.sluice.CacheStore} for PostgreSQL: {@link io.sluice.cachestore.jdbc.JdbcCacheStore},
 * configured by {@link io.sluice.cachestore.jdbc.JdbcStoreConfig}. See {@code docs/cache-store.md}.
 */
package io.sluice.cachestore.jdbc;
