/**
 * Internals of the JDBC cache store: the SQL it runs ({@link io.sluice.store.jdbc.internal.StoreSql}),
 * how a key binds to its column ({@link io.sluice.store.jdbc.internal.KeyBinder}), the binary COPY
 * stream ({@link io.sluice.store.jdbc.internal.CopyRows}) and which errors are worth a retry
 * ({@link io.sluice.store.jdbc.internal.TransientErrors}). May change without notice.
 */
package io.sluice.store.jdbc.internal;
