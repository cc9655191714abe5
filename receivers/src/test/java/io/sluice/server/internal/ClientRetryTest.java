package io.sluice.server.internal;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.NodeUnreachableException;
import io.sluice.Sluice;
import io.sluice.StreamerException;
import io.sluice.StreamerOptions;
import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import io.sluice.node.NodeConfig;
import io.sluice.node.internal.NodeEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The client's retries and circuit breaker against a real node served in this JVM: a node restarted on
 * the same port mid-load loses nothing (batches in flight are re-sent), a node that stays down fails
 * every batch within the timeout and then fails calls fast.
 */
@Timeout(120)
class ClientRetryTest {

    private static NodeEngine newNode() {
        return new NodeEngine(NodeConfig.builder().dataRegionMaxSize(256L << 20).applyThreads(2).build());
    }

    @Test
    void aNodeRestartedOnTheSamePortMidLoadLosesNoEntry() {
        NodeEngine node = newNode();
        AtomicReference<SluiceServer> server = new AtomicReference<>(
                SluiceServer.start(node, ServerConfig.defaults().withPort(0)));
        int port = server.get().address().getPort();
        // Default retries (about 3 s of backoff in all); should the restart open the breaker on a busy
        // machine, it lets probes through again after a second, well within the retrying requests' backoff.
        try (Sluice client = SluiceClient.connect(ClientConfig.builder().addresses("127.0.0.1:" + port)
                .requestTimeout(Duration.ofSeconds(10)).circuitBreakerWaitInOpenState(Duration.ofSeconds(1))
                .build())) {
            client.createCache(CacheConfig.named("orders").withPartitions(64));
            CompletableFuture<Void> restarted = CompletableFuture.runAsync(() -> {
                await().atMost(Duration.ofSeconds(30)).until(() -> node.cache("orders").size() > 20_000);
                server.get().closeConnections(); // connections drop with requests in flight
                server.set(SluiceServer.start(node, ServerConfig.defaults().withPort(port)));
            });
            List<CompletableFuture<Void>> futures = new ArrayList<>();
            long entries;
            try (DataStreamer<Long, String> streamer = client.dataStreamer("orders", StreamerOptions.builder()
                    .timeout(Duration.ofSeconds(30)).build())) {
                long k = 0;
                for (; k < 200_000 || !restarted.isDone(); k++) {
                    futures.add(streamer.addData(k, "v" + k));
                }
                entries = k;
                streamer.flush();
            }
            restarted.join();
            assertThat(futures).allMatch(f -> f.isDone() && !f.isCompletedExceptionally());
            Cache<Long, String> cache = client.cache("orders");
            assertThat(cache.size()).isEqualTo(entries);
            for (long k = 0; k < entries; k += 997) {
                assertThat(cache.get(k)).isEqualTo("v" + k);
            }
        } finally {
            server.get().closeConnections();
            node.close();
        }
    }

    @Test
    void aNodeThatStaysDownFailsEveryBatchWithinTheTimeoutThenTheBreakerFailsCallsFast() {
        NodeEngine node = newNode();
        SluiceServer server = SluiceServer.start(node, ServerConfig.defaults().withPort(0));
        int port = server.address().getPort();
        Duration requestTimeout = Duration.ofSeconds(10);
        try (Sluice client = SluiceClient.connect(ClientConfig.builder().addresses("127.0.0.1:" + port)
                .requestTimeout(requestTimeout).retryInitialBackoff(Duration.ofMillis(20))
                .circuitBreakerWaitInOpenState(Duration.ofMinutes(5)).build())) {
            client.createCache(CacheConfig.named("orders").withPartitions(64));
            Cache<Long, String> cache = client.cache("orders");
            DataStreamer<Long, String> streamer = client.dataStreamer("orders", StreamerOptions.builder()
                    .timeout(Duration.ofSeconds(30)).build());
            List<CompletableFuture<Void>> futures = new ArrayList<>();
            try {
                for (long k = 0; k < 10_000; k++) {
                    futures.add(streamer.addData(k, "v" + k));
                }
                streamer.flush();
                server.closeConnections(); // and nothing listens on the port any more

                long start = System.nanoTime();
                assertThatThrownBy(() -> {
                    for (long k = 10_000; k < 1_000_000; k++) {
                        futures.add(streamer.addData(k, "v" + k));
                    }
                    streamer.flush();
                }).isInstanceOf(StreamerException.class).hasRootCauseInstanceOf(NodeUnreachableException.class)
                        .hasStackTraceContaining("127.0.0.1:" + port);
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
                await().atMost(Duration.ofSeconds(30)).until(() -> futures.stream().allMatch(CompletableFuture::isDone));
                assertThat(futures.subList(0, 10_000)).allMatch(f -> !f.isCompletedExceptionally());
                assertThat(futures).anyMatch(CompletableFuture::isCompletedExceptionally);
            } finally {
                streamer.close(true);
            }

            // Failed calls open the node's breaker; from then on a call fails at once, without trying the node.
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThatThrownBy(() -> cache.get(1L))
                    .isInstanceOf(NodeUnreachableException.class).hasMessageContaining("circuit breaker is open"));
            long start = System.nanoTime();
            assertThatThrownBy(() -> cache.put(2L, "x")).isInstanceOf(NodeUnreachableException.class)
                    .hasMessageContaining("circuit breaker is open").hasMessageContaining("127.0.0.1:" + port)
                    .hasMessageContaining("'" + node.id() + "'");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(requestTimeout.dividedBy(5));
        } finally {
            server.closeConnections();
            node.close();
        }
    }
}
