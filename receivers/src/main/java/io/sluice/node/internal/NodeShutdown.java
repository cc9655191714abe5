package io.sluice.node.internal;

import io.sluice.pagestore.internal.DataRegion;
import io.sluice.pagestore.internal.checkpoint.CheckpointDeferredException;
import io.sluice.pagestore.internal.checkpoint.Checkpointer;
import io.sluice.pagestore.internal.wal.WriteAheadLog;
import io.sluice.streamer.internal.StreamerRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Closes a started node's parts in the order that loses nothing: no new caches or streamers; the store retry
 * stops; the streamers flush and close; the apply threads finish what is queued (at most 30 s, then the rest is
 * abandoned: its futures fail); write-behind drains into the stores and they close; a last checkpoint; the log
 * closes (written and fsynced); the region is freed. The first close does it; later ones return at once.
 */
final class NodeShutdown {

    private static final Logger LOG = LoggerFactory.getLogger(NodeShutdown.class);

    /** How long the apply threads may take to finish batches already queued. */
    private static final long STOP_TIMEOUT_SECONDS = 30;

    private final NodeState state;
    private final CacheCatalogue catalogue;
    private final StoreReattachment reattachment;
    private final StreamerRegistry streamers;
    private final StripedExecutor stripes;
    /** Null without persistence. */
    private final Checkpointer checkpointer;
    private final RecoveredKeys recoveredKeys;
    /** Null without persistence. */
    private final WriteAheadLog wal;
    private final DataRegion region;
    private final NodeMetrics metrics;

    NodeShutdown(NodeState state, CacheCatalogue catalogue, StoreReattachment reattachment, StreamerRegistry streamers,
                 StripedExecutor stripes, Checkpointer checkpointer, RecoveredKeys recoveredKeys, WriteAheadLog wal,
                 DataRegion region, NodeMetrics metrics) {
        this.state = state;
        this.catalogue = catalogue;
        this.reattachment = reattachment;
        this.streamers = streamers;
        this.stripes = stripes;
        this.checkpointer = checkpointer;
        this.recoveredKeys = recoveredKeys;
        this.wal = wal;
        this.region = region;
        this.metrics = metrics;
    }

    /**
     * Closes the node.
     *
     * @throws io.sluice.StreamerException if flushing a streamer failed (or a store's close failed); the node is
     *                                     closed anyway
     * @throws IllegalStateException if called on an apply thread: it would wait for itself
     */
    void close() {
        if (stripes.isStripeThread()) {
            throw new IllegalStateException("node '" + state.nodeId() + "' cannot be closed from a receiver: close()"
                    + " waits for the apply threads, and this is one of them");
        }
        synchronized (catalogue.lock()) {
            if (!state.beginClosing()) {
                return;
            }
        }
        reattachment.close();
        RuntimeException failure = streamers.closeAll();
        stripes.stop(STOP_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        // Write-behind drains into the stores before they close; nothing writes to memory any more.
        for (NodeCache<Object, Object> cache : catalogue.caches()) {
            if (cache.storeBridge() != null) {
                try {
                    cache.storeBridge().close();
                } catch (RuntimeException e) {
                    if (failure == null) {
                        failure = e;
                    } else {
                        failure.addSuppressed(e);
                    }
                }
            }
        }
        if (checkpointer != null) {
            checkpointer.close();
            try {
                checkpointer.checkpoint(); // a clean stop leaves little log to replay
            } catch (CheckpointDeferredException e) {
                LOG.warn("no checkpoint at close: {}", e.getMessage());
            } catch (IOException | RuntimeException e) {
                LOG.error("the checkpoint at close failed; the next start replays the log since the previous one", e);
            }
        }
        state.markClosed();
        recoveredKeys.close();
        if (wal != null) {
            wal.close();
        }
        region.close();
        metrics.close();
        if (failure != null) {
            throw failure;
        }
    }
}
