package io.sluice;

/**
 * When a write to a cache with backups is acknowledged (Ignite's names). Whatever the mode, a write is applied
 * on the primary before it is on a backup, and every backup applies a partition's writes in the primary's order.
 */
public enum WriteSyncMode {
    /**
     * Once the primary and every live, caught-up backup have applied it (and made it durable per their log mode):
     * an acknowledged write survives the loss of any set of nodes smaller than the copies it was on.
     */
    FULL_SYNC,
    /**
     * Once the primary has applied it (durable per its log mode); backups get it after. A write acknowledged just
     * before its primary is lost may be missing from the backup that takes over.
     */
    PRIMARY_SYNC,
    /**
     * Once the primary has received it, before it is applied: the fastest, and a write acknowledged just before the
     * primary is lost may be missing everywhere.
     */
    FULL_ASYNC
}
