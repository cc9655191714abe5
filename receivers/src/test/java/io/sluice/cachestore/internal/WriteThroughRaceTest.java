package io.sluice.cachestore.internal;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.CacheStoreConfig;
import io.sluice.node.NodeConfig;
import io.sluice.node.internal.NodeEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two application threads racing to insert one key under write-through: memory and the database must end up
 * holding the same value, the one whose putIfAbsent returned true.
 *
 * <p>The interleaving is forced rather than hoped for: the first insert's store write is held until the second
 * insert has either finished or is waiting for the first (the node orders the two). Without that ordering, the
 * second insert also sees the key absent, writes the database and wins memory; the first then writes the database
 * over it and is refused by memory: the database keeps the value memory refused.
 */
@Timeout(60)
class WriteThroughRaceTest {

    private final AtomicReference<MapStore> lastStore = new AtomicReference<>();
    private NodeEngine node;

    @AfterEach
    void stop() {
        if (node != null) {
            node.close();
        }
    }

    private Cache<Long, String> start() {
        node = new NodeEngine(NodeConfig.builder()
                .dataRegionInitialSize(4L << 20)
                .dataRegionMaxSize(64L << 20)
                .applyThreads(2)
                .processor("set-invoked", () -> (io.sluice.MutableEntry<Long, String> e, Object arg) -> {
                    e.setValue("invoked");
                    return null;
                })
                .store("map", () -> {
                    MapStore s = new MapStore(0);
                    lastStore.set(s);
                    return s;
                })
                .build());
        return node.createCache(CacheConfig.named("c").withPartitions(8)
                .withStore(CacheStoreConfig.writeThrough("map")));
    }

    @Test
    void racingInsertsOfOneKeyLeaveMemoryAndTheDatabaseAgreeing() throws Exception {
        Cache<Long, String> cache = start();
        MapStore store = lastStore.get();
        CountDownLatch firstInStore = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        AtomicReference<Thread> first = new AtomicReference<>();
        store.beforeWriteBatch = () -> {
            if (Thread.currentThread() == first.get()) {
                firstInStore.countDown();
                try {
                    assertThat(releaseFirst.await(30, TimeUnit.SECONDS)).as("released").isTrue();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };

        CompletableFuture<Boolean> firstResult = new CompletableFuture<>();
        Thread t1 = new Thread(() -> complete(firstResult, () -> cache.putIfAbsent(7L, "first")), "insert-first");
        first.set(t1);
        t1.start();
        assertThat(firstInStore.await(30, TimeUnit.SECONDS)).as("the first insert reached the store").isTrue();

        CompletableFuture<Boolean> secondResult = new CompletableFuture<>();
        Thread t2 = new Thread(() -> complete(secondResult, () -> cache.putIfAbsent(7L, "second")), "insert-second");
        t2.start();
        // Either the second insert is done (nothing orders it after the first) or it waits for the first.
        await().atMost(Duration.ofSeconds(30)).until(() -> secondResult.isDone()
                || t2.getState() == Thread.State.BLOCKED || t2.getState() == Thread.State.WAITING);
        releaseFirst.countDown();
        t1.join();
        t2.join();

        boolean firstWon = firstResult.get();
        boolean secondWon = secondResult.get();
        assertThat(firstWon ^ secondWon).as("exactly one insert wins (first %s, second %s)", firstWon, secondWon)
                .isTrue();
        String winner = firstWon ? "first" : "second";
        assertThat(cache.get(7L)).as("memory").isEqualTo(winner);
        assertThat(store.data.get(7L)).as("the database holds what memory holds").isEqualTo(winner);
    }

    /**
     * An entry processor and a put racing on one key under write-through: the processor changes memory and then
     * the store. Its store write is held until the put has either finished or is waiting for it. Without the
     * partition's write order around the processor, the put lands in between (memory "put", then the processor's
     * held store write: the database keeps "invoked").
     */
    @Test
    void anEntryProcessorAndAPutRacingOnOneKeyLeaveMemoryAndTheDatabaseAgreeing() throws Exception {
        Cache<Long, String> cache = start();
        MapStore store = lastStore.get();
        cache.put(7L, "before");
        CountDownLatch processorInStore = new CountDownLatch(1);
        CountDownLatch releaseProcessor = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean armed = new java.util.concurrent.atomic.AtomicBoolean(true);
        store.beforeWriteBatch = () -> {
            if (armed.compareAndSet(true, false)) { // the next store write: the processor's
                processorInStore.countDown();
                try {
                    assertThat(releaseProcessor.await(30, TimeUnit.SECONDS)).as("released").isTrue();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        CompletableFuture<java.util.Map<Long, Object>> invoked = cache.invokeAllAsync(java.util.Set.of(7L),
                new io.sluice.ProcessorRef("set-invoked", 0L));
        assertThat(processorInStore.await(30, TimeUnit.SECONDS)).as("the processor reached the store").isTrue();

        CompletableFuture<Boolean> put = new CompletableFuture<>();
        Thread t = new Thread(() -> complete(put, () -> {
            cache.put(7L, "put");
            return true;
        }), "put");
        t.start();
        await().atMost(Duration.ofSeconds(30)).until(() -> put.isDone()
                || t.getState() == Thread.State.BLOCKED || t.getState() == Thread.State.WAITING);
        releaseProcessor.countDown();
        invoked.get(30, TimeUnit.SECONDS);
        t.join();
        assertThat(put.get()).isTrue();
        assertThat(cache.get(7L)).as("memory").isEqualTo("put");
        assertThat(store.data.get(7L)).as("the database holds what memory holds").isEqualTo("put");
    }

    private static void complete(CompletableFuture<Boolean> result, java.util.function.BooleanSupplier insert) {
        try {
            result.complete(insert.getAsBoolean());
        } catch (Throwable t) {
            result.completeExceptionally(t);
        }
    }
}
