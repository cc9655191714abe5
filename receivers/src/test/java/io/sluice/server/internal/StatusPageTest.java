package io.sluice.server.internal;

import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.Sluice;
import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import io.sluice.client.internal.Address;
import io.sluice.node.NodeConfig;
import io.sluice.node.internal.NodeEngine;
import io.sluice.node.internal.cluster.MemberTls;
import io.sluice.testing.TestCertificates;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Path;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The status page on a standalone node's metrics endpoint: the page itself, self-contained; its document with the
 * node alone and, under a load, the node's entries/s; nothing else under {@code /status}; a node with TLS asked
 * through TLS.
 */
@Timeout(60)
class StatusPageTest {

    private final HttpClient http = HttpClient.newHttpClient();
    private NodeEngine node;
    private SluiceServer server;
    private MetricsExport metrics;

    @AfterEach
    void stop() {
        if (metrics != null) {
            metrics.close();
        }
        if (server != null) {
            server.close();
            server.closeConnections();
        }
        if (node != null) {
            node.close();
        }
    }

    private HttpResponse<String> get(String path, String method) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metrics.httpAddress().getPort()
                + path)).method(method, HttpRequest.BodyPublishers.noBody()).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aStandaloneNodeServesItsPageAndItsDocumentWithItsEntriesPerSecond() throws Exception {
        metrics = MetricsExport.start("127.0.0.1", 0);
        node = new NodeEngine(NodeConfig.builder().dataRegionMaxSize(64L << 20).applyThreads(2).build(),
                metrics.registry());
        server = SluiceServer.start(node, ServerConfig.defaults().withPort(0));
        metrics.serveStatusPage(new StatusPage(new Address("127.0.0.1", server.address().getPort()), null, null));

        HttpResponse<String> page = get("/status", "GET");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type")).hasValue("text/html; charset=utf-8");
        assertThat(page.body()).contains("<div id=\"grid\">", "fetch(\"/status.json\"")
                .doesNotContainPattern("(src|href)=\"(https?:)?//");
        assertThat(get("/statusx", "GET").statusCode()).isEqualTo(404);
        assertThat(get("/status.json", "POST").statusCode()).isEqualTo(405);

        HttpResponse<String> first = get("/status.json", "GET");
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.body()).contains("\"mode\":\"standalone\"", "\"entriesApplied\":0")
                .doesNotContain("\"owners\"");
        try (Sluice client = SluiceClient.connect(ClientConfig.addresses("127.0.0.1:"
                + server.address().getPort()))) {
            client.createCache(CacheConfig.named("orders").withPartitions(8));
            try (DataStreamer<Long, Long> s = client.dataStreamer("orders")) {
                for (long k = 0; k < 5_000; k++) {
                    s.addData(k, k);
                }
            }
        }
        // A document made at least REUSE_MILLIS later carries the growth since the one before.
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(200))
                .until(() -> get("/status.json", "GET").body().matches(".*\"entriesPerSecond\":[1-9].*"));
        assertThat(get("/status.json", "GET").body()).contains("\"entriesApplied\":5000");
    }

    @Test
    void aNodeWithTlsIsAskedThroughTls(@TempDir Path dir) throws Exception {
        TestCertificates certs = TestCertificates.make(dir, "node");
        metrics = MetricsExport.start("127.0.0.1", 0);
        node = new NodeEngine(NodeConfig.builder().dataRegionMaxSize(64L << 20).applyThreads(1).build(),
                metrics.registry());
        server = SluiceServer.start(node, ServerConfig.defaults().withPort(0)
                .withTls(new TlsConfig(certs.keyStore(), TestCertificates.PASSWORD)).withToken("s3cret"));
        metrics.serveStatusPage(new StatusPage(new Address("127.0.0.1", server.address().getPort()), "s3cret",
                MemberTls.trusting(certs.certificate())));

        HttpResponse<String> document = get("/status.json", "GET");

        assertThat(document.statusCode()).as(document.body()).isEqualTo(200);
        assertThat(document.body()).contains("\"mode\":\"standalone\"", "\"entriesApplied\":0");
    }
}
