package io.sluice.connect.kafka;

import io.sluice.Cache;
import io.sluice.StreamReceiver;
import io.sluice.node.NodeConfig;
import io.sluice.node.internal.NodeEngine;
import io.sluice.server.internal.ServerConfig;
import io.sluice.server.internal.SluiceServer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.metrics.PluginMetrics;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.ErrantRecordReporter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTaskContext;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Entries the node itself rejects (here a receiver refusing keys that start with "bad" as illegal
 * arguments): with errors.tolerance=all their records go to the errant record reporter and every other
 * record is applied and committed; without it the task fails naming topic, partition and offset.
 * Records of two partitions interleaved in one put are tracked and committed each for its partition.
 * A node in this JVM behind a real server, the task driven as the worker drives it (put, seek, preCommit).
 */
@Timeout(120)
class SluiceSinkTaskRejectionTest {

    private static final TopicPartition TP = new TopicPartition("orders", 0);
    private static final TopicPartition TP1 = new TopicPartition("orders", 1);

    /** Applies each entry with a put, refusing keys that start with "bad". */
    public static final class Picky implements StreamReceiver<Object, Object> {
        @Override
        public void receive(Cache<Object, Object> cache, Collection<Map.Entry<Object, Object>> entries) {
            for (Map.Entry<Object, Object> e : entries) {
                if (e.getKey().toString().startsWith("bad")) {
                    throw new IllegalArgumentException("key " + e.getKey() + " is refused by the receiver");
                }
            }
            for (Map.Entry<Object, Object> e : entries) {
                cache.put(e.getKey(), e.getValue());
            }
        }
    }

    private NodeEngine node;
    private SluiceServer server;
    private final Context context = new Context();
    private final SluiceSinkTask task = new SluiceSinkTask();

    @BeforeEach
    void start() {
        node = new NodeEngine(NodeConfig.builder().dataRegionInitialSize(16L << 20).dataRegionMaxSize(64L << 20)
                .applyThreads(1).receiver("picky", Picky::new).build());
        server = SluiceServer.start(node, ServerConfig.defaults().withPort(0));
        task.initialize(context);
    }

    @AfterEach
    void stop() {
        task.stop();
        server.closeConnections();
        node.close();
    }

    private Map<String, String> props(String tolerance) {
        Map<String, String> p = new HashMap<>();
        p.put("name", "rejection-test");
        p.put("sluice.addresses", "127.0.0.1:" + server.address().getPort());
        p.put("sluice.cache.name", "orders");
        p.put("sluice.receiver", "picky");
        p.put("sluice.streamer.buffer.size", "1"); // each record its own batch: exactly the refused ones fail
        p.put("sluice.streamer.flush.interval.ms", "10");
        p.put("sluice.value.string.format", "STRING");
        p.put("errors.tolerance", tolerance);
        return p;
    }

    private static List<SinkRecord> records(long from) {
        List<SinkRecord> out = new ArrayList<>();
        for (long o = from; o < 10; o++) {
            String key = (o == 3 || o == 7 ? "bad" : "k") + o;
            out.add(new SinkRecord(TP.topic(), TP.partition(), Schema.STRING_SCHEMA, key, Schema.STRING_SCHEMA,
                    "v" + o, o));
        }
        return out;
    }

