package io.sluice.node.internal;

import io.sluice.CacheStoreConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * Puts recovered caches back in front of the stores they await, once those open: a store that failed to open
 * as the node started (its database was down) is tried again after 1 s, then after pauses doubling up to
 * {@link #MAX_PAUSE}, until it opens, the cache is attached otherwise (getOrCreateCache) or dropped, or the
 * node closes. One daemon thread; the attachment itself (and its requeue of recovered keys) runs on it.
 */
final class AwaitedStores implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(AwaitedStores.class);

    static final Duration FIRST_PAUSE = Duration.ofSeconds(1);
    static final Duration MAX_PAUSE = Duration.ofSeconds(30);

    private final List<NodeCache<Object, Object>> caches; // confined to the retry thread
    private final BiConsumer<NodeCache<Object, Object>, CacheStoreConfig> attach;
    private final ScheduledExecutorService timer;
    private long pauseMillis = FIRST_PAUSE.toMillis(); // confined to the retry thread

    private AwaitedStores(List<NodeCache<Object, Object>> caches,
                          BiConsumer<NodeCache<Object, Object>, CacheStoreConfig> attach) {
        this.caches = new ArrayList<>(caches);
        this.attach = attach;
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "sluice-store-retry");
            t.setDaemon(true);
            return t;
        });
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false); // a pending try is dropped at close
        this.timer = executor;
    }

    /**
     * Starts retrying the caches' attachments.
     *
     * @param attach puts a cache in front of a store; throws IllegalStateException if the store fails to open
     */
    static AwaitedStores start(List<NodeCache<Object, Object>> caches,
                               BiConsumer<NodeCache<Object, Object>, CacheStoreConfig> attach) {
        AwaitedStores retry = new AwaitedStores(caches, attach);
        retry.schedule();
        return retry;
    }

    /** Why a cache awaits a store that failed to open, for the refusal of its writes. */
    static String failedToOpen(RuntimeException failure) {
        return "it failed to open: " + failure.getMessage() + "; the node tries again every " + MAX_PAUSE.toSeconds()
                + " s at most, and getOrCreateCache with the store attaches it too";
    }

    private void schedule() {
        try {
            timer.schedule(this::attempt, pauseMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closed) {
            return; // the node is closing
        }
        pauseMillis = Math.min(pauseMillis * 2, MAX_PAUSE.toMillis());
    }

    private void attempt() {
        for (var it = caches.iterator(); it.hasNext(); ) {
            NodeCache<Object, Object> cache = it.next();
            CacheStoreConfig store = cache.storeSlot().awaited();
            if (store == null) {
                it.remove(); // attached meanwhile (getOrCreateCache), declared without a store, or dropped
                continue;
            }
            try {
                attach.accept(cache, store);
                it.remove();
            } catch (RuntimeException failure) {
                if (cache.storeBridge() != null) {
                    it.remove(); // attached; handing its recovered keys over failed after (logged where it failed)
                } else if (timer.isShutdown()) {
                    return; // the node is closing
                } else if (failure instanceof IllegalStateException) {
                    cache.storeSlot().await(store, failedToOpen(failure));
                    LOG.warn("cache '{}': its store '{}' still fails to open ({}); next try in {} s", cache.name(),
                            store.storeName(), failure.getMessage(), pauseMillis / 1000);
                } else {
                    cache.storeSlot().await(store, failure.toString());
                    LOG.error("cache '{}': putting it in front of its store '{}' failed; not retried", cache.name(),
                            store.storeName(), failure);
                    it.remove();
                }
            }
        }
        if (!caches.isEmpty() && !timer.isShutdown()) {
            schedule();
        }
    }

    /**
     * Stops retrying: no attempt starts any more, and one under way (an attachment queueing its keys) is let
     * finish rather than interrupted; waits for it at most 10 s.
     */
    @Override
    public void close() {
        timer.shutdown();
        try {
            if (!timer.awaitTermination(10, TimeUnit.SECONDS)) {
                LOG.warn("an attempt to put a recovered cache in front of its store is still running");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
