package io.sluice.pagestore.internal;

/** How {@link PartitionStore#applyBatch} treats keys that are already present. */
public enum BatchMode {
    /** A present key keeps its value (the isolated receiver). */
    INSERT_IF_ABSENT,
    /** A present key gets the batch's value (the batched receiver). */
    UPSERT
}
