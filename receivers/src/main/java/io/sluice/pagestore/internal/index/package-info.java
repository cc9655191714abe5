/**
 * Internal: field indexes of a partition. Per index a B+ tree in the partition's page memory whose key is the
 * index key (the indexed fields' stored bytes as the binary format encodes them, then the entry's key) and whose
 * value is the entry's row link; kept exact by every write path of
 * {@link io.sluice.pagestore.internal.PartitionStore}. May change without notice.
 */
package io.sluice.pagestore.internal.index;
