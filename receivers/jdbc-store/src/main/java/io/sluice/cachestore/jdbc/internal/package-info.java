/**
 * Internals of the JDBC cache store: the SQL it runs ({@link io.sluice.cachestore.jdbc.internal.StoreSql}),
 * how a key binds to its column ({@link io.sluice.cachestore.jdbc.internal.KeyBinder}), the binary COPY
 * stream ({@link io.sluice.cachestore.jdbc.internal.CopyRows}), rows as statement arrays
 * ({@link io.sluice.cachestore.jdbc.internal.RowArrays}), the pool and the transaction each call runs in
 * ({@link io.sluice.cachestore.jdbc.internal.StorePool}) and which errors are worth a retry
 * ({@link io.sluice.cachestore.jdbc.internal.TransientErrors}). May change without notice.
 */
package io.sluice.cachestore.jdbc.internal;
