package io.sluice.node.internal;

import io.sluice.pagestore.internal.DataRegion;
import io.sluice.pagestore.internal.PartitionStore;

/**
 * An apply thread that has had no batch for {@link StripedExecutor#SETTLE_MILLIS} applies the index changes its
 * partitions hold ({@link io.sluice.pagestore.internal.index.HeldIndexChanges}): one partition a step, the one whose
 * index holds the most first, under the partition's write lock as a query would
 * ({@link io.sluice.pagestore.internal.PartitionIndexAccess#applyHeld}). So a load too short for the threshold does not leave its index
 * changes (and their arrays) held until a query; a batch queued meanwhile waits for one partition's pass at most
 * ({@link StripedExecutor.IdleWork}).
 *
 * <p>Only once settled, not as soon as the queue is empty: the streamer's waves leave the apply threads idle for tens
 * of milliseconds between them, and applying then made each pass one batch's again (measured, 2026-11-27 11:32: with
 * no wait, or 50 ms, the indexed load spent as much CPU per entry as without held changes, and no wall clock was
 * gained). A stripe applies only its own partitions (those whose batches it applies), so it never waits for another
 * stripe's batch; nothing at all while the region holds nothing (one volatile read).
 */
final class HeldChangesIdleApply implements StripedExecutor.IdleWork {

    private final DataRegion region;
    private final CacheCatalogue catalogue;
    private final StripedExecutor stripes;

    HeldChangesIdleApply(DataRegion region, CacheCatalogue catalogue, StripedExecutor stripes) {
        this.region = region;
        this.catalogue = catalogue;
        this.stripes = stripes;
    }

    @Override
    public boolean step(int stripe, boolean settled) {
        if (!settled || region.heldIndexChangeBytes() == 0) {
            return false;
        }
        PartitionStore largest = null;
        int most = 0;
        int step = stripes.stripes();
        for (NodeCache<Object, Object> cache : catalogue.caches()) {
            int partitions = cache.partitions();
            for (int p = stripe; p < partitions; p += step) {
                PartitionStore store = cache.store(p);
                int held = store.index().heldChanges();
                if (held > most) {
                    most = held;
                    largest = store;
                }
            }
        }
        if (largest == null) {
            return false;
        }
        largest.index().applyHeld();
        // Still held: the partition was destroyed meanwhile (nothing applies); wait for a task rather than spin.
        return largest.index().heldChanges() == 0;
    }
}
