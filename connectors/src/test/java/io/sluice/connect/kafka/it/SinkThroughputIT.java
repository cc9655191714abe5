package io.sluice.connect.kafka.it;

import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.Sluice;
import io.sluice.StreamerOptions;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.storage.StringConverter;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sink's throughput figure, off by default (a 2M-record run takes minutes):
 * <pre>
 * ./mvnw -B verify -pl connectors -am -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false \
 *     -Dit.test=SinkThroughputIT -Dsluice.kafka.bench.records=2000000
 * </pre>
 * One run on one machine: a topic of StockOrder JSON records (schemaless) is filled, then read by a
 * plain {@code KafkaConsumer} doing no work (the ceiling), then sunk into a cache by a standalone
 * worker with the packaged plugin, then the same orders are streamed by the Sluice SDK directly.
 * Prints one line per figure and the ratios.
 */
class SinkThroughputIT {

    @TempDir
    static Path dir;

    @Test
    void stockOrdersThroughAStandaloneWorkerVersusAPlainConsumer() throws Exception {
        int records = Integer.getInteger("sluice.kafka.bench.records", 0);
        Assumptions.assumeTrue(records > 0, "set -Dsluice.kafka.bench.records=N to run");
        int partitions = Integer.getInteger("sluice.kafka.bench.partitions", 4);
        int tasks = Integer.getInteger("sluice.kafka.bench.tasks", 1);
        Path plugin = Path.of(System.getProperty("sluice.connect.plugin",
                "target/sluice-kafka-connect-0.1.0-SNAPSHOT-plugin/sluice-kafka-connect"));
        try (NodeProcessOnPort node = new NodeProcessOnPort(dir.resolve("node"),
                nodeJvm());
             KafkaBroker broker = new KafkaBroker(dir)) {
            node.start();
            String topic = "stock-orders";
            broker.createTopic(topic, partitions);

            long t0 = System.nanoTime();
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap(),
                    ProducerConfig.LINGER_MS_CONFIG, "20", ProducerConfig.BATCH_SIZE_CONFIG, "262144",
                    ProducerConfig.ACKS_CONFIG, "1"), new StringSerializer(), new StringSerializer())) {
                for (int i = 0; i < records; i++) {
                    producer.send(new ProducerRecord<>(topic, "o" + i, stockOrderJson(i)));
                }
                producer.flush();
            }
            double fillSeconds = seconds(t0);
            print("fill (KafkaProducer, acks=1)", records, fillSeconds);

            // Every reader reads the topic `passes` times (default 3): the first passes warm the JIT of the worker,
            // the plugin and the node (as a long-running worker and node are), the last one is the figure.
            int passes = Math.max(1, Integer.getInteger("sluice.kafka.bench.passes", 3));
            double consumerSeconds = 0;
            double converterSeconds = 0;
            Cpu consumerCpu = null;
            for (int pass = 1; pass <= passes; pass++) {
                Cpu cpu = Cpu.start(node);
                consumerSeconds = plainConsumer(broker, topic, partitions, records);
                consumerCpu = cpu.stop(node, records);
                print("plain KafkaConsumer (ceiling)" + passName(pass, passes), records, consumerSeconds);
            }
            consumerCpu.print("plain KafkaConsumer (ceiling)");
            // -Dsluice.kafka.bench.others=false: the sinks against the plain consumer only (no JsonConverter consumer,
            // no SDK passes), for shorter A/B runs
            boolean others = Boolean.parseBoolean(System.getProperty("sluice.kafka.bench.others", "true"));
            for (int pass = 1; others && pass <= passes; pass++) {
                converterSeconds = consumerWithJsonConverter(broker, topic, partitions, records);
                print("KafkaConsumer + the worker's JsonConverter" + passName(pass, passes), records, converterSeconds);
            }

            // the sink: a standalone worker loading the packaged plugin; "json" is the usual JsonConverter
            // (schemaless), "bytes" hands the raw JSON to the sink (ByteArrayConverter,
            // sluice.value.bytes.format=JSON), which builds a binary object of it; "raw" stores the JSON bytes as
            // they are (sluice.value.bytes.format=BYTES): the connector's own cost without the conversion; "string"
            // hands it the JSON as text (StringConverter, sluice.value.string.format=JSON).
            // Each pass is a connector of its own (its own consumer group, from the earliest offset) in the same
            // worker, into a cache of its own; a warm-up pass's connector and cache are deleted after it.
            Map<String, SinkFigures> sinks = new java.util.LinkedHashMap<>();
            for (String variant : System.getProperty("sluice.kafka.bench.sinks", "json,bytes,raw").split(",")) {
                if (variant.isBlank()) {
                    continue; // -Dsluice.kafka.bench.sinks= measures the consumers and the SDK only
                }
                try (ConnectWorker worker = new ConnectWorker(broker.bootstrap(), plugin.getParent().toAbsolutePath(),
                        dir.resolve("connect-" + variant));
                     Sluice client = SluiceClient.connect(ClientConfig.addresses(node.address()))) {
                    for (int pass = 1; pass <= passes; pass++) {
                        String name = (pass == passes ? "bench-" : "warm" + pass + "-") + variant;
                        // the wall clock at a pass's start and end, to match a JFR recording or a compilation log to it
                        System.out.printf("BENCH pass %s starts at %s%n", name, java.time.Instant.now());
                        Cpu cpu = Cpu.start(node);
                        SinkFigures f = sinkPass(broker, worker, client, node.address(), name, variant, topic,
                                partitions, tasks, records);
                        Cpu used = cpu.stop(node, records);
                        System.out.printf("BENCH pass %s ends at %s%n", name, java.time.Instant.now());
                        String what = "sink (" + variant + "), standalone worker, " + tasks + " task(s)"
                                + passName(pass, passes);
                        print(what, records, f.seconds);
                        print(what + ", from the first record", records - 1, f.steadySeconds);
                        System.out.printf("BENCH %s: time to first record %.2f s; every offset committed after %.2f s;"
                                + " test JVM heap used, peak while sinking (broker + worker + test): %d MiB%n", what,
                                f.firstRecordSeconds, f.committedSeconds, f.heapPeak >> 20);
                        if (pass == passes) {
                            used.print(what);
                            sinks.put(variant, f);
                        } else {
                            worker.delete(name);
                            client.destroyCache(name);
                        }
                    }
                }
            }

            // the same orders streamed by the SDK directly
            double sdkSeconds = 0;
            try (Sluice client = SluiceClient.connect(ClientConfig.addresses(node.address()))) {
                for (int pass = 1; others && pass <= passes; pass++) {
                    String cache = pass == passes ? "orders-sdk" : "orders-sdk-warm" + pass;
                    Cpu cpu = Cpu.start(node);
                    sdkSeconds = sdkPass(client, cache, records);
                    Cpu used = cpu.stop(node, records);
                    print("Sluice SDK streamer directly (no Kafka)" + passName(pass, passes), records, sdkSeconds);
                    if (pass == passes) {
                        used.print("Sluice SDK streamer directly (no Kafka)");
                    } else {
                        client.destroyCache(cache);
                    }
                }
            }
            for (Map.Entry<String, SinkFigures> e : sinks.entrySet()) {
                SinkFigures f = e.getValue();
                System.out.printf("BENCH sink (%s) / plain consumer: %.0f%% (from the first record: %.0f%%);"
                        + " / consumer + JsonConverter: %.0f%%; / SDK: %.0f%%%n", e.getKey(),
                        100 * consumerSeconds / f.seconds,
                        100 * consumerSeconds / f.steadySeconds * (records - 1) / records,
                        100 * converterSeconds / f.seconds, 100 * sdkSeconds / f.seconds);
            }
        }
    }

    /**
     * CPU time used during a pass by this JVM (broker, worker and test together) and by the node process,
     * per record: where the machine's two cores went.
     */
    private record Cpu(long testJvmNanos, long nodeNanos, int records, long wallNanos, Map<Long, Long> threads,
                       long gcs, long gcMillis) {

        static Cpu start(NodeProcessOnPort node) {
            return new Cpu(testJvmCpuNanos(), node.cpuNanos(), 0, System.nanoTime(), threadCpuNanos(), totalGcs(),
                    totalGcMillis());
        }

        Cpu stop(NodeProcessOnPort node, int records) {
            Map<Long, Long> used = new HashMap<>();
            threadCpuNanos().forEach((id, nanos) -> used.put(id, nanos - threads.getOrDefault(id, 0L)));
            return new Cpu(testJvmCpuNanos() - testJvmNanos, node.cpuNanos() - nodeNanos, records,
                    System.nanoTime() - wallNanos, used, totalGcs() - gcs, totalGcMillis() - gcMillis);
        }

        private static long totalGcs() {
            return ManagementFactory.getGarbageCollectorMXBeans().stream()
                    .mapToLong(java.lang.management.GarbageCollectorMXBean::getCollectionCount).sum();
        }

        private static long totalGcMillis() {
            return ManagementFactory.getGarbageCollectorMXBeans().stream()
                    .mapToLong(java.lang.management.GarbageCollectorMXBean::getCollectionTime).sum();
        }

        /** Prints the CPU per record, and the busiest threads of this JVM as a share of the pass's wall time. */
        void print(String what) {
            System.out.printf("BENCH %s, CPU per record: test JVM (broker + worker + test) %.2f us, node %.2f us%n",
                    what, testJvmNanos / 1e3 / records, nodeNanos / 1e3 / records);
            java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            StringBuilder busiest = new StringBuilder();
            threads.entrySet().stream().sorted(Map.Entry.<Long, Long>comparingByValue().reversed()).limit(5)
                    .forEach(e -> {
                        java.lang.management.ThreadInfo info = mx.getThreadInfo(e.getKey());
                        busiest.append(String.format("; %s %.0f%%", info == null ? "#" + e.getKey()
                                : info.getThreadName(), 100.0 * e.getValue() / wallNanos));
                    });
            System.out.printf("BENCH %s, busiest threads of the test JVM (CPU / wall)%s%n", what, busiest);
            // The test JVM's CPU per record split by thread group (a name with its numbers as #); what no live Java
            // thread accounts for is GC, the JIT and the VM's own threads (and threads that ended during the pass).
            Map<String, Long> groups = new HashMap<>();
            long javaThreads = 0;
            for (Map.Entry<Long, Long> e : threads.entrySet()) {
                java.lang.management.ThreadInfo info = mx.getThreadInfo(e.getKey());
                String group = info == null ? "(ended)" : info.getThreadName().replaceAll("[0-9]+", "#");
                groups.merge(group, e.getValue(), Long::sum);
                javaThreads += e.getValue();
            }
            StringBuilder split = new StringBuilder();
            groups.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(12)
                    .forEach(e -> split.append(String.format("; %s %.3f", e.getKey(), e.getValue() / 1e3 / records)));
            System.out.printf("BENCH %s, test JVM CPU us per record by thread group: GC/JIT/VM (not a live Java"
                    + " thread) %.3f%s; %d collections, %d ms of GC pauses%n", what,
                    (testJvmNanos - javaThreads) / 1e3 / records, split, gcs, gcMillis);
        }

        private static Map<Long, Long> threadCpuNanos() {
            java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            Map<Long, Long> cpu = new HashMap<>();
            for (long id : mx.getAllThreadIds()) {
                long nanos = mx.getThreadCpuTime(id);
                if (nanos > 0) {
                    cpu.put(id, nanos);
                }
            }
            return cpu;
        }

        private static long testJvmCpuNanos() {
            return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                    .getProcessCpuTime();
        }
    }

    private static String passName(int pass, int passes) {
        return passes == 1 ? "" : pass < passes ? " [warm-up pass " + pass + "]" : " [measured pass]";
    }

    /** Seconds for a plain consumer to read every record, doing no work: the ceiling. */
    private static double plainConsumer(KafkaBroker broker, String topic, int partitions, int records) {
        long[] bytes = {0};
        double seconds = readAll(broker, topic, partitions, records, r -> bytes[0] += r.value().length);
        assertThat(bytes[0]).isGreaterThan(100L * records);
        return seconds;
    }

    /** Seconds for a consumer to read every record through the worker's own JSON conversion, no sink. */
    private static double consumerWithJsonConverter(KafkaBroker broker, String topic, int partitions, int records) {
        long[] fields = {0};
        double seconds;
        try (JsonConverter json = new JsonConverter()) {
            json.configure(Map.of("schemas.enable", "false"), false);
            StringConverter keys = new StringConverter();
            keys.configure(Map.of(), true);
            seconds = readAll(broker, topic, partitions, records, r -> {
                keys.toConnectData(topic, r.key());
                fields[0] += ((Map<?, ?>) json.toConnectData(topic, r.value()).value()).size();
            });
        }
        assertThat(fields[0]).isEqualTo(11L * records);
        return seconds;
    }

    /** Seconds for a new consumer to read the topic from its beginning, handing each record to {@code each}. */
    private static double readAll(KafkaBroker broker, String topic, int partitions, int records,
                                  java.util.function.Consumer<ConsumerRecord<byte[], byte[]>> each) {
        long t0 = System.nanoTime();
        long read = 0;
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap(),
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "2000"),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> tps = topicPartitions(topic, partitions);
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            while (read < records) {
                ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofSeconds(1));
                read += batch.count();
                batch.forEach(each);
            }
        }
        return seconds(t0);
    }

    /** What one sink pass measured. */
    private record SinkFigures(double seconds, double steadySeconds, double firstRecordSeconds,
                               double committedSeconds, long heapPeak) {
    }

    /** Creates a connector sinking the whole topic into a cache of its name and times it until every offset is committed. */
    private static SinkFigures sinkPass(KafkaBroker broker, ConnectWorker worker, Sluice client, String address,
                                        String name, String variant, String topic, int partitions, int tasks,
                                        int records) throws Exception {
        Map<String, String> c = new HashMap<>();
        c.put("connector.class", "io.sluice.connect.kafka.SluiceSinkConnector");
        c.put("tasks.max", Integer.toString(tasks));
        c.put("topics", topic);
        c.put("sluice.addresses", address);
        c.put("sluice.cache.name", name);
        c.put("sluice.value.type.name", "StockOrder");
        if (variant.equals("bytes") || variant.equals("raw")) {
            c.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
            c.put("sluice.value.bytes.format", variant.equals("bytes") ? "JSON" : "BYTES");
        } else if (variant.equals("string")) {
            c.put("value.converter", "org.apache.kafka.connect.storage.StringConverter");
            c.put("sluice.value.string.format", "JSON");
        } else {
            c.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
            c.put("value.converter.schemas.enable", "false");
        }
        c.put("consumer.override.auto.offset.reset", "earliest");
        c.put("consumer.override.max.poll.records", "2000");
        // -Dsluice.kafka.bench.config=key=value,key=value sets more of the connector's config
        for (String kv : System.getProperty("sluice.kafka.bench.config", "").split(",")) {
            if (!kv.isBlank()) {
                int eq = kv.indexOf('=');
                if (eq < 1) {
                    throw new IllegalArgumentException("-Dsluice.kafka.bench.config: '" + kv + "' is not key=value");
                }
                c.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
            }
        }
        HeapSampler heap = new HeapSampler();
        heap.start();
        long t0 = System.nanoTime();
        worker.putConnector(name, c);
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(20))
                .until(() -> sizeOrZero(client, name) > 0);
        double firstRecordSeconds = seconds(t0);
        long first = System.nanoTime();
        await().atMost(Duration.ofMinutes(20)).pollInterval(Duration.ofMillis(50))
                .until(() -> sizeOrZero(client, name) >= records);
        double sinkSeconds = seconds(t0);
        double steadySeconds = seconds(first);
        Map<TopicPartition, Long> end = endOffsets(broker, topic, partitions);
        await().atMost(Duration.ofMinutes(5)).pollInterval(Duration.ofMillis(100))
                .until(() -> committed(broker, "connect-" + name).equals(end));
        double committedSeconds = seconds(t0);
        long heapPeak = heap.finish();
        assertThat(client.cache(name).size()).isEqualTo(records);
        worker.assertNoTaskFailed(name);
        return new SinkFigures(sinkSeconds, steadySeconds, firstRecordSeconds, committedSeconds, heapPeak);
    }

    /** Seconds for the SDK's streamer to load the same orders into a new cache. */
    private static double sdkPass(Sluice client, String cache, int records) {
        client.getOrCreateCache(CacheConfig.named(cache));
        long t0 = System.nanoTime();
        try (DataStreamer<String, BinaryObject> s = client.dataStreamer(cache,
                StreamerOptions.builder().allowOverwrite(true).build())) {
            BinaryObjectBuilder b = client.binary().builder("StockOrder");
            for (int i = 0; i < records; i++) {
                s.addData("o" + i, stockOrder(b, i));
            }
        }
        double sdkSeconds = seconds(t0);
        assertThat(client.cache(cache).size()).isEqualTo(records);
        return sdkSeconds;
    }

    private static List<TopicPartition> topicPartitions(String topic, int partitions) {
        List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            tps.add(new TopicPartition(topic, p));
        }
        return tps;
    }

    /** The node's JVM options; -Dsluice.kafka.bench.node.jvm adds some (e.g. a JFR recording), space-separated. */
    private static List<String> nodeJvm() {
        List<String> jvm = new ArrayList<>(List.of("-Xmx512m", "-XX:MaxDirectMemorySize=8g"));
        String extra = System.getProperty("sluice.kafka.bench.node.jvm", "");
        if (!extra.isBlank()) {
            jvm.addAll(List.of(extra.trim().split("\\s+")));
        }
        return jvm;
    }

    /** The StockOrder of samples' {@code StockOrder.forKey}, as schemaless JSON. */
    static String stockOrderJson(long key) {
        return "{\"secCode\":\"SBER\",\"price\":" + (100.0 + (key % 10_000) / 100.0) + ",\"quantity\":" + (1 + key % 1000)
                + ",\"buySell\":\"" + ((key & 1) == 0 ? "B" : "S") + "\",\"secBoard\":\"TQBR\",\"account\":\"L01-00000F00\","
                + "\"user\":\"user" + (key % 100) + "\",\"currency\":\"RUB\",\"commission\":" + 0.01 * (1 + key % 7)
                + ",\"status\":\"NEW\",\"marketMaker\":" + (key % 10 == 0) + "}";
    }

    private static BinaryObject stockOrder(BinaryObjectBuilder b, long key) {
        return b.setField("secCode", "SBER").setDouble("price", 100.0 + (key % 10_000) / 100.0)
                .setLong("quantity", 1 + key % 1000).setField("buySell", (key & 1) == 0 ? "B" : "S")
                .setField("secBoard", "TQBR").setField("account", "L01-00000F00").setField("user", "user" + (key % 100))
                .setField("currency", "RUB").setDouble("commission", 0.01 * (1 + key % 7)).setField("status", "NEW")
                .setBoolean("marketMaker", key % 10 == 0).build();
    }

    private static void print(String what, long records, double seconds) {
        System.out.printf("BENCH %-45s %,d records in %.2f s: %,.0f records/s%n", what, records, seconds,
                records / seconds);
    }

    private static double seconds(long t0) {
        return (System.nanoTime() - t0) / 1e9;
    }

    private static long sizeOrZero(Sluice client, String cache) {
        try {
            return client.cache(cache).size();
        } catch (RuntimeException e) {
            return 0;
        }
    }

    private static Map<TopicPartition, Long> endOffsets(KafkaBroker broker, String topic, int partitions)
            throws Exception {
        try (Admin admin = broker.admin()) {
            Map<TopicPartition, OffsetSpec> q = new HashMap<>();
            for (int p = 0; p < partitions; p++) {
                q.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
            Map<TopicPartition, Long> end = new HashMap<>();
            admin.listOffsets(q).all().get().forEach((tp, info) -> end.put(tp, info.offset()));
            return end;
        }
    }

    private static Map<TopicPartition, Long> committed(KafkaBroker broker, String group) throws Exception {
        try (Admin admin = broker.admin()) {
            Map<TopicPartition, OffsetAndMetadata> m = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
            Map<TopicPartition, Long> out = new HashMap<>();
            m.forEach((tp, o) -> {
                if (o != null) {
                    out.put(tp, o.offset());
                }
            });
            return out;
        }
    }

    /** Samples the heap in use every 100 ms. */
    private static final class HeapSampler {
        private final AtomicLong peak = new AtomicLong();
        private final java.util.concurrent.ScheduledExecutorService timer =
                java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "heap-sampler");
                    t.setDaemon(true);
                    return t;
                });

        void start() {
            timer.scheduleAtFixedRate(() -> peak.accumulateAndGet(
                    ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed(), Math::max),
                    0, 100, java.util.concurrent.TimeUnit.MILLISECONDS);
        }

        long finish() throws InterruptedException {
            timer.shutdownNow();
            timer.awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS);
            return peak.get();
        }
    }
}
