package io.sluice.samples.kafka;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringSerializer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * {@code KafkaLoad}: fills a Kafka topic with StockOrder records (key {@code o<N>}, value JSON with or
 * without JsonConverter's schema envelope) as fast as the broker takes them, for the Sluice sink
 * connector ({@code docs/kafka-connect.md}).
 * <pre>
 * java -cp samples/target/sluice-load.jar io.sluice.samples.kafka.KafkaLoad --bootstrap 127.0.0.1:9092 \
 *     --topic stock-orders --records 2000000 [--schema]
 * </pre>
 * Exit codes: 0 when every record was acknowledged, 1 when the producer failed, 2 for invalid options.
 */
@Command(name = "kafka-load", mixinStandardHelpOptions = true, sortOptions = false, version = "kafka-load 0.1.0",
        description = "Fills a Kafka topic with StockOrder JSON records and prints records/s.")
public final class KafkaLoad implements Callable<Integer> {

    @Option(names = "--bootstrap", required = true, paramLabel = "HOST:PORT", description = "Kafka bootstrap servers.")
    String bootstrap;

    @Option(names = "--topic", defaultValue = "stock-orders", description = "Topic (default: ${DEFAULT-VALUE}).")
    String topic;

    @Option(names = "--records", defaultValue = "2000000", paramLabel = "N",
            description = "Records to write (default: ${DEFAULT-VALUE}).")
    long records;

    @Option(names = "--partitions", defaultValue = "4", paramLabel = "N",
            description = "Partitions of the topic if it is created (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--schema", description = "Write JsonConverter's {schema, payload} envelope (schemas.enable=true).")
    boolean schema;

    @Option(names = "--acks", defaultValue = "1", description = "Producer acks (default: ${DEFAULT-VALUE}).")
    String acks;

    public static void main(String[] args) {
        System.exit(new CommandLine(new KafkaLoad()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
        AtomicReference<Exception> failure = new AtomicReference<>();
        long t0 = System.nanoTime();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.ACKS_CONFIG, acks,
                ProducerConfig.LINGER_MS_CONFIG, "20", ProducerConfig.BATCH_SIZE_CONFIG, "262144"),
                new StringSerializer(), new StringSerializer())) {
            for (long i = 0; i < records && failure.get() == null; i++) {
                String value = schema ? StockOrderJson.withSchema(i) : StockOrderJson.schemaless(i);
                producer.send(new ProducerRecord<>(topic, "o" + i, value), (md, e) -> {
                    if (e != null) {
                        failure.compareAndSet(null, e);
                    }
                });
            }
            producer.flush();
        }
        double s = (System.nanoTime() - t0) / 1e9;
        if (failure.get() != null) {
            System.err.println("kafka-load: the producer failed: " + failure.get());
            return 1;
        }
        System.out.printf("kafka-load: %,d StockOrder records (%s) into %s in %.2f s: %,.0f records/s%n", records,
                schema ? "JSON with schema" : "schemaless JSON", topic, s, records / s);
        return 0;
    }
}
