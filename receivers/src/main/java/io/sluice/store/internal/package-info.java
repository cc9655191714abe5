/**
 * Internal: the node's page-memory store — a {@link io.sluice.store.internal.DataRegion} of pages
 * ({@code page}), the free list ({@code freelist}), one B+ tree per partition ({@code tree}) and
 * {@link io.sluice.store.internal.PartitionStore}, which applies single operations and whole batches.
 * May change without notice. ({@code io.sluice.store} itself is reserved for the public cache-store SPI.)
 */
package io.sluice.store.internal;