    @Test
    void entriesTheNodeRefusesGoToTheErrantRecordReporterAndTheRestIsCommitted() {
        task.start(props("all"));
        task.open(List.of(TP));
        task.put(records(0));
        Map<TopicPartition, OffsetAndMetadata> current = Map.of(TP, new OffsetAndMetadata(10));
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            Long seek = context.seeks.remove(TP);
            task.put(seek == null ? List.of() : records(seek)); // the worker redelivers from a seek
            OffsetAndMetadata committed = task.preCommit(current).get(TP);
            return committed != null && committed.offset() == 10;
        });
        assertThat(context.reported).extracting(SinkRecord::kafkaOffset).containsExactly(3L, 7L);
        assertThat(context.reported).extracting(SinkRecord::key).containsExactly("bad3", "bad7");
        try (var client = io.sluice.client.SluiceClient.connect(io.sluice.client.ClientConfig.addresses(
                "127.0.0.1:" + server.address().getPort()))) {
            Cache<String, String> cache = client.cache("orders");
            assertThat(cache.size()).isEqualTo(8);
            for (long o : new long[] {0, 1, 2, 4, 5, 6, 8, 9}) {
                assertThat(cache.get("k" + o)).isEqualTo("v" + o);
            }
        }
    }

    @Test
    void aRecordReportedBeforeTheNodeRejectsAnEarlierOneIsNotReportedAgainWhenItComesAgain() {
        task.start(props("all"));
        task.open(List.of(TP));
        // offset 3: the node refuses it (the partition seeks back to 3); offset 5: no key, reported by the task
        // at once, then delivered again by that seek
        java.util.function.LongFunction<List<SinkRecord>> from = start -> {
            List<SinkRecord> out = new ArrayList<>();
            for (long o = start; o < 10; o++) {
                String key = o == 5 ? null : (o == 3 ? "bad" : "k") + o;
                out.add(new SinkRecord(TP.topic(), TP.partition(), Schema.STRING_SCHEMA, key, Schema.STRING_SCHEMA,
                        "v" + o, o));
            }
            return out;
        };
        task.put(from.apply(0));
        Map<TopicPartition, OffsetAndMetadata> current = Map.of(TP, new OffsetAndMetadata(10));
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            Long seek = context.seeks.remove(TP);
            task.put(seek == null ? List.of() : from.apply(seek));
            OffsetAndMetadata committed = task.preCommit(current).get(TP);
            return committed != null && committed.offset() == 10;
        });
        assertThat(context.reported).extracting(SinkRecord::kafkaOffset).containsExactlyInAnyOrder(3L, 5L);
    }

    @Test
    void withoutToleranceARefusedEntryFailsTheTaskNamingItsOffset() {
        task.start(props("none"));
        task.open(List.of(TP));
        task.put(records(0));
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> assertThatThrownBy(() -> task.put(List.of()))
                .isInstanceOf(ConnectException.class).hasMessageContaining("topic orders partition 0 from offset 3"));
        assertThat(context.reported).isEmpty();
        assertThat(task.preCommit(Map.of(TP, new OffsetAndMetadata(10))).get(TP).offset()).isEqualTo(3);
    }

    @Test
    void recordsOfPartitionsInterleavedInOnePutAreTrackedAndCommittedPerPartition() {
        Map<String, String> p = props("all");
        p.put("sluice.receiver", "batched");
        p.put("sluice.value.string.format", "JSON");
        task.start(p);
        task.open(List.of(TP, TP1));
        // runs of one partition, then the other, then single records alternating; offset 4 of partition 1
        // is not JSON and goes to the errant record reporter
        List<SinkRecord> put = new ArrayList<>();
        int[] partitionOf = {0, 0, 0, 1, 1, 0, 1, 0, 1, 1, 0, 1, 1, 0};
        long[] next = new long[2];
        for (int partition : partitionOf) {
            long o = next[partition]++;
            String value = partition == 1 && o == 4 ? "not json" : "{\"n\":" + o + "}";
            put.add(new SinkRecord(TP.topic(), partition, Schema.STRING_SCHEMA, "p" + partition + "-" + o,
                    Schema.STRING_SCHEMA, value, o));
        }
        task.put(put);
        Map<TopicPartition, OffsetAndMetadata> current = Map.of(TP, new OffsetAndMetadata(next[0]),
                TP1, new OffsetAndMetadata(next[1]));
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            task.put(List.of());
            Map<TopicPartition, OffsetAndMetadata> committed = task.preCommit(current);
            return committed.get(TP) != null && committed.get(TP).offset() == next[0]
                    && committed.get(TP1) != null && committed.get(TP1).offset() == next[1];
        });
        assertThat(context.reported).extracting(SinkRecord::kafkaPartition, SinkRecord::kafkaOffset)
                .containsExactly(org.assertj.core.groups.Tuple.tuple(1, 4L));
        try (var client = io.sluice.client.SluiceClient.connect(io.sluice.client.ClientConfig.addresses(
                "127.0.0.1:" + server.address().getPort()))) {
            Cache<String, io.sluice.binary.BinaryObject> cache = client.<String, io.sluice.binary.BinaryObject>cache("orders")
                    .withKeepBinary();
            assertThat(cache.size()).isEqualTo(partitionOf.length - 1);
            for (int partition = 0; partition < 2; partition++) {
                for (long o = 0; o < next[partition]; o++) {
                    if (partition == 1 && o == 4) {
                        assertThat(cache.get("p1-4")).isNull();
                    } else {
                        assertThat(cache.get("p" + partition + "-" + o).<Long>field("n")).isEqualTo(o);
                    }
                }
            }
        }
    }

    /** The worker's side: seeks asked for, and a reporter that records what it was given. */
    private static final class Context implements SinkTaskContext {
        final Map<TopicPartition, Long> seeks = new ConcurrentHashMap<>();
        final List<SinkRecord> reported = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public Map<String, String> configs() {
            return Map.of();
        }

        @Override
        public void offset(Map<TopicPartition, Long> offsets) {
            seeks.putAll(offsets);
        }

        @Override
        public void offset(TopicPartition tp, long offset) {
            seeks.put(tp, offset);
        }

        @Override
        public void timeout(long timeoutMs) {
        }

        @Override
        public Set<TopicPartition> assignment() {
            return Set.of(TP, TP1);
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
            return (record, error) -> {
                reported.add(record);
                Future<Void> done = CompletableFuture.completedFuture(null);
                return done;
            };
        }

        @Override
        public PluginMetrics pluginMetrics() {
            return null;
        }
    }
}
