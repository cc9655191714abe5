package io.sluice.connect.kafka.it;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

import java.io.IOException;
import java.io.PrintStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;

import static org.awaitility.Awaitility.await;

/** A real single-node KRaft broker (broker and controller) in this JVM, on loopback ports. */
final class KafkaBroker implements AutoCloseable {

    private final KafkaRaftServer server;
    private final String bootstrap;

    KafkaBroker(Path dir) throws Exception {
        int port = freePort();
        int controllerPort = freePort();
        String logDir = dir.resolve("kafka-logs").toString();
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("log.dirs", logDir);
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "1");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("log.cleaner.dedupe.buffer.size", "2097152");
        p.put("num.network.threads", "2");
        p.put("num.io.threads", "2");
        p.put("auto.create.topics.enable", "false");
        KafkaConfig config = KafkaConfig.fromProps(p, false);
        new Formatter()
                .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
                .setClusterId(Uuid.randomUuid().toString())
                .setNodeId(1)
                .setControllerListenerName("CONTROLLER")
                .setMetadataLogDirectory(logDir)
                .setDirectories(Set.of(logDir))
                .setReleaseVersion(MetadataVersion.latestProduction())
                .run();
        server = new KafkaRaftServer(config, Time.SYSTEM);
        server.startup();
        bootstrap = "127.0.0.1:" + port;
        awaitReady();
    }

    String bootstrap() {
        return bootstrap;
    }

    Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
    }

    /**
     * Creates the topic and waits until every partition has a leader: the controller accepts a topic before
     * the broker leads its partitions, and a producer sending into that gap got NotLeaderOrFollower, then
     * OutOfOrderSequence for its first batch until its delivery timeout (seen once in a full build).
     */
    void createTopic(String name, int partitions) throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get();
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(() -> {
                TopicDescription d = admin.describeTopics(List.of(name)).allTopicNames().get().get(name);
                return d.partitions().size() == partitions
                        && d.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty());
            });
        }
    }

    /** The broker takes requests once a topic can be created (its metadata has the broker registered). */
    private void awaitReady() {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> {
            try (Admin admin = admin()) {
                admin.createTopics(List.of(new NewTopic("__ready", 1, (short) 1))).all().get();
                return true;
            } catch (ExecutionException e) {
                if (e.getCause() instanceof InvalidReplicationFactorException) {
                    return false;
                }
                throw e;
            }
        });
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() {
        server.shutdown();
        server.awaitShutdown();
    }
}
