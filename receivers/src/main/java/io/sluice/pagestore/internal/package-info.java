/**
 * Internal: the node's page-memory store — a {@link io.sluice.pagestore.internal.DataRegion} of pages
 * ({@code page}), the free list ({@code freelist}), one B+ tree per partition ({@code tree}) and
 * {@link io.sluice.pagestore.internal.PartitionStore}, which applies single operations and whole batches and keeps the
 * partition's field indexes ({@code index}: one B+ tree of index rows per index, one sorted pass per index per batch).
 * May change without notice. (The cache stores, a different thing, are {@code io.sluice.cachestore..}.)
 */
package io.sluice.pagestore.internal;
