/**
 * Internal: the B+ tree of a partition (encoded key to row link), in page memory. In the order a
 * write meets them:
 * <ul>
 *   <li>{@link io.sluice.pagestore.internal.tree.BPlusTree}: the tree — its root, height, size and reserved
 *       pages; lookups, scans, single-key writes ({@code invoke}), inserts and their splits;</li>
 *   <li>{@link io.sluice.pagestore.internal.tree.PageReserve}: the empty pages an insert takes before it
 *       changes anything;</li>
 *   <li>{@link io.sluice.pagestore.internal.tree.TreeRemoval}: a removal, the merges it causes, and destroying
 *       the tree;</li>
 *   <li>{@link io.sluice.pagestore.internal.tree.TreePath}: one descent from the root to a leaf, as a value,
 *       kept by the writing thread;</li>
 *   <li>{@link io.sluice.pagestore.internal.tree.SortedWalk}: a sorted batch's pass over the tree (its path,
 *       position and queued inserts), reused by one thread;</li>
 *   <li>{@link io.sluice.pagestore.internal.tree.TreeBuilder}: an empty tree built bottom-up from ascending keys
 *       (a partition file's load);</li>
 *   <li>{@link io.sluice.pagestore.internal.tree.ItemSearch}: a key against a page's items (prefix compares,
 *       binary and interpolating searches);</li>
 *   <li>{@link io.sluice.pagestore.internal.tree.TreePageIO}: the leaf and inner page layout;</li>
 *   <li>{@link io.sluice.pagestore.internal.tree.LeafScan}: entries in key order, leaf after leaf.</li>
 * </ul>
 * May change without notice.
 */
package io.sluice.pagestore.internal.tree;
