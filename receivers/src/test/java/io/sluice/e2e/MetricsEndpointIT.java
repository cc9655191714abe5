package io.sluice.e2e;

import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.Sluice;
import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import io.sluice.server.internal.NodeProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The node process with {@code "metricsPort": 0} in its config file serves Prometheus text a scraper can read. */
@Timeout(120)
class MetricsEndpointIT {

    private static final Pattern ENDPOINT = Pattern.compile("Prometheus text at http://127\\.0\\.0\\.1:(\\d+)/metrics");

    @Test
    void theNodeProcessServesItsCountersAtSlashMetrics() throws Exception {
        try (NodeProcess node = NodeProcesses.start("{\"metricsPort\": 0}", List.of())) {
            AtomicInteger port = new AtomicInteger();
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                Matcher m = ENDPOINT.matcher(node.log());
                if (m.find()) {
                    port.set(Integer.parseInt(m.group(1)));
                }
                return port.get() > 0;
            });
            int n = 10_000;
            try (Sluice client = SluiceClient.connect(ClientConfig.addresses(node.address()))) {
                client.createCache(CacheConfig.named("orders").withPartitions(8));
                try (DataStreamer<Long, String> s = client.dataStreamer("orders")) {
                    for (long k = 0; k < n; k++) {
                        s.addData(k, "order-" + k);
                    }
                }
                String text = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                                URI.create("http://127.0.0.1:" + port.get() + "/metrics")).timeout(Duration.ofSeconds(10))
                        .build(), HttpResponse.BodyHandlers.ofString()).body();
                assertThat(text).contains("\nsluice_node_entries_applied_total " + (double) n + "\n")
                        .contains("\nsluice_server_connections 1.0\n")
                        .containsPattern("\nsluice_node_batches_applied_total [1-9]")
                        .contains("# TYPE sluice_node_errors_total counter");
            }
            assertThat(node.stop()).isZero();
        }
    }
}
