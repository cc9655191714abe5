package io.sluice.node.internal;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.CacheNotFoundException;
import io.sluice.Receivers;
import io.sluice.StreamReceiver;
import io.sluice.node.NodeConfig;
import io.sluice.protocol.internal.BatchOutcome;
import io.sluice.protocol.internal.BatchRequest;
import io.sluice.protocol.internal.EntryBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@Timeout(60)
class NodeEngineTest {

    /** Small region: tests start many nodes in one JVM. */
    static NodeConfig.Builder smallNode() {
        return NodeConfig.builder().dataRegionInitialSize(4L << 20).dataRegionMaxSize(256L << 20).applyThreads(2);
    }

    private NodeEngine node;

    @AfterEach
    void closeNode() {
        if (node != null) {
            node.close();
        }
    }

    @Test
    void destroyCacheFailsItsUsersClearlyAndGivesItsPagesToTheNextCache() {
        node = new NodeEngine(smallNode().build());
        Cache<Long, String> first = node.createCache(CacheConfig.named("first").withPartitions(64));
        io.sluice.DataStreamer<Long, String> open = node.dataStreamer("first");
        load(node, "first");
        long pagesAfterFirst = node.allocatedPages();
        long usedWithFirst = node.usedPages();

        assertThat(node.destroyCache("first")).isTrue();
        assertThat(node.destroyCache("first")).as("a second destroy finds nothing").isFalse();

        assertThat(node.usedPages()).as("the cache's pages are free again").isLessThan(usedWithFirst / 10);
        assertThatThrownBy(() -> first.get(1L)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cache 'first' was destroyed");
        assertThatThrownBy(() -> node.cache("first")).isInstanceOf(CacheNotFoundException.class);
        assertThatThrownBy(() -> node.dataStreamer("first")).isInstanceOf(CacheNotFoundException.class);
        open.addData(1L, "late");
        assertThatThrownBy(open::flush).isInstanceOf(io.sluice.StreamerException.class)
                .hasStackTraceContaining("first");
        open.close(true);

        node.createCache(CacheConfig.named("second").withPartitions(64));
        load(node, "second");
        assertThat(node.cache("second").size()).isEqualTo(100_000);
        assertThat(node.allocatedPages()).as("the second cache reuses the first one's pages")
                .isLessThanOrEqualTo(pagesAfterFirst + pagesAfterFirst / 20);

        node.createCache(CacheConfig.named("first").withPartitions(4));
        assertThat(node.cache("first").size()).as("a new cache of the old name starts empty").isZero();
    }

    private static void load(NodeEngine node, String cache) {
        try (io.sluice.DataStreamer<Long, String> streamer = node.dataStreamer(cache)) {
            for (long k = 0; k < 100_000; k++) {
                streamer.addData(k, "value-" + k + "-" + "x".repeat(40));
            }
        }
    }

    @Test
    void createCacheRefusesAnExistingName() {
        node = new NodeEngine(smallNode().build());
        node.createCache(CacheConfig.named("orders").withPartitions(8));

        assertThatThrownBy(() -> node.createCache(CacheConfig.named("orders")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cache 'orders' already exists (with 8 partitions)");
    }

    @Test
    void getOrCreateCacheReturnsTheExistingCache() {
        node = new NodeEngine(smallNode().build());
        Cache<Long, String> created = node.getOrCreateCache(CacheConfig.named("orders").withPartitions(8));
        created.put(1L, "one");

        Cache<Long, String> again = node.getOrCreateCache(CacheConfig.named("orders").withPartitions(16));

        assertThat(again.get(1L)).isEqualTo("one");
        assertThat(node.transport().partitions("orders")).isEqualTo(8);
        assertThat(node.cacheNames()).containsExactly("orders");
    }

    @Test
    void unknownCacheIsNamedInTheError() {
        node = new NodeEngine(smallNode().build());

        assertThatThrownBy(() -> node.cache("nope"))
                .isInstanceOf(CacheNotFoundException.class)
                .hasMessageContaining("'nope'");
        assertThatThrownBy(() -> node.dataStreamer("nope"))
                .isInstanceOf(CacheNotFoundException.class);
        assertThatThrownBy(() -> node.transport().partitions("nope"))
                .isInstanceOf(CacheNotFoundException.class);
    }

    @Test
    void transportListsThisNodeOnly() {
        node = new NodeEngine(smallNode().build());

        assertThat(node.transport().nodeIds()).containsExactly(node.id());
    }

    @Test
    void requestForAnUnknownReceiverFailsAsAWhole() {
        node = new NodeEngine(smallNode().receiver("audit", () -> (c, e) -> { }).build());
        node.createCache(CacheConfig.named("orders").withPartitions(4));

        CompletableFuture<List<BatchOutcome>> future = node.transport().send(node.id(), new BatchRequest("orders",
                Receivers.named("missing"), false, false, List.of(new BatchRequest.PartitionBatch(0, emptyBatch()))));

        assertThatThrownBy(() -> future.get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("receiver 'missing' is not registered")
                .hasMessageContaining("audit")
                .hasMessageContaining("isolated");
    }

    @Test
    void requestForAnUnknownCacheFailsAsAWhole() {
        node = new NodeEngine(smallNode().build());

        CompletableFuture<List<BatchOutcome>> future = node.transport().send(node.id(), new BatchRequest("nope",
                Receivers.isolated(), false, false, List.of(new BatchRequest.PartitionBatch(0, emptyBatch()))));

        assertThatThrownBy(() -> future.get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(CacheNotFoundException.class);
    }

    @Test
    void requestForAnotherNodeFails() {
        node = new NodeEngine(smallNode().build());
        node.createCache(CacheConfig.named("orders").withPartitions(4));

        CompletableFuture<List<BatchOutcome>> future = node.transport().send("elsewhere", new BatchRequest("orders",
                Receivers.isolated(), false, false, List.of()));

        assertThat(future).isCompletedExceptionally();
    }

    @Test
    void batchForAPartitionOutOfRangeFailsAlone() throws Exception {
        node = new NodeEngine(smallNode().build());
        node.createCache(CacheConfig.named("orders").withPartitions(4));

        List<BatchOutcome> outcomes = node.transport().send(node.id(), new BatchRequest("orders",
                Receivers.isolated(), false, false, List.of(
                        new BatchRequest.PartitionBatch(1, emptyBatch()),
                        new BatchRequest.PartitionBatch(9, emptyBatch()))))
                .get(10, TimeUnit.SECONDS);

        assertThat(outcomes.get(0).succeeded()).isTrue();
        assertThat(outcomes.get(1).error()).hasMessageContaining("partition 9 is out of range")
                .hasMessageContaining("4 partitions");
    }

    @Test
    void aCustomReceiverFactoryIsCalledOncePerApplyThread() {
        AtomicInteger made = new AtomicInteger();
        node = new NodeEngine(smallNode().applyThreads(3).receiver("counting", () -> {
            made.incrementAndGet();
            return (c, e) -> { };
        }).build());

        assertThat(made).hasValue(3);
    }

    @Test
    void aFailingReceiverFactoryStopsTheNodeFromStarting() {
        NodeConfig config = smallNode().receiver("broken", () -> {
            throw new IllegalArgumentException("no license");
        }).build();

        assertThatThrownBy(() -> new NodeEngine(config))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("factory of receiver 'broken' threw")
                .hasRootCauseMessage("no license");
    }

    @Test
    void closeIsIdempotentAndEndsCacheOperations() {
        node = new NodeEngine(smallNode().build());
        Cache<Long, String> cache = node.createCache(CacheConfig.named("orders").withPartitions(4));

        node.close();
        node.close();

        assertThatThrownBy(() -> cache.get(1L))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is closed");
        assertThatThrownBy(() -> node.createCache(CacheConfig.named("other")))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> node.dataStreamer("orders"))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aReceiverCannotCloseItsNode() throws Exception {
        AtomicReference<NodeEngine> self = new AtomicReference<>();
        node = new NodeEngine(smallNode().receiver("closing", () -> (c, e) -> self.get().close()).build());
        self.set(node);
        node.createCache(CacheConfig.named("orders").withPartitions(4));

        List<BatchOutcome> outcomes = node.transport().send(node.id(), new BatchRequest("orders",
                Receivers.named("closing"), false, false, List.of(new BatchRequest.PartitionBatch(0, emptyBatch()))))
                .get(10, TimeUnit.SECONDS);

        assertThat(outcomes.get(0).error())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot be closed from a receiver");
        assertThat(node.cache("orders").size()).as("the node is still open").isZero();
    }

    @Test
    void startRequiresAConfig() {
        assertThatThrownBy(() -> new NodeEngine(null)).isInstanceOf(NullPointerException.class).hasMessage("config");
    }

    @SuppressWarnings("unused")
    private static final StreamReceiver<Object, Object> NOOP = (c, e) -> { };

    private static EntryBatch emptyBatch() {
        return new EntryBatch(new byte[0], 0, 0);
    }
}
