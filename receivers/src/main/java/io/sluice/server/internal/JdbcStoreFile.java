package io.sluice.server.internal;

import io.sluice.CacheStore;
import io.sluice.cachestore.jdbc.JdbcCacheStore;
import io.sluice.cachestore.jdbc.JdbcStoreConfig;

import java.time.Duration;
import java.util.function.Supplier;

import static io.sluice.server.internal.StoreFileConfig.constant;
import static io.sluice.server.internal.StoreFileConfig.set;

/**
 * The one class of the node that touches the JDBC store (module {@code sluice-jdbc-store}): the file's
 * {@code stores.<name>.jdbc} settings made into a {@link JdbcStoreConfig} and the store's factory. The node
 * depends on that module as optional: it is in {@code sluice-node.jar} but not on an embedding application's
 * class path, so nothing else refers to it, and this class is loaded only when a file configures a JDBC store.
 */
final class JdbcStoreFile {

    private JdbcStoreFile() {
    }

    /**
     * The factory of the JDBC store the settings describe.
     *
     * @throws IllegalArgumentException naming the key of a missing or bad value
     * @throws NoClassDefFoundError if the JDBC store is not on the class path
     */
    static Supplier<? extends CacheStore<?, ?>> factory(String key, StoreFileConfig.JdbcEntry e) {
        JdbcStoreConfig config = config(key, e);
        return () -> new JdbcCacheStore(config);
    }

    /** The store's config. @throws IllegalArgumentException naming the key of a missing or bad value */
    static JdbcStoreConfig config(String key, StoreFileConfig.JdbcEntry e) {
        if (e.url() == null || e.url().isBlank()) {
            throw new IllegalArgumentException("key '" + key + ".url' is missing; the JDBC store needs a"
                    + " jdbc:postgresql: URL");
        }
        JdbcStoreConfig.Builder b = set(key + ".url", e.url(), JdbcStoreConfig::builder);
        set(key + ".username", e.username(), b::username);
        set(key + ".password", e.password(), b::password);
        set(key + ".table", e.table(), b::table);
        set(key + ".keyColumn", e.keyColumn(), b::keyColumn);
        set(key + ".keyType", e.keyType(),
                v -> b.keyType(constant(key + ".keyType", v, JdbcStoreConfig.KeyType.class)));
        set(key + ".valueColumn", e.valueColumn(), b::valueColumn);
        set(key + ".jsonValues", e.jsonValues(), b::jsonValues);
        set(key + ".createTable", e.createTable(), b::createTable);
        set(key + ".maxBatchSize", e.maxBatchSize(), b::maxBatchSize);
        set(key + ".copyThreshold", e.copyThreshold(), b::copyThreshold);
        set(key + ".batchStatement", e.batchStatement(),
                v -> b.batchStatement(constant(key + ".batchStatement", v,
                        JdbcStoreConfig.BatchStatement.class)));
        set(key + ".poolSize", e.poolSize(), b::poolSize);
        set(key + ".concurrentBatches", e.concurrentBatches(), b::concurrentBatches);
        set(key + ".connectionTimeoutMillis", e.connectionTimeoutMillis(),
                v -> b.connectionTimeout(Duration.ofMillis(v)));
        set(key + ".retryAttempts", e.retryAttempts(), b::retryAttempts);
        set(key + ".retryBackoffMillis", e.retryBackoffMillis(), v -> b.retryBackoff(Duration.ofMillis(v)));
        return b.build();
    }
}
