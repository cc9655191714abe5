package io.sluice.connect.kafka.it;

import io.sluice.Cache;
import io.sluice.Sluice;
import io.sluice.binary.BinaryObject;
import io.sluice.e2e.cluster.ClusterProcesses;
import io.sluice.protocol.internal.ClusterMap;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sink with two tasks feeding a cluster of three node processes (ZooKeeper in this JVM) through
 * {@code sluice.addresses} naming the three: every record of a four-partition topic ends up in the cluster's
 * cache once, with its value, whichever node owns its partition.
 */
@Timeout(value = 480, unit = TimeUnit.SECONDS)
class ClusterSinkIT {

    private static final String CONNECTOR = "io.sluice.connect.kafka.SluiceSinkConnector";
    private static final int RECORDS = Integer.getInteger("sluice.cluster.it.records", 20_000);

    @TempDir
    Path dir;

    @Test
    void twoSinkTasksFeedAThreeNodeCluster() throws Exception {
        Path plugin = Path.of(System.getProperty("sluice.connect.plugin",
                "target/sluice-kafka-connect-0.1.0-SNAPSHOT-plugin/sluice-kafka-connect"));
        assertThat(plugin.resolve("lib")).as("the packaged plugin (run after package)").isDirectory();
        // 64 partitions, not the default 1,024: the sink's records reach every node either way, and the map of
        // three nodes settles in seconds instead of half a minute (ClusterStreamingIT checks the default's spread).
        try (ClusterProcesses cluster = ClusterProcesses.create("sink", Duration.ofSeconds(60), 64)) {
            try {
                cluster.startAll("node-1", "node-2", "node-3");
                ClusterMap map = cluster.awaitSettled(ClusterProcesses.SETTLE);
                assertThat(map.nodes()).hasSize(3);
                try (KafkaBroker broker = new KafkaBroker(dir);
                     ConnectWorker worker = new ConnectWorker(broker.bootstrap(), plugin.getParent().toAbsolutePath(),
                             dir.resolve("connect"));
                     KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                             ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap(),
                             ProducerConfig.LINGER_MS_CONFIG, "5", ProducerConfig.ACKS_CONFIG, "all"),
                             new StringSerializer(), new StringSerializer())) {
                    String topic = "orders";
                    broker.createTopic(topic, 4);
                    Map<String, String> config = new HashMap<>();
                    config.put("connector.class", CONNECTOR);
                    config.put("tasks.max", "2");
                    config.put("topics", topic);
                    config.put("sluice.addresses", String.join(",", cluster.addresses()));
                    config.put("sluice.cache.name", "orders");
                    config.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
                    config.put("value.converter.schemas.enable", "false");
                    config.put("sluice.streamer.flush.interval.ms", "100");
                    config.put("consumer.override.auto.offset.reset", "earliest");
                    worker.putConnector("cluster", config);
                    worker.awaitRunning("cluster", 2);

                    List<Future<RecordMetadata>> sent = new ArrayList<>(RECORDS);
                    for (int i = 0; i < RECORDS; i++) {
                        sent.add(producer.send(new ProducerRecord<>(topic, "o" + i, json(i))));
                    }
                    producer.flush();
                    for (Future<RecordMetadata> f : sent) {
                        f.get(60, TimeUnit.SECONDS);
                    }

                    try (Sluice client = cluster.client()) {
                        await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
                                .ignoreExceptionsMatching(e -> !(e instanceof AssertionError)).until(() -> {
                                    worker.assertNoTaskFailed("cluster");
                                    return client.cache("orders").size() >= RECORDS;
                                });
                        Cache<String, BinaryObject> cache = client.<String, BinaryObject>cache("orders")
                                .withKeepBinary();
                        assertThat(cache.size()).as("size").isEqualTo(RECORDS);
                        long wrong = 0;
                        Set<String> keys = new HashSet<>();
                        for (int from = 0; from < RECORDS; from += 1000) {
                            keys.clear();
                            for (int i = from; i < Math.min(RECORDS, from + 1000); i++) {
                                keys.add("o" + i);
                            }
                            Map<String, BinaryObject> got = cache.getAll(keys);
                            for (int i = from; i < Math.min(RECORDS, from + 1000); i++) {
                                BinaryObject o = got.get("o" + i);
                                if (o == null || ((Number) o.field("id")).longValue() != i
                                        || !("S" + (i % 50)).equals(o.field("symbol"))) {
                                    wrong++;
                                }
                            }
                        }
                        assertThat(wrong).as("records missing or with another value, of %d", RECORDS).isZero();
                    }
                }
            } catch (AssertionError | RuntimeException e) {
                System.err.println(cluster.logs());
                throw e;
            }
        }
    }

    private static String json(int i) {
        return "{\"id\":" + i + ",\"symbol\":\"S" + (i % 50) + "\",\"price\":" + (100 + i % 1000) / 10.0
                + ",\"qty\":" + (i % 100) + "}";
    }
}
