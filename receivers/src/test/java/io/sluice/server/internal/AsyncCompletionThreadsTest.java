package io.sluice.server.internal;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.Sluice;
import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import io.sluice.node.NodeConfig;
import io.sluice.node.internal.NodeEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The futures of the cache's async methods complete on the few reused {@code sluice-async} threads, embedded and
 * remote: not on the common pool, which {@code CompletableFuture} replaces by a new thread per task when its
 * parallelism is 1 (a machine of two cores: half of a remote client's CPU went to starting threads).
 */
@Timeout(60)
class AsyncCompletionThreadsTest {

    private static final int OPS = 500;

    private final NodeEngine node = new NodeEngine(NodeConfig.builder().dataRegionMaxSize(64L << 20).applyThreads(2)
            .build());
    private SluiceServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.closeConnections();
        }
        node.close();
    }

    @Test
    void anEmbeddedCachesAsyncResultsCompleteOnReusedSluiceThreads() {
        Cache<Long, String> cache = node.createCache(CacheConfig.named("c").withPartitions(4));
        assertCompletesOnReusedThreads(cache);
    }

    @Test
    void aRemoteCachesAsyncResultsCompleteOnReusedSluiceThreads() {
        server = SluiceServer.start(node, ServerConfig.defaults().withHost("127.0.0.1").withPort(0));
        try (Sluice client = SluiceClient.connect(ClientConfig.addresses("127.0.0.1:" + server.address().getPort()))) {
            assertCompletesOnReusedThreads(client.createCache(CacheConfig.named("c").withPartitions(4)));
        }
    }

    /**
     * One op at a time, so that a pool reuses its idle threads: a thread per task shows as about one name per op. A
     * continuation attached to a future already complete runs on the caller's thread: those are left out.
     */
    private static void assertCompletesOnReusedThreads(Cache<Long, String> cache) {
        String caller = Thread.currentThread().getName();
        List<String> names = Collections.synchronizedList(new ArrayList<>());
        Runnable record = () -> {
            String name = Thread.currentThread().getName();
            if (!name.equals(caller)) {
                names.add(name);
            }
        };
        for (long k = 0; k < OPS; k++) {
            cache.putAsync(k, "v" + k).thenRun(record).join();
            String value = cache.getAsync(k).thenApply(v -> {
                record.run();
                return v;
            }).join();
            assertThat(value).isEqualTo("v" + k);
        }
        assertThat(names).as("continuations that ran off the caller's thread").hasSizeGreaterThan(OPS / 10)
                .allMatch(name -> name.startsWith("sluice-async-"));
        // Idle threads other tests of this JVM left may take some: still far fewer than one per op.
        assertThat(new HashSet<>(names)).as("threads the %d continuations ran on", names.size())
                .hasSizeLessThan(names.size() / 5);
    }
}
