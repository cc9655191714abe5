package io.sluice.connect.kafka.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.common.utils.Exit;
import org.apache.kafka.connect.cli.ConnectStandalone;
import org.apache.kafka.connect.runtime.Connect;
import org.apache.kafka.connect.runtime.standalone.StandaloneHerder;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import static org.awaitility.Awaitility.await;

/**
 * A real standalone Connect worker in this JVM, loading plugins from plugin.path with
 * plugin.discovery=service_load, driven over its REST API.
 */
final class ConnectWorker implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Connect<StandaloneHerder> connect;
    private final URI url;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    ConnectWorker(String bootstrap, Path pluginPath, Path dir) throws IOException {
        Map<String, String> p = new HashMap<>();
        p.put("bootstrap.servers", bootstrap);
        p.put("key.converter", "org.apache.kafka.connect.storage.StringConverter");
        p.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        p.put("offset.storage.file.filename", Files.createDirectories(dir).resolve("offsets").toString());
        p.put("offset.flush.interval.ms", "500");
        p.put("plugin.path", pluginPath.toString());
        p.put("plugin.discovery", "service_load");
        p.put("listeners", "http://127.0.0.1:0");
        p.put("consumer.max.poll.records", "2000");
        Exit.setExitProcedure((code, message) -> {
            throw new IllegalStateException("Connect tried to exit with " + code + ": " + message);
        });
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        try {
            connect = new ConnectStandalone().startConnect(p);
        } finally {
            Thread.currentThread().setContextClassLoader(loader);
        }
        url = connect.rest().serverUrl();
    }

    /** Creates or updates a connector. */
    void putConnector(String name, Map<String, String> config) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(url.resolve("/connectors/" + name + "/config"))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(config))).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 != 2) {
            throw new IllegalStateException("PUT connector " + name + ": " + r.statusCode() + " " + r.body());
        }
    }

    JsonNode get(String path) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(url.resolve(path)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 != 2) {
            throw new IllegalStateException("GET " + path + ": " + r.statusCode() + " " + r.body());
        }
        return JSON.readTree(r.body());
    }

    int post(String path) throws Exception {
        return http.send(HttpRequest.newBuilder(url.resolve(path)).POST(HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode();
    }

    void delete(String name) throws Exception {
        http.send(HttpRequest.newBuilder(url.resolve("/connectors/" + name)).DELETE().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** PUT /connector-plugins/{class}/config/validate: the validation result. */
    JsonNode validate(String connectorClass, Map<String, String> config) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(
                        url.resolve("/connector-plugins/" + connectorClass + "/config/validate"))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(config))).build(),
                HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(r.body());
    }

    /** Waits until the connector and its tasks all run; fails with the status if a task failed. */
    void awaitRunning(String name, int tasks) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() -> {
            JsonNode s;
            try {
                s = get("/connectors/" + name + "/status");
            } catch (IllegalStateException e) {
                return false;
            }
            for (JsonNode t : s.path("tasks")) {
                if ("FAILED".equals(t.path("state").asText())) {
                    throw new AssertionError("task failed: " + t.path("trace").asText());
                }
            }
            int running = 0;
            for (JsonNode t : s.path("tasks")) {
                if ("RUNNING".equals(t.path("state").asText())) {
                    running++;
                }
            }
            return "RUNNING".equals(s.path("connector").path("state").asText()) && running == tasks;
        });
    }

    /** Throws if a task of the connector failed (with its trace). */
    void assertNoTaskFailed(String name) throws Exception {
        JsonNode s = get("/connectors/" + name + "/status");
        for (JsonNode t : s.path("tasks")) {
            if ("FAILED".equals(t.path("state").asText())) {
                throw new AssertionError("task failed: " + t.path("trace").asText());
            }
        }
    }

    @Override
    public void close() {
        connect.stop();
        connect.awaitStop();
        Exit.resetExitProcedure();
    }
}
