package io.sluice.server.internal;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.CacheNotFoundException;
import io.sluice.EntryProcessorException;
import io.sluice.MutableEntry;
import io.sluice.Processors;
import io.sluice.Sluice;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import io.sluice.node.NodeConfig;
import io.sluice.node.internal.NodeEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The cache operations of a remote client: single keys, many keys, entry processors and the async
 * forms, and objects of types one client registered read by another client.
 */
@Timeout(60)
class RemoteCacheOperationsTest {

    private NodeEngine node;
    private SluiceServer server;
    private Sluice client;

    @BeforeEach
    void start() {
        node = new NodeEngine(NodeConfig.builder().dataRegionInitialSize(16L << 20).dataRegionMaxSize(256L << 20)
                .applyThreads(2)
                .processor("throw-on-7", () -> (MutableEntry<Long, Object> e, Object arg) -> {
                    if (e.key() == 7L) {
                        throw new IllegalStateException("seven is unlucky");
                    }
                    return "ok:" + arg;
                })
                .processor("unsendable-on-5", () -> (MutableEntry<Long, Object> e, Object arg) ->
                        e.key() == 5L ? new Shadowing() : "ok")
                .build());
        server = SluiceServer.start(node, ServerConfig.defaults().withPort(0));
        client = connect();
    }

    private Sluice connect() {
        return SluiceClient.connect(ClientConfig.addresses("127.0.0.1:" + server.address().getPort()));
    }

    @AfterEach
    void stop() {
        client.close();
        server.closeConnections();
        node.close();
    }

    @Test
    void destroyCacheOverTheWireDropsTheCacheOnTheNode() {
        Cache<Long, String> orders = client.createCache(CacheConfig.named("orders").withPartitions(16));
        for (long k = 0; k < 1000; k++) {
            orders.put(k, "v" + k);
        }
        long used = node.usedPages();

        assertThat(client.destroyCache("orders")).isTrue();
        assertThat(client.destroyCache("orders")).isFalse();

        assertThat(node.cacheNames()).doesNotContain("orders");
        assertThat(node.usedPages()).isLessThan(used);
        assertThatThrownBy(() -> orders.get(1L)).isInstanceOf(CacheNotFoundException.class)
                .hasMessageContaining("orders");
        assertThatThrownBy(() -> client.cache("orders")).isInstanceOf(CacheNotFoundException.class);
    }

