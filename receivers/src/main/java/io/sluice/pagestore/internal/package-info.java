/**
 * Internal: the node's page-memory store — a {@link io.sluice.pagestore.internal.DataRegion} of pages
 * ({@code page}), the free list ({@code freelist}), one B+ tree per partition ({@code tree}) and
 * {@link io.sluice.pagestore.internal.PartitionStore}, which applies single operations and whole batches.
 * May change without notice. (The cache stores, a different thing, are {@code io.sluice.cachestore..}.)
 */
package io.sluice.pagestore.internal;
