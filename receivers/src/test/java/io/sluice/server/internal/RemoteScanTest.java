package io.sluice.server.internal;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.Sluice;
import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import io.sluice.node.NodeConfig;
import io.sluice.node.internal.NodeEngine;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A remote scan reads ahead (the next page of a partition, the first pages of the partitions after it) and still
 * gives every entry once, with its value; a scan the consumer stops early leaves the client and the node as they were.
 */
@Timeout(60)
class RemoteScanTest {

    private final NodeEngine node = new NodeEngine(NodeConfig.builder().dataRegionMaxSize(128L << 20).applyThreads(2)
            .build());
    private SluiceServer server;
    private Sluice client;

    @BeforeEach
    void start() {
        server = SluiceServer.start(node, ServerConfig.defaults().withHost("127.0.0.1").withPort(0));
        client = SluiceClient.connect(ClientConfig.addresses("127.0.0.1:" + server.address().getPort()));
    }

    @AfterEach
    void stop() {
        client.close();
        server.closeConnections();
        node.close();
    }

    @Test
    void everyEntryOnceAcrossPagesAndPartitionsReadAhead() {
        // 8 partitions of ~3,100 entries: four pages each; then 1,024 partitions of a few entries: read ahead of the
        // stream four at a time.
        for (int partitions : new int[]{8, 1024}) {
            Cache<Long, String> cache = client.createCache(CacheConfig.named("c" + partitions).withPartitions(partitions));
            int entries = 25_000;
            try (DataStreamer<Long, String> s = client.dataStreamer("c" + partitions)) {
                for (long k = 0; k < entries; k++) {
                    s.addData(k, "v" + k);
                }
            }
            Map<Long, String> scanned = new HashMap<>();
            cache.scan().forEach(e -> assertThat(scanned.put(e.getKey(), e.getValue()))
                    .as("key %d scanned twice", e.getKey()).isNull());
            assertThat(scanned).as("%d partitions", partitions).hasSize(entries);
            for (long k = 0; k < entries; k++) {
                assertThat(scanned.get(k)).isEqualTo("v" + k);
            }
        }
    }

    @Test
    void aScanStoppedEarlyLeavesTheClientAsItWas() {
        Cache<Long, String> cache = client.createCache(CacheConfig.named("c").withPartitions(1024));
        for (long k = 0; k < 5_000; k++) {
            cache.put(k, "v" + k);
        }
        for (int i = 0; i < 20; i++) { // each leaves pages asked for ahead unread
            assertThat(cache.scan().limit(3).count()).isEqualTo(3);
        }
        assertThat(cache.get(42L)).isEqualTo("v42");
        assertThat(cache.scan().count()).isEqualTo(5_000);
    }
}
