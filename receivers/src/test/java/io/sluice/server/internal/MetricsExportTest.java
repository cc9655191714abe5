package io.sluice.server.internal;

import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.Sluice;
import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import io.sluice.node.NodeConfig;
import io.sluice.node.internal.NodeEngine;
import io.sluice.node.internal.NodeMetrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The node's metrics as a scraper and a JMX console see them: a served node, a real client, HTTP and MBeans. */
@Timeout(60)
class MetricsExportTest {

    /** A sample line of Prometheus's text format: name, optional labels, value. */
    private static final Pattern SAMPLE = Pattern.compile("^([a-z_]+(?:\\{[^}]*})?) (\\S+)$", Pattern.MULTILINE);

    private MetricsExport export;
    private NodeEngine node;
    private SluiceServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.closeConnections();
        }
        if (node != null) {
            node.close();
        }
        if (export != null) {
            export.close();
        }
    }

    private void startNode() {
        export = MetricsExport.start("127.0.0.1", 0);
        node = new NodeEngine(NodeConfig.builder().dataRegionMaxSize(256L << 20).applyThreads(2).build(),
                export.registry());
        server = SluiceServer.start(node, ServerConfig.defaults().withPort(0));
    }

    @Test
    void prometheusTextAtSlashMetricsCountsWhatAClientStreamed() throws Exception {
        startNode();
        int n = 30_000;
        try (Sluice client = SluiceClient.connect(ClientConfig.addresses("127.0.0.1:" + server.address().getPort()))) {
            client.createCache(CacheConfig.named("orders").withPartitions(16));
            try (DataStreamer<Long, String> s = client.dataStreamer("orders")) {
                for (long k = 0; k < n; k++) {
                    s.addData(k, "order-" + k);
                }
            }
            assertThatThrownBy(() -> client.<Long, String>cache("missing").get(1L)).isNotNull();

            Map<String, Double> open = scrape();
            assertThat(open).containsEntry("sluice_server_connections", 1.0);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> scrape().get("sluice_server_connections") == 0.0);

        Map<String, Double> m = scrape();
        assertThat(m).containsEntry("sluice_node_entries_applied_total", (double) n);
        double batches = m.get("sluice_node_batches_applied_total");
        assertThat(batches).as("at least one batch per partition").isGreaterThanOrEqualTo(16);
        double entryBytes = m.get("sluice_node_entry_bytes_total");
        assertThat(entryBytes).as("each entry has an 8-byte header").isGreaterThan(8.0 * n)
                .isEqualTo(node.metrics().registry().get(NodeMetrics.ENTRY_BYTES).counter().count());
        assertThat(m.get("sluice_server_received_bytes_total")).as("frames carry the entries and more")
                .isGreaterThan(entryBytes);
        assertThat(m).containsEntry("sluice_node_errors_total{kind=\"CACHE_NOT_FOUND\",scope=\"request\"}", 1.0)
                .containsEntry("sluice_node_errors_total{kind=\"BINARY_FORMAT\",scope=\"batch\"}", 0.0)
                .containsEntry("sluice_node_stripe_queued{stripe=\"0\"}", 0.0)
                .containsEntry("sluice_node_stripe_queued{stripe=\"1\"}", 0.0);
    }

    @Test
    void theMetersAreMBeansInTheSluiceDomain() throws Exception {
        startNode();
        node.createCache(CacheConfig.named("orders").withPartitions(4));
        try (DataStreamer<Long, String> s = node.dataStreamer("orders")) {
            for (long k = 0; k < 1000; k++) {
                s.addData(k, "v" + k);
            }
        }
        MBeanServer mbeans = ManagementFactory.getPlatformMBeanServer();
        Set<ObjectName> names = mbeans.queryNames(new ObjectName(MetricsExport.JMX_DOMAIN + ":*"), null);
        Map<String, ObjectName> byName = new HashMap<>();
        names.forEach(o -> byName.put(o.getKeyProperty("name"), o));
        assertThat(byName).containsKeys("sluiceNodeEntriesApplied", "sluiceNodeBatchesApplied", "sluiceNodeEntryBytes",
                "sluiceServerReceivedBytes", "sluiceServerConnections", "sluiceNodeStripeQueued.stripe.0",
                "sluiceNodeErrors.kind.BINARY_FORMAT.scope.batch");
        assertThat(mbeans.getAttribute(byName.get("sluiceNodeEntriesApplied"), "Count")).isEqualTo(1000L);
        assertThat(byName.get("sluiceNodeEntriesApplied").getKeyProperty("type")).isEqualTo("meters");
        assertThat(byName.get("sluiceServerConnections").getKeyProperty("type")).isEqualTo("gauges");
        assertThat(mbeans.getAttribute(byName.get("sluiceServerConnections"), "Value")).isEqualTo(0.0);

        node.close();
        node = null;
        assertThat(mbeans.queryNames(new ObjectName(MetricsExport.JMX_DOMAIN + ":name=sluiceNode*,*"), null))
                .as("a closed node's meters are unregistered").isEmpty();
    }

    @Test
    void connectionsClosedForWhatTheySentAreCountedAsMalformed() throws Exception {
        startNode();
        try (java.net.Socket garbage = new java.net.Socket("127.0.0.1", server.address().getPort());
             java.net.Socket oversized = new java.net.Socket("127.0.0.1", server.address().getPort())) {
            java.io.DataOutputStream g = new java.io.DataOutputStream(garbage.getOutputStream());
            g.writeInt(8);
            g.writeLong(0x0badc0ffeeL); // not a handshake
            g.flush();
            java.io.DataOutputStream o = new java.io.DataOutputStream(oversized.getOutputStream());
            o.writeInt(Integer.MAX_VALUE); // longer than maxFrameSize
            o.flush();
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(scrape())
                    .containsEntry("sluice_node_errors_total{kind=\"MALFORMED_REQUEST\",scope=\"connection\"}", 2.0));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> scrape().get("sluice_server_connections") == 0.0);
    }

    /** GETs /metrics and reads its samples: "name{labels}" to value. */
    private Map<String, Double> scrape() throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                        + export.httpAddress().getPort() + "/metrics")).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/plain"));
        Map<String, Double> samples = new HashMap<>();
        Matcher m = SAMPLE.matcher(response.body());
        while (m.find()) {
            samples.put(m.group(1), Double.parseDouble(m.group(2)));
        }
        return samples;
    }
}
