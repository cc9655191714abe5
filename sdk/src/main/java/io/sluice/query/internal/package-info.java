/**
 * Index queries' machinery shared by the node and the client: {@link io.sluice.query.internal.IndexBounds} (a query's
 * values encoded into the byte bounds an index tree takes), {@link io.sluice.query.internal.IndexEntries} (entries in
 * index order), {@link io.sluice.query.internal.PagedIndexEntries} (one source read a page at a time: a partition, or
 * a node over the network), {@link io.sluice.query.internal.IndexMerge} (many sources merged by index key: the
 * partitions of a node, the nodes of a cluster) and {@link io.sluice.query.internal.IndexPage}.
 */
package io.sluice.query.internal;
