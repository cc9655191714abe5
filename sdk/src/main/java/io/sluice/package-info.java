/**
 * The Sluice API: the {@link io.sluice.Sluice} entry point, {@link io.sluice.Cache} to read and
 * write a cache, and {@link io.sluice.DataStreamer} to load one in bulk; the SPIs a node runs:
 * {@link io.sluice.StreamReceiver} (applies streamed batches) and {@link io.sluice.CacheStore} (the
 * database behind a cache, configured by {@link io.sluice.CacheStoreConfig}).
 *
 * <p>Everything in a package named {@code internal} may change without notice.
 */
package io.sluice;
