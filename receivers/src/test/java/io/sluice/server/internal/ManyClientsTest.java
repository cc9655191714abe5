package io.sluice.server.internal;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.Sluice;
import io.sluice.binary.BinaryObject;
import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import io.sluice.node.NodeConfig;
import io.sluice.node.internal.NodeEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ten clients, each with its own connection and type registry, stream into one node at once (one
 * of them also overwriting with puts, every tenth of its keys, while the others are mid-stream):
 * every entry arrives once, with the value its last writer gave.
 */
@Timeout(120)
class ManyClientsTest {

    private static final int CLIENTS = 10;
    private static final int PER_CLIENT = 30_000;
    /** The client that also overwrites every tenth of its keys with puts once its streamer closed. */
    private static final int OVERWRITER = 3;

    @Test
    void tenClientsStreamingAtOnceLoseNothing() throws Exception {
        NodeEngine node = new NodeEngine(NodeConfig.builder().dataRegionMaxSize(512L << 20).applyThreads(2).build());
        SluiceServer server = SluiceServer.start(node, ServerConfig.defaults().withPort(0));
        ClientConfig config = ClientConfig.addresses("127.0.0.1:" + server.address().getPort());
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
        try (Sluice admin = SluiceClient.connect(config)) {
            admin.createCache(CacheConfig.named("orders").withPartitions(128));
            CountDownLatch go = new CountDownLatch(1);
            // the other clients stay mid-stream until the overwriter's puts have begun
            CountDownLatch overwriting = new CountDownLatch(1);
            List<Future<?>> loads = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                int client = c;
                loads.add(pool.submit(() -> {
                    try (Sluice sluice = SluiceClient.connect(config)) {
                        go.await();
                        // Each client registers the type on its own; the node must read them all alike.
                        try (DataStreamer<Long, BinaryObject> s = sluice.dataStreamer("orders")) {
                            for (long i = 0; i < PER_CLIENT; i++) {
                                long key = client * 1_000_000L + i;
                                s.addData(key, sluice.binary().builder("Order").setLong("id", key)
                                        .setField("client", "c" + client).build());
                                if (client != OVERWRITER && i == PER_CLIENT / 2
                                        && !overwriting.await(60, TimeUnit.SECONDS)) {
                                    throw new IllegalStateException("the overwriter did not start its puts");
                                }
                            }
                        }
                        if (client == OVERWRITER) {
                            // its streamed entries are applied (the streamer closed): overwrite some with puts
                            Cache<Long, BinaryObject> own = sluice.<Long, BinaryObject>cache("orders").withKeepBinary();
                            overwriting.countDown();
                            for (long i = 0; i < PER_CLIENT; i += 10) {
                                long key = client * 1_000_000L + i;
                                own.put(key, sluice.binary().builder("Order").setLong("id", key)
                                        .setField("client", "c" + client + "-put").build());
                            }
                        }
                    } finally {
                        overwriting.countDown(); // a failed overwriter must not hold the others
                    }
                    return null;
                }));
            }
            go.countDown();
            for (Future<?> load : loads) {
                load.get(100, TimeUnit.SECONDS);
            }

            Cache<Long, BinaryObject> cache = admin.<Long, BinaryObject>cache("orders").withKeepBinary();
            assertThat(cache.size()).isEqualTo((long) CLIENTS * PER_CLIENT);
            assertThat(node.cache("orders").size()).isEqualTo((long) CLIENTS * PER_CLIENT);
            for (int c = 0; c < CLIENTS; c++) {
                for (long i = 0; i < PER_CLIENT; i += 997) {
                    long key = c * 1_000_000L + i;
                    BinaryObject v = cache.get(key);
                    assertThat(v).as("key %d", key).isNotNull();
                    assertThat((long) v.field("id")).isEqualTo(key);
                    assertThat((String) v.field("client")).isEqualTo(c == OVERWRITER && i % 10 == 0
                            ? "c" + c + "-put" : "c" + c);
                }
            }
            java.util.Set<Long> overwriterKeys = new java.util.HashSet<>();
            for (long i = 0; i < PER_CLIENT; i++) {
                overwriterKeys.add(OVERWRITER * 1_000_000L + i);
            }
            java.util.Map<Long, BinaryObject> got = cache.getAll(overwriterKeys);
            assertThat(got.keySet()).isEqualTo(overwriterKeys);
            for (long i = 0; i < PER_CLIENT; i++) { // every key of the overwriter, overwritten or not
                long key = OVERWRITER * 1_000_000L + i;
                assertThat((String) got.get(key).field("client")).as("key %d", key)
                        .isEqualTo(i % 10 == 0 ? "c" + OVERWRITER + "-put" : "c" + OVERWRITER);
            }
        } finally {
            pool.shutdownNow();
            server.closeConnections();
            node.close();
        }
    }
}
