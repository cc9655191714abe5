package io.sluice.connect.kafka;

import io.sluice.CacheConfig;
import io.sluice.WriteSyncMode;
import io.sluice.node.NodeConfig;
import io.sluice.node.internal.NodeEngine;
import io.sluice.server.internal.ServerConfig;
import io.sluice.server.internal.SluiceServer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * With {@code sluice.cache.create} the task creates a missing cache, and takes one that exists as it is: a cache
 * created with backups and an index (options a get-or-create with the defaults would be refused for) is written to.
 */
@Timeout(60)
class SluiceSinkTaskExistingCacheTest {

    private static final TopicPartition TP = new TopicPartition("orders", 0);

    @Test
    void anExistingCacheWithOptionsIsWrittenToAsItIs() {
        CacheConfig created = CacheConfig.named("orders").withPartitions(8).withBackups(1)
                .withWriteSync(WriteSyncMode.FULL_SYNC).index("secCode");
        try (NodeEngine node = new NodeEngine(NodeConfig.builder().dataRegionInitialSize(16L << 20)
                .dataRegionMaxSize(64L << 20).applyThreads(1).build());
             SluiceServer server = SluiceServer.start(node, ServerConfig.defaults().withPort(0))) {
            node.createCache(created);
            SluiceSinkTask task = new SluiceSinkTask();
            task.initialize(new Context());
            Map<String, String> p = new HashMap<>();
            p.put("name", "existing-cache-test");
            p.put("sluice.addresses", "127.0.0.1:" + server.address().getPort());
            p.put("sluice.cache.name", "orders");
            p.put("sluice.streamer.flush.interval.ms", "10");
            p.put("sluice.value.string.format", "STRING");
            task.start(p);
            try {
                task.put(List.of(new SinkRecord(TP.topic(), TP.partition(), Schema.STRING_SCHEMA, "k1",
                        Schema.STRING_SCHEMA, "v1", 0)));
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                    task.put(List.of());
                    Map<TopicPartition, OffsetAndMetadata> committed = task.preCommit(
                            Map.of(TP, new OffsetAndMetadata(1)));
                    assertThat(committed).containsEntry(TP, new OffsetAndMetadata(1));
                });
            } finally {
                task.stop();
            }
            assertThat(node.<String, String>cache("orders").get("k1")).isEqualTo("v1");
            assertThat(node.nodeCache("orders").config()).isEqualTo(created);
        }
    }

    /** The worker's side, as far as this test needs it. */
    private static final class Context implements SinkTaskContext {
        @Override
        public Map<String, String> configs() {
            return Map.of();
        }

        @Override
        public void offset(Map<TopicPartition, Long> offsets) {
        }

        @Override
        public void offset(TopicPartition tp, long offset) {
        }

        @Override
        public void timeout(long timeoutMs) {
        }

        @Override
        public Set<TopicPartition> assignment() {
            return Set.of(TP);
        }

        @Override
        public void pause(TopicPartition... partitions) {
        }

        @Override
        public void resume(TopicPartition... partitions) {
        }

        @Override
        public void requestCommit() {
        }

        @Override
        public ErrantRecordReporter errantRecordReporter() {
            return null;
        }

        @Override
        public PluginMetrics pluginMetrics() {
            return null;
        }
    }
}
