package io.sluice.connect.kafka.it;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.Cache;
import io.sluice.Sluice;
import io.sluice.binary.BinaryObject;
import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.LongSerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sink on real parts: a KRaft broker and a standalone Connect worker in this JVM, the worker
 * loading the packaged plugin (connectors/target/...-plugin) from plugin.path — this module's classes
 * are not on the test class path — and Sluice nodes as separate processes.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 150, unit = TimeUnit.SECONDS)
class SluiceSinkIT {

    private static final String CONNECTOR = "io.sluice.connect.kafka.SluiceSinkConnector";

    @TempDir
    static Path dir;

    private KafkaBroker broker;
    private ConnectWorker worker;
    private NodeProcessOnPort node;
    private KafkaProducer<String, String> producer;

    @BeforeAll
    void start() throws Exception {
        Path plugin = Path.of(System.getProperty("sluice.connect.plugin",
                "target/sluice-kafka-connect-0.1.0-SNAPSHOT-plugin/sluice-kafka-connect"));
        assertThat(plugin.resolve("lib")).as("the packaged plugin (run after package)").isDirectory();
        assertThat(classOnTestClassPath()).as("the connector must come from the plugin, not the class path").isFalse();
        node = new NodeProcessOnPort(dir.resolve("node"));
        node.start();
        broker = new KafkaBroker(dir);
        worker = new ConnectWorker(broker.bootstrap(), plugin.getParent().toAbsolutePath(), dir.resolve("connect"));
        producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap(),
                ProducerConfig.LINGER_MS_CONFIG, "5", ProducerConfig.ACKS_CONFIG, "all"),
                new StringSerializer(), new StringSerializer());
    }

    @AfterAll
    void stop() throws Exception {
        if (producer != null) {
            producer.close();
        }
        if (worker != null) {
            worker.close();
        }
        if (broker != null) {
            broker.close();
        }
        if (node != null) {
            node.close();
        }
    }

    @Test
    void pluginIsListedAndBadConfigIsRefusedNamingTheKey() throws Exception {
        JsonNode plugins = worker.get("/connector-plugins?connectorsOnly=true");
        assertThat(plugins.findValuesAsText("class")).contains(CONNECTOR);
        JsonNode result = worker.validate(CONNECTOR, Map.of("connector.class", CONNECTOR, "topics", "t",
                "sluice.addresses", "127.0.0.1:notaport", "sluice.key.mode", "VALUE_FIELDS"));
        assertThat(result.path("error_count").asInt()).isGreaterThanOrEqualTo(1);
        String errors = result.path("configs").findValues("errors").toString();
        assertThat(errors).contains("sluice.addresses");
    }

    @Test
    void structsWithSchemaAndTombstones() throws Exception {
        String topic = "orders-schema";
        broker.createTopic(topic, 1);
        Map<String, String> config = base("schema", topic);
        config.put("value.converter.schemas.enable", "true");
        config.put("sluice.value.type.name", "StockOrder");
        worker.putConnector("schema", config);
        worker.awaitRunning("schema", 1);

        List<Future<RecordMetadata>> sent = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            String note = i % 3 == 0 ? "null" : "\"n" + i + "\"";
            String value = "{\"schema\":{\"type\":\"struct\",\"name\":\"StockOrder\",\"fields\":["
                    + "{\"field\":\"id\",\"type\":\"int64\"},{\"field\":\"symbol\",\"type\":\"string\"},"
                    + "{\"field\":\"price\",\"type\":\"double\"},{\"field\":\"qty\",\"type\":\"int32\"},"
                    + "{\"field\":\"note\",\"type\":\"string\",\"optional\":true}]},"
                    + "\"payload\":{\"id\":" + i + ",\"symbol\":\"S" + (i % 7) + "\",\"price\":" + (i + 0.5)
                    + ",\"qty\":" + (i * 10) + ",\"note\":" + note + "}}";
            sent.add(producer.send(new ProducerRecord<>(topic, "o" + i, value)));
        }
        for (int i = 0; i < 50; i++) {
            sent.add(producer.send(new ProducerRecord<>(topic, "o" + i, null))); // tombstones
        }
        producer.flush();
        awaitAllCommitted("schema", topic);

        try (Sluice client = client(node)) {
            Cache<String, BinaryObject> cache = client.<String, BinaryObject>cache("schema").withKeepBinary();
            assertThat(cache.size()).isEqualTo(250);
            for (int i = 0; i < 300; i++) {
                BinaryObject o = cache.get("o" + i);
                if (i < 50) {
                    assertThat(o).as("o%d was deleted by its tombstone", i).isNull();
                    continue;
                }
                assertThat(o).as("o%d", i).isNotNull();
                assertThat(o.type().typeName()).isEqualTo("StockOrder");
                assertThat((Long) o.field("id")).isEqualTo((long) i);
                assertThat((String) o.field("symbol")).isEqualTo("S" + (i % 7));
                assertThat((Double) o.field("price")).isEqualTo(i + 0.5);
                assertThat((Integer) o.field("qty")).isEqualTo(i * 10);
                assertThat((String) o.field("note")).isEqualTo(i % 3 == 0 ? null : "n" + i);
            }
        }
        worker.assertNoTaskFailed("schema");
    }

    @Test
    void schemalessJsonNullKeysAndPoisonRecordsInTheDeadLetterQueue() throws Exception {
        String topic = "orders-plain";
        String dlq = "orders-plain-dlq";
        broker.createTopic(topic, 1);
        Map<String, String> config = base("plain", topic);
        config.put("value.converter.schemas.enable", "false");
        config.put("errors.tolerance", "all");
        config.put("errors.deadletterqueue.topic.name", dlq);
        config.put("errors.deadletterqueue.topic.replication.factor", "1");
        config.put("errors.deadletterqueue.context.headers.enable", "true");
        config.put("behavior.on.null.keys", "FAIL");
        worker.putConnector("plain", config);
        // a second connector on the same topic keys null-key records by topic/partition/offset
        Map<String, String> byOffset = base("plain-tpo", topic);
        byOffset.put("value.converter.schemas.enable", "false");
        byOffset.put("errors.tolerance", "all");
        byOffset.put("behavior.on.null.keys", "TOPIC_PARTITION_OFFSET");
        worker.putConnector("plain-tpo", byOffset);
        worker.awaitRunning("plain", 1);
        worker.awaitRunning("plain-tpo", 1);

        // values that are JSON but not objects: the sink loads objects, these are errant with their reason
        Map<Long, String> notObjects = Map.of(160L, "[1,2,3]", 170L, "42", 175L, "1.5", 180L, "true");
        Set<Long> poison = new HashSet<>(Set.of(50L, 100L, 150L));
        poison.addAll(notObjects.keySet());
        for (int i = 0; i < 200; i++) {
            String key = "p" + i;
            String value = "{\"id\":" + i + ",\"symbol\":\"S\",\"price\":1.5,\"qty\":" + i + "}";
            if (i == 50) {
                key = null; // null key
            } else if (i == 100) {
                value = "{not json"; // the worker's converter fails
            } else if (i == 150) {
                value = "{\"id\":\"one hundred fifty\",\"symbol\":\"S\"}"; // id registered as a long: the sink fails it
            } else if (notObjects.containsKey((long) i)) {
                value = notObjects.get((long) i);
            }
            producer.send(new ProducerRecord<>(topic, key, value));
        }
        producer.flush();
        awaitAllCommitted("plain", topic);
        awaitAllCommitted("plain-tpo", topic);

        List<ConsumerRecord<String, String>> dead = readAll(dlq, poison.size());
        Set<Long> deadOffsets = new HashSet<>();
        for (ConsumerRecord<String, String> r : dead) {
            Header h = r.headers().lastHeader("__connect.errors.offset");
            assertThat(h).as("error context headers").isNotNull();
            long offset = Long.parseLong(new String(h.value(), StandardCharsets.UTF_8));
            deadOffsets.add(offset);
            assertThat(new String(r.headers().lastHeader("__connect.errors.topic").value(), StandardCharsets.UTF_8))
                    .isEqualTo(topic);
            if (notObjects.containsKey(offset)) {
                assertThat(r.value()).isEqualTo(notObjects.get(offset));
                String reason = new String(r.headers().lastHeader("__connect.errors.exception.message").value(),
                        StandardCharsets.UTF_8);
                assertThat(reason).as("DLQ reason of %s", r.value()).contains("not an object")
                        .contains(offset == 160 ? "the value is an array" : offset == 180 ? "the value is a boolean"
                                : "the value is a number");
            }
        }
        assertThat(deadOffsets).isEqualTo(poison);

        try (Sluice client = client(node)) {
            Cache<String, BinaryObject> cache = client.<String, BinaryObject>cache("plain").withKeepBinary();
            assertThat(cache.size()).isEqualTo(200 - poison.size());
            for (int i = 0; i < 200; i++) {
                BinaryObject o = cache.get("p" + i);
                if (poison.contains((long) i)) {
                    assertThat(o).as("poison record %d", i).isNull();
                } else {
                    assertThat(o).as("p%d", i).isNotNull();
                    assertThat((Long) o.field("qty")).isEqualTo(i);
                    assertThat(o.hasField("note")).isFalse();
                }
            }
            Cache<String, BinaryObject> tpo = client.<String, BinaryObject>cache("plain-tpo").withKeepBinary();
            // the null-key record is kept, keyed by its position; the non-objects are skipped (no DLQ topic)
            assertThat(tpo.size()).isEqualTo(198 - notObjects.size());
            assertThat((Long) tpo.get(topic + "/0/50").field("id")).isEqualTo(50);
        }
        worker.assertNoTaskFailed("plain");
        worker.assertNoTaskFailed("plain-tpo");
    }

    @Test
    void longConverterKeysAndRawJsonBytesThatAreNotObjectsInTheDeadLetterQueue() throws Exception {
        String topic = "orders-numeric";
        String dlq = "orders-numeric-dlq";
        String name = "numeric";
        broker.createTopic(topic, 1);
        Map<String, String> config = base(name, topic);
        config.put("key.converter", "org.apache.kafka.connect.converters.LongConverter");
        config.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
        config.put("sluice.value.bytes.format", "JSON");
        // a type of its own: StockOrder is registered by another test with an int32 qty
        config.put("sluice.value.type.name", "NumericOrder");
        config.put("errors.tolerance", "all");
        config.put("errors.deadletterqueue.topic.name", dlq);
        config.put("errors.deadletterqueue.topic.replication.factor", "1");
        config.put("errors.deadletterqueue.context.headers.enable", "true");
        worker.putConnector(name, config);
        worker.awaitRunning(name, 1);

        Map<Long, String> notObjects = Map.of(20L, "[1,2,3]", 30L, "42", 40L, "\"text\"");
        try (KafkaProducer<Long, String> longKeys = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap(), ProducerConfig.ACKS_CONFIG, "all"),
                new LongSerializer(), new StringSerializer())) {
            for (long id = 0; id < 50; id++) {
                longKeys.send(new ProducerRecord<>(topic, id, notObjects.getOrDefault(id, json((int) id))));
            }
            longKeys.flush();
        }
        awaitAllCommitted(name, topic);

        Set<Long> deadOffsets = new HashSet<>();
        for (ConsumerRecord<String, String> r : readAll(dlq, notObjects.size())) {
            long offset = Long.parseLong(new String(r.headers().lastHeader("__connect.errors.offset").value(),
                    StandardCharsets.UTF_8));
            deadOffsets.add(offset);
            String reason = new String(r.headers().lastHeader("__connect.errors.exception.message").value(),
                    StandardCharsets.UTF_8);
            assertThat(reason).as("DLQ reason of %s", r.value()).contains("not a JSON object")
                    .contains("sluice.value.bytes.format=JSON")
                    .contains(offset == 20 ? "a JSON array" : offset == 30 ? "a JSON number" : "a JSON string");
        }
        assertThat(deadOffsets).isEqualTo(notObjects.keySet());

        try (Sluice client = client(node)) {
            Cache<Long, BinaryObject> cache = client.<Long, BinaryObject>cache(name).withKeepBinary();
            assertThat(cache.size()).isEqualTo(50 - notObjects.size());
            for (long id = 0; id < 50; id++) {
                BinaryObject o = cache.get(id);
                if (notObjects.containsKey(id)) {
                    assertThat(o).as("not an object: %d", id).isNull();
                } else {
                    assertThat(o).as("numeric key %d", id).isNotNull();
                    assertThat((Long) o.field("id")).isEqualTo(id);
                }
            }
            assertThat(client.<String, BinaryObject>cache(name).withKeepBinary().get("1"))
                    .as("the key is the Long, not its text").isNull();
        }
        worker.assertNoTaskFailed(name);
        worker.delete(name);
    }

    @Test
    void nodeKilledMidStreamLosesNothingPastTheCommittedOffsets() throws Exception {
        String topic = "orders-kill";
        String name = "kill";
        broker.createTopic(topic, 2);
        try (NodeProcessOnPort victim = new NodeProcessOnPort(dir.resolve("victim"))) {
            victim.start();
            Map<String, String> config = base(name, topic);
            config.put("sluice.addresses", victim.address());
            config.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
            config.put("sluice.value.type.name", "StockOrder");
            config.put("sluice.streamer.flush.interval.ms", "50");
            config.put("sluice.retry.backoff.ms", "200");
            config.put("sluice.retry.backoff.max.ms", "1000");
            config.put("sluice.retry.timeout.ms", "60000");
            config.put("sluice.connect.timeout.ms", "2000");
            config.put("sluice.request.timeout.ms", "5000");
            worker.putConnector(name, config);
            worker.awaitRunning(name, 1);

            int total = 20_000;
            Map<String, long[]> where = new java.util.concurrent.ConcurrentHashMap<>(); // key -> {partition, offset}
            AtomicReference<Throwable> producerFailure = new AtomicReference<>();
            java.util.concurrent.CountDownLatch nodeKilled = new java.util.concurrent.CountDownLatch(1);
            Thread load = new Thread(() -> {
                try {
                    for (int i = 0; i < total; i++) {
                        String key = "k" + i;
                        producer.send(new ProducerRecord<>(topic, i % 2, key, json(i)), (md, e) -> {
                            if (e != null) {
                                producerFailure.set(e);
                            } else {
                                where.put(key, new long[] {md.partition(), md.offset()});
                            }
                        });
                        if (i == total / 2 - 1) {
                            // the second half is produced once the node is dead: the kill lands mid-stream
                            producer.flush();
                            if (!nodeKilled.await(90, TimeUnit.SECONDS)) {
                                throw new IllegalStateException("the node was not killed within 90 s");
                            }
                        }
                    }
                    producer.flush();
                } catch (Throwable t) {
                    producerFailure.set(t);
                }
            }, "load");
            load.start();
            try (Sluice client = client(victim)) {
                // Mid-stream: the node holds part of the first half, and the worker has committed some of it
                // (it commits every offset.flush.interval.ms; a fast node can pass 4,000 entries before the first).
                await().atMost(Duration.ofSeconds(60)).until(() -> sizeOrZero(client, name) >= 4_000
                        && committed(name).values().stream().mapToLong(Long::longValue).sum() > 0);
            }
            victim.kill();
            assertThat(load.isAlive()).as("the node was killed mid-stream").isTrue();
            nodeKilled.countDown();
            // Nothing the dead node did not acknowledge may be committed: once the task has noticed, the
            // committed offsets stop moving.
            AtomicReference<Map<TopicPartition, Long>> committedAtKill = new AtomicReference<>(committed(name));
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(250)).until(() -> {
                Map<TopicPartition, Long> now = committed(name);
                boolean same = now.equals(committedAtKill.get());
                committedAtKill.set(now);
                return same && Files.exists(dir) && stableFor(name, now, Duration.ofMillis(1500));
            });
            Map<TopicPartition, Long> cut = committedAtKill.get();
            long committedRecords = cut.values().stream().mapToLong(Long::longValue).sum();
            assertThat(committedRecords).as("some records were committed before the kill").isPositive();

            victim.start(); // same address, empty store
            load.join(TimeUnit.SECONDS.toMillis(60));
            assertThat(producerFailure.get()).isNull();
            assertThat(where).hasSize(total);
            awaitAllCommitted(name, topic);
            worker.assertNoTaskFailed(name);

            // at-least-once, record by record: every record past the offsets committed when the node died
            // was applied by the restarted node
            int expected = 0;
            try (Sluice client = client(victim)) {
                Cache<String, BinaryObject> cache = client.<String, BinaryObject>cache(name).withKeepBinary();
                List<String> keys = new ArrayList<>();
                for (Map.Entry<String, long[]> e : where.entrySet()) {
                    long[] po = e.getValue();
                    Long from = cut.get(new TopicPartition(topic, (int) po[0]));
                    if (from == null || po[1] >= from) {
                        keys.add(e.getKey());
                    }
                }
                expected = keys.size();
                List<String> missing = new ArrayList<>();
                for (int i = 0; i < keys.size(); i += 1000) {
                    List<String> chunk = keys.subList(i, Math.min(keys.size(), i + 1000));
                    Map<String, BinaryObject> got = cache.getAll(new HashSet<>(chunk));
                    for (String k : chunk) {
                        BinaryObject o = got.get(k);
                        if (o == null) {
                            missing.add(k + "@" + where.get(k)[0] + "/" + where.get(k)[1]);
                        } else {
                            assertThat((Long) o.field("id")).isEqualTo(Long.parseLong(k.substring(1)));
                        }
                    }
                }
                missing.sort(null);
                assertThat(missing).as("records past the committed offsets %s (cache size %d)", cut, cache.size())
                        .isEmpty();
            }
            assertThat(expected).as("records past the committed offsets").isPositive();
            worker.delete(name);
        }
    }

    @Test
    void rebalancesAndATaskRestartLoseNothing() throws Exception {
        String topic = "orders-rebalance";
        String name = "rebalance";
        broker.createTopic(topic, 4);
        Map<String, String> config = base(name, topic);
        config.put("value.converter.schemas.enable", "false");
        config.put("tasks.max", "1");
        worker.putConnector(name, config);
        worker.awaitRunning(name, 1);
        // records keep coming while tasks are added, restarted and removed: the rebalances happen mid-stream
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicInteger sent = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.CompletableFuture<Void> stream = java.util.concurrent.CompletableFuture.runAsync(() -> {
            while (!stop.get() || sent.get() < 8000) {
                sent.set(produce(topic, sent.get(), 250));
            }
        });
        await().atMost(Duration.ofSeconds(30)).until(() -> sent.get() >= 2000);
        config.put("tasks.max", "3"); // tasks added
        worker.putConnector(name, config);
        worker.awaitRunning(name, 3);
        assertThat(worker.post("/connectors/" + name + "/tasks/1/restart")).isLessThan(300);
        worker.awaitRunning(name, 3);
        config.put("tasks.max", "2"); // a task removed
        worker.putConnector(name, config);
        worker.awaitRunning(name, 2);
        stop.set(true);
        stream.get(60, TimeUnit.SECONDS);
        int n = sent.get();
        awaitAllCommitted(name, topic);
        worker.assertNoTaskFailed(name);
        try (Sluice client = client(node)) {
            Cache<String, BinaryObject> cache = client.<String, BinaryObject>cache(name).withKeepBinary();
            assertThat(cache.size()).isEqualTo(n);
            Set<String> keys = new HashSet<>();
            for (int i = 0; i < n; i++) {
                keys.add("k" + i);
            }
            Map<String, BinaryObject> got = cache.getAll(keys);
            assertThat(got.keySet()).isEqualTo(keys);
            for (Map.Entry<String, BinaryObject> e : got.entrySet()) {
                assertThat((Long) e.getValue().field("id")).isEqualTo(Long.parseLong(e.getKey().substring(1)));
            }
        }
    }

    @Test
    void fullBufferMemoryPausesAndRedeliversWithoutLoss() throws Exception {
        String topic = "orders-tiny";
        String name = "tiny";
        broker.createTopic(topic, 2);
        Map<String, String> config = base(name, topic);
        config.put("value.converter.schemas.enable", "false");
        config.put("sluice.streamer.buffer.memory", "16384"); // about a hundred records
        config.put("sluice.streamer.buffer.bytes", "2048");
        config.put("sluice.streamer.max.block.ms", "0"); // never wait: ask the worker to redeliver at once
        config.put("sluice.streamer.parallel.operations", "1");
        config.put("sluice.retry.backoff.ms", "5");
        worker.putConnector(name, config);
        worker.awaitRunning(name, 1);
        int n = produce(topic, 0, 5000);
        awaitAllCommitted(name, topic);
        worker.assertNoTaskFailed(name);
        try (Sluice client = client(node)) {
            Cache<String, BinaryObject> cache = client.<String, BinaryObject>cache(name).withKeepBinary();
            assertThat(cache.size()).isEqualTo(n);
        }
        worker.delete(name);
    }

    @Test
    void anUnreachableNodeFailsTheTaskAfterTheRetryTimeoutWithAClearError() throws Exception {
        String topic = "orders-nowhere";
        String name = "nowhere";
        broker.createTopic(topic, 1);
        Map<String, String> config = base(name, topic);
        config.put("sluice.addresses", "127.0.0.1:" + KafkaBroker.freePort()); // nothing listens there
        config.put("sluice.retry.backoff.ms", "50");
        config.put("sluice.retry.backoff.max.ms", "200");
        config.put("sluice.retry.timeout.ms", "1500");
        worker.putConnector(name, config);
        produce(topic, 0, 10);
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> {
            JsonNode tasks = worker.get("/connectors/" + name + "/status").path("tasks");
            return tasks.size() == 1 && "FAILED".equals(tasks.get(0).path("state").asText());
        });
        String trace = worker.get("/connectors/" + name + "/status").path("tasks").get(0).path("trace").asText();
        assertThat(trace).contains("could not be reached").contains("sluice.retry.timeout.ms=1500");
        assertThat(committed(name)).as("nothing committed").isEmpty();
        worker.delete(name);
    }

    @Test
    void overTlsRecordsArriveAndAnUntrustedCertificateFailsTheTaskClearly() throws Exception {
        Path tls = Files.createDirectories(dir.resolve("tls"));
        Path keys = tls.resolve("node.p12");
        Path cert = tls.resolve("node.pem");
        Path other = tls.resolve("other.p12");
        Path otherCert = tls.resolve("other.pem");
        for (Path[] kc : new Path[][] {{keys, cert}, {other, otherCert}}) {
            keytool("-genkeypair", "-alias", "node", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=127.0.0.1",
                    "-ext", "SAN=ip:127.0.0.1", "-validity", "2", "-storetype", "PKCS12", "-keystore", kc[0].toString(),
                    "-storepass", "changeit");
            keytool("-exportcert", "-rfc", "-alias", "node", "-keystore", kc[0].toString(), "-storepass", "changeit",
                    "-file", kc[1].toString());
        }
        Path nodeConfig = tls.resolve("node.json");
        Files.writeString(nodeConfig, "{\"tls\": {\"keyStore\": \"" + keys.toAbsolutePath()
                + "\", \"keyStorePassword\": \"changeit\"}}");
        try (NodeProcessOnPort tlsNode = new NodeProcessOnPort(tls.resolve("node"), List.of("-Xmx256m"),
                List.of("--config", nodeConfig.toString()))) {
            tlsNode.start();
            String topic = "orders-tls";
            broker.createTopic(topic, 2);
            Map<String, String> config = base("tls", topic);
            config.put("value.converter.schemas.enable", "false");
            config.put("sluice.addresses", tlsNode.address());
            config.put("sluice.tls.enabled", "true");
            config.put("sluice.tls.trusted.certificates", cert.toString());
            worker.putConnector("tls", config);
            int n = produce(topic, 0, 1000);
            awaitAllCommitted("tls", topic);
            try (Sluice client = SluiceClient.connect(ClientConfig.builder().addresses(tlsNode.address()).tls(cert)
                    .connectTimeout(Duration.ofSeconds(5)).requestTimeout(Duration.ofSeconds(10)).build())) {
                Cache<String, BinaryObject> cache = client.<String, BinaryObject>cache("tls").withKeepBinary();
                assertThat(cache.size()).isEqualTo(n);
                for (int i = 0; i < n; i++) {
                    BinaryObject o = cache.get("k" + i);
                    assertThat(o).as("record k%d", i).isNotNull();
                    assertThat((Long) o.field("id")).isEqualTo((long) i);
                }
            }
            worker.delete("tls");

            // trusting another certificate: the task fails at once, naming the key to fix
            config.put("sluice.cache.name", "tls-untrusted");
            config.put("sluice.tls.trusted.certificates", otherCert.toString());
            worker.putConnector("tls-untrusted", config);
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(() -> {
                JsonNode tasks = worker.get("/connectors/tls-untrusted/status").path("tasks");
                return tasks.size() == 1 && "FAILED".equals(tasks.get(0).path("state").asText());
            });
            String trace = worker.get("/connectors/tls-untrusted/status").path("tasks").get(0).path("trace").asText();
            assertThat(trace).contains("TLS handshake").contains("sluice.tls.trusted.certificates");
            assertThat(committed("tls-untrusted")).as("nothing committed").isEmpty();
            worker.delete("tls-untrusted");
        }
    }

    private static void keytool(String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
    }

    // ---- helpers ----

    private Map<String, String> base(String name, String topic) {
        Map<String, String> c = new HashMap<>();
        c.put("connector.class", CONNECTOR);
        c.put("tasks.max", "1");
        c.put("topics", topic);
        c.put("sluice.addresses", node.address());
        c.put("sluice.cache.name", name);
        c.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        c.put("sluice.streamer.flush.interval.ms", "100");
        c.put("consumer.override.auto.offset.reset", "earliest");
        return c;
    }

    /** Sends the records and waits for every acknowledgement: a send the broker refused fails the test here. */
    private int produce(String topic, int from, int count) {
        List<Future<RecordMetadata>> sent = new ArrayList<>(count);
        for (int i = from; i < from + count; i++) {
            sent.add(producer.send(new ProducerRecord<>(topic, "k" + i, json(i))));
        }
        producer.flush();
        for (int i = 0; i < count; i++) {
            try {
                sent.get(i).get(60, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("the broker did not take record k" + (from + i) + " of " + topic, e);
            }
        }
        return from + count;
    }

    private static String json(int i) {
        return "{\"id\":" + i + ",\"symbol\":\"S" + (i % 50) + "\",\"price\":" + (100 + i % 1000) / 10.0
                + ",\"qty\":" + (i % 100) + ",\"side\":\"" + (i % 2 == 0 ? "BUY" : "SELL") + "\"}";
    }

    private static Sluice client(NodeProcessOnPort n) {
        return SluiceClient.connect(ClientConfig.builder().addresses(n.address())
                .connectTimeout(Duration.ofSeconds(5)).requestTimeout(Duration.ofSeconds(10)).build());
    }

    private static long sizeOrZero(Sluice client, String cache) {
        try {
            return client.cache(cache).size();
        } catch (RuntimeException e) {
            return 0;
        }
    }

    private Map<TopicPartition, Long> committed(String connector) throws Exception {
        try (Admin admin = broker.admin()) {
            Map<TopicPartition, OffsetAndMetadata> m = admin.listConsumerGroupOffsets("connect-" + connector)
                    .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
            return m.entrySet().stream().filter(e -> e.getValue() != null)
                    .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
        }
    }

    /** Whether the committed offsets stay {@code expected} for the whole of {@code d}. */
    private boolean stableFor(String connector, Map<TopicPartition, Long> expected, Duration d) {
        try {
            await().during(d).atMost(d.plusMillis(500)).pollInterval(Duration.ofMillis(100))
                    .until(() -> committed(connector).equals(expected));
            return true;
        } catch (org.awaitility.core.ConditionTimeoutException changed) {
            return false;
        }
    }

    private Map<TopicPartition, Long> endOffsets(String topic) throws Exception {
        try (Admin admin = broker.admin()) {
            int partitions = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
            Map<TopicPartition, OffsetSpec> q = new HashMap<>();
            for (int p = 0; p < partitions; p++) {
                q.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
            Map<TopicPartition, Long> end = new HashMap<>();
            for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> e
                    : admin.listOffsets(q).all().get().entrySet()) {
                end.put(e.getKey(), e.getValue().offset());
            }
            return end;
        }
    }

    /** Waits until the connector's committed offsets reach the end of every partition of the topic. */
    private void awaitAllCommitted(String connector, String topic) throws Exception {
        Map<TopicPartition, Long> end = endOffsets(topic);
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).untilAsserted(() -> {
            worker.assertNoTaskFailed(connector);
            Map<TopicPartition, Long> c = committed(connector);
            for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
                if (e.getValue() > 0) {
                    assertThat(c.get(e.getKey())).as("committed offset of %s", e.getKey()).isEqualTo(e.getValue());
                }
            }
        });
    }

    private List<ConsumerRecord<String, String>> readAll(String topic, int count) {
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        try (KafkaConsumer<String, String> c = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap(),
                ConsumerConfig.GROUP_ID_CONFIG, "read-" + topic,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(), new StringDeserializer())) {
            c.subscribe(List.of(topic));
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                c.poll(Duration.ofMillis(200)).forEach(out::add);
                return out.size() >= count;
            });
            c.poll(Duration.ofMillis(300)).forEach(out::add); // nothing more should be there
        }
        assertThat(out).hasSize(count);
        return out;
    }

    private static boolean classOnTestClassPath() {
        try {
            Class.forName(CONNECTOR, false, SluiceSinkIT.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