    @Test
    void singleAndManyKeysBehaveAsOnTheEmbeddedNode() {
        Cache<Long, String> cache = client.createCache(CacheConfig.named("c").withPartitions(16));
        cache.put(1L, "one");
        assertThat(cache.putIfAbsent(1L, "uno")).isFalse();
        assertThat(cache.putIfAbsent(2L, "two")).isTrue();
        Map<Long, String> more = new HashMap<>();
        for (long k = 10; k < 1010; k++) {
            more.put(k, "v" + k);
        }
        cache.putAll(more);
        assertThat(cache.size()).isEqualTo(1002);
        assertThat(cache.getAll(Set.of(1L, 2L, 500L, 99_999L))).containsOnlyKeys(1L, 2L, 500L)
                .containsEntry(500L, "v500");
        cache.removeAll(List.of(10L, 11L, 12L));
        assertThat(cache.remove(1L)).isTrue();
        assertThat(cache.remove(1L)).isFalse();
        assertThat(cache.size()).isEqualTo(998);
        assertThat(cache.scan().count()).isEqualTo(998);
        assertThatThrownBy(() -> client.createCache(CacheConfig.named("c"))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("already exists");
        assertThatThrownBy(() -> client.cache("nope")).isInstanceOf(CacheNotFoundException.class)
                .hasMessageContaining("'nope'");
    }

    @Test
    void entryProcessorsRunOnTheNodeWithTheirResultsAndFailuresPerKey() {
        Cache<Long, BinaryObject> cache = client.<Long, BinaryObject>createCache(CacheConfig.named("orders")
                .withPartitions(16)).withKeepBinary();
        BinaryObjectBuilder b = client.binary().builder("Order");
        for (long k = 0; k < 10; k++) {
            cache.put(k, b.setInt("quantity", (int) k).setField("note", "n" + k).build());
        }

        Number q = cache.invoke(3L, Processors.add("quantity", 40));
        Map<Long, Boolean> set = cache.invokeAll(Set.of(1L, 2L, 99L), Processors.setField("quantity", 1000));

        assertThat(q).isEqualTo(43);
        assertThat(set).containsEntry(1L, true).containsEntry(2L, true).containsEntry(99L, false);
        assertThat((int) cache.get(2L).field("quantity")).isEqualTo(1000);
        EntryProcessorException e = (EntryProcessorException) org.assertj.core.api.Assertions.catchThrowable(
                () -> cache.invokeAll(Set.of(6L, 7L), Processors.named("throw-on-7", "x")));
        assertThat(e).hasMessageContaining("processor 'throw-on-7' failed for key 7")
                .hasMessageContaining("seven is unlucky");
        assertThat(e.results()).containsEntry(6L, "ok:x");
        assertThat(e.failures()).containsOnlyKeys(7L);
        assertThatThrownBy(() -> cache.invoke(1L, Processors.named("nope")))
                .isInstanceOf(EntryProcessorException.class).hasMessageContaining("is not registered");
    }

    /** A result the node cannot encode: its field {@code x} is declared twice (marshalling refuses it). */
    static class Shadowed {
        int x = 1;
    }

    static class Shadowing extends Shadowed {
        int x = 2;
    }

    /**
     * A processor's result that cannot be encoded fails its key with the reason, and the other keys get theirs: the
     * answer is not lost (the client would wait its whole request timeout), and the writes stand as for a failure
     * the processor threw.
     */
    @Test
    void aResultTheNodeCannotEncodeFailsItsKeyAndTheAnswerStillComes() {
        Cache<Long, String> cache = client.createCache(CacheConfig.named("u").withPartitions(16));
        cache.put(4L, "four");
        cache.put(5L, "five");
        long start = System.nanoTime();

        EntryProcessorException e = (EntryProcessorException) org.assertj.core.api.Assertions.catchThrowable(
                () -> cache.invokeAll(Set.of(4L, 5L), Processors.named("unsendable-on-5")));

        assertThat(e).isNotNull();
        assertThat(e.results()).containsEntry(4L, "ok");
        assertThat(e.failures()).containsOnlyKeys(5L);
        assertThat(e.failures().get(5L)).hasMessageContaining("cannot be marshalled")
                .hasMessageContaining(Shadowing.class.getName());
        assertThat(e).hasMessageContaining("unsendable-on-5");
        assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start)).as("answered, not timed out")
                .isLessThan(ClientConfig.DEFAULT_REQUEST_TIMEOUT.toSeconds());
    }

    @Test
    void asyncOperationsCompleteOffTheCallersThreadAndOffTheEventLoop() throws Exception {
        Cache<Long, String> cache = client.createCache(CacheConfig.named("a").withPartitions(16));
        Map<Long, String> batch = new HashMap<>();
        for (long k = 0; k < 5_000; k++) {
            batch.put(k, "v" + k);
        }
        java.util.Set<String> completedOn = java.util.concurrent.ConcurrentHashMap.newKeySet();
        CompletableFuture<Void> puts = cache.putAllAsync(batch);
        // A dependent registered before completion runs where the future completes.
        puts.thenRun(() -> completedOn.add(Thread.currentThread().getName()));
        puts.get(30, TimeUnit.SECONDS);
        for (int i = 0; i < 20; i++) {
            cache.getAsync((long) i).thenRun(() -> completedOn.add(Thread.currentThread().getName()))
                    .get(30, TimeUnit.SECONDS);
        }
        assertThat(completedOn).as("no continuation ran on a connection's event loop")
                .noneMatch(name -> name.contains("EventLoop"));

        assertThat(cache.getAsync(4_242L).get(30, TimeUnit.SECONDS)).isEqualTo("v4242");
        cache.putAsync(-1L, "minus one").get(30, TimeUnit.SECONDS);
        cache.removeAllAsync(List.of(0L, 1L)).get(30, TimeUnit.SECONDS);
        assertThat(cache.size()).isEqualTo(4_999);
        assertThat(cache.invokeAllAsync(Set.of(5L), Processors.named("throw-on-7", "y")).get(30, TimeUnit.SECONDS))
                .containsEntry(5L, "ok:y");
        assertThatThrownBy(() -> cache.invokeAllAsync(Set.of(7L), Processors.named("throw-on-7")).get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class).cause().isInstanceOf(EntryProcessorException.class);
    }

    @Test
    void anObjectOneClientStoredReadsInAnotherClientWithoutAnyImport() {
        Cache<Long, BinaryObject> cache = client.<Long, BinaryObject>createCache(CacheConfig.named("shared")
                .withPartitions(4)).withKeepBinary();
        cache.put(1L, client.binary().builder("Shipment").setField("to", "Oslo").setInt("crates", 3).build());

        try (Sluice other = connect()) {
            Cache<Long, BinaryObject> view = other.<Long, Object>cache("shared").withKeepBinary();
            BinaryObject read = view.get(1L);

            assertThat((String) read.field("to")).isEqualTo("Oslo");
            assertThat((int) read.field("crates")).isEqualTo(3);
            assertThat(other.binary().type("Shipment")).isNotNull();
        }
    }
}
