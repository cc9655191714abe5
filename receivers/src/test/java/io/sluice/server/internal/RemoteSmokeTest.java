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

import java.util.Map;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

@Timeout(60)
class RemoteSmokeTest {

    @Test
    void aClientStreamsIntoANodeOverTcpAndReadsBack() {
        NodeEngine node = new NodeEngine(NodeConfig.builder().dataRegionMaxSize(256L << 20).applyThreads(2).build());
        SluiceServer server = SluiceServer.start(node, ServerConfig.defaults().withPort(0));
        try (Sluice client = SluiceClient.connect(ClientConfig.addresses("127.0.0.1:" + server.address().getPort()))) {
            client.createCache(CacheConfig.named("orders").withPartitions(64));
            try (DataStreamer<Long, BinaryObject> s = client.dataStreamer("orders")) {
                for (long k = 0; k < 100_000; k++) {
                    s.addData(k, client.binary().builder("Order").setLong("id", k).setField("sym", "S" + k % 7).build());
                }
            }
            Cache<Long, BinaryObject> cache = client.<Long, BinaryObject>cache("orders").withKeepBinary();
            assertThat(cache.size()).isEqualTo(100_000);
            assertThat((long) cache.get(4242L).field("id")).isEqualTo(4242L);
            cache.put(-1L, client.binary().builder("Order").setLong("id", -1).setField("sym", "X").build());
            assertThat(cache.getAll(java.util.Set.of(-1L, 1L, 999_999L))).containsOnlyKeys(-1L, 1L);
            Map<Long, BinaryObject> scanned = cache.scan().collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
            assertThat(scanned).hasSize(100_001);
            assertThat(cache.remove(-1L)).isTrue();
            assertThat(node.cache("orders").size()).isEqualTo(100_000);
        } finally {
            server.closeConnections();
            node.close();
        }
    }
}
