/**
 * The built-in JDBC {@link io.sluice.CacheStore} for PostgreSQL: {@link io.sluice.store.jdbc.JdbcCacheStore},
 * configured by {@link io.sluice.store.jdbc.JdbcStoreConfig}. See {@code docs/cache-store.md}.
 */
package io.sluice.store.jdbc;
