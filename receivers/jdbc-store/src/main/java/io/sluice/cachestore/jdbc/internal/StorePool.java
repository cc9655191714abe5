package io.sluice.cachestore.jdbc.internal;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import io.sluice.CacheStoreException;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

/**
 * The store's connections and how a call runs on one: a fixed-size HikariCP pool, each call one transaction
 * (one statement, or several in an explicit one), transient failures ({@link TransientErrors}) retried with
 * exponential backoff and jitter (Resilience4j), the final failure wrapped with the keys. Thread-safe.
 */
public final class StorePool implements AutoCloseable {

    private final String table;
    private final HikariDataSource pool;
    private final Retry retry;
    /** Told of a connection whose transaction was rolled back (what it created may be undone). */
    private final Consumer<Connection> rolledBack;

    /** What the pool and the retries are made from (the store's config). */
    public record Settings(String jdbcUrl, String username, String password, String table, int poolSize,
                           Duration connectionTimeout, int retryAttempts, Duration retryBackoff) {
    }

    /**
     * Opens the pool, failing if the database cannot be reached within the connection timeout.
     *
     * @param rolledBack told of each connection whose multi-statement transaction failed and was rolled back
     */
    public StorePool(Settings config, String cacheName, Consumer<Connection> rolledBack) {
        this.table = config.table();
        this.rolledBack = rolledBack;
        this.retry = Retry.of("sluice-store-" + cacheName, RetryConfig.custom()
                .maxAttempts(config.retryAttempts())
                .intervalFunction(IntervalFunction.ofExponentialRandomBackoff(config.retryBackoff(), 2.0, 0.5))
                .retryOnException(TransientErrors::isTransient)
                .failAfterMaxAttempts(false)
                .build());
        HikariConfig hc = new HikariConfig();
        hc.setPoolName("sluice-store-" + cacheName);
        hc.setJdbcUrl(config.jdbcUrl());
        hc.setUsername(config.username());
        hc.setPassword(config.password());
        // A fixed-size pool (HikariCP's advice): no connection churn under a steady load.
        hc.setMaximumPoolSize(config.poolSize());
        hc.setMinimumIdle(config.poolSize());
        // One statement is its own transaction (no BEGIN/COMMIT round trips); multi-statement work opens one.
        hc.setAutoCommit(true);
        hc.setConnectionTimeout(config.connectionTimeout().toMillis());
        hc.setValidationTimeout(Math.min(config.connectionTimeout().toMillis(), 5_000));
        hc.setKeepaliveTime(120_000);
        hc.addDataSourceProperty("reWriteBatchedInserts", "true");
        this.pool = new HikariDataSource(hc);
    }

    /** Work on one connection. */
    @FunctionalInterface
    public interface SqlWork<T> {
        T run(Connection c) throws Exception;
    }

    /**
     * Runs the work in one transaction (one statement, or several in an explicit one), retrying transient
     * failures.
     *
     * @throws CacheStoreException naming {@code what} and the involved keys once the work failed for good
     */
    public <T> T inTransaction(String what, List<?> involved, boolean multiStatement, SqlWork<T> work)
            throws CacheStoreException {
        try {
            return retry.executeCallable(() -> {
                try (Connection c = pool.getConnection()) {
                    if (!multiStatement) {
                        return work.run(c);
                    }
                    c.setAutoCommit(false); // the pool sets it back when the connection returns
                    try {
                        T result = work.run(c);
                        c.commit();
                        return result;
                    } catch (Exception e) {
                        rollbackQuietly(c, e);
                        rolledBack.accept(c);
                        throw e;
                    }
                }
            });
        } catch (CacheStoreException e) {
            throw e;
        } catch (Exception e) {
            throw new CacheStoreException(what, involved, e);
        }
    }

    private static void rollbackQuietly(Connection c, Exception failure) {
        try {
            c.rollback();
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
    }

    /** Closes the pool; calls after this fail. */
    @Override
    public void close() {
        pool.close();
    }

    @Override
    public String toString() {
        return "StorePool{" + table + '}';
    }
}
