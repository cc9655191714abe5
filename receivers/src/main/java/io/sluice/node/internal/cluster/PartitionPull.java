package io.sluice.node.internal.cluster;

import io.sluice.CacheNotFoundException;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.client.internal.PartitionScanConnection;
import io.sluice.protocol.internal.ClusterMap;

import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/**
 * Copies one partition of some caches from another member into this node: this node's copy of those caches'
 * partition is cleared, then their entries are read page by page (PARTITION_SCAN, the next page asked for before
 * this one is applied) and applied in logged batches, and this returns once they are durable. For a takeover
 * ({@link PartitionTakeover}) and a backup catching up ({@link BackupReplication}). The caller holds the
 * partition's move lock.
 */
final class PartitionPull {

    /** Entries per PARTITION_SCAN page (the serving node caps it too). */
    static final int PAGE = 4096;

    /** What a pull moved. */
    record Moved(long entries, long bytes, long stale) {
    }

    /** The pull was given up because {@code cancelled} said so. */
    static final class Cancelled extends RuntimeException {
        Cancelled() {
            super("the pull was cancelled", null, false, false);
        }
    }

    private final LocalPartitions local;
    private final PartitionSource.Opener sources;

    PartitionPull(LocalPartitions local, PartitionSource.Opener sources) {
        this.local = local;
        this.sources = sources;
    }

    /**
     * @param caches    which of the node's caches to copy (by name)
     * @param cancelled asked between pages: true gives the pull up ({@link Cancelled}), leaving the copy partial
     * @throws Cancelled        if cancelled
     * @throws RuntimeException if the member could not be read (the copy is partial)
     */
    Moved pull(int partition, ClusterMap.Member from, Predicate<String> caches, BooleanSupplier cancelled) {
        long entries = 0;
        long bytes = 0;
        // Stale entries of an earlier time this node held the partition must not outlive the pull.
        long stale = local.clear(partition, caches);
        PartitionSource source = sources.open(from);
        GrowableBuffer scratch = new GrowableBuffer(64 * 1024);
        for (String cache : local.caches()) {
            if (!caches.test(cache)) {
                continue;
            }
            PartitionScanConnection.PendingPage pending = source.request(cache, partition, null, PAGE);
            while (pending != null) {
                if (cancelled.getAsBoolean()) {
                    throw new Cancelled();
                }
                PartitionScanConnection.Page page;
                try {
                    page = pending.get();
                } catch (CacheNotFoundException absent) {
                    break; // created after that member left it, or destroyed since: nothing of it to pull
                }
                List<byte[]> keysAndValues = page.keysAndValues();
                pending = page.more() && page.entries() > 0
                        ? source.request(cache, partition, keysAndValues.get(keysAndValues.size() - 2), PAGE)
                        : null;
                try {
                    bytes += local.apply(cache, partition, keysAndValues, scratch);
                } catch (CacheNotFoundException destroyed) {
                    break; // destroyed here meanwhile (a page asked for is left unread)
                }
                entries += page.entries();
            }
        }
        local.awaitDurable();
        return new Moved(entries, bytes, stale);
    }
}
