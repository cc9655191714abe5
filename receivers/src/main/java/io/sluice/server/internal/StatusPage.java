package io.sluice.server.internal;

import com.sun.net.httpserver.HttpExchange;
import io.sluice.client.internal.Address;
import io.sluice.server.internal.command.StatusPageData;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The node's live status page on its metrics port: {@code GET /status} is one self-contained HTML page (no external
 * resources, its script inline, {@code status.html} beside this class) that fetches {@code GET /status.json} every
 * second and draws the partition map as a grid coloured by owner, the partitions moving, and per member the bytes
 * moving and entries/s. {@code /status.json} is {@link StatusPageData}'s document: the node asks itself for the map
 * and every member for its status, as the {@code status} command does, so the page works from any member (and shows
 * one node for a standalone one); the page adds each member's {@code entriesPerSecond}, the growth of its
 * {@code entriesApplied} since the document before. The document is made at most once per {@link #REUSE_MILLIS}:
 * several open pages cost the members no more than one. Members are reached with the node's token, through TLS on a
 * node with TLS (trusting what the JVM's trust store trusts, as members do for replication).
 */
final class StatusPage {

    /** How long a member may take to answer the page's question. */
    static final Duration MEMBER_TIMEOUT = Duration.ofSeconds(2);
    /** A document this recent is served again rather than made anew. */
    static final long REUSE_MILLIS = 500;
    private static final String HTML_TYPE = "text/html; charset=utf-8";
    private static final String JSON_TYPE = "application/json; charset=utf-8";

    private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
            new com.fasterxml.jackson.databind.ObjectMapper();

    private final Address self;
    private final String token;
    private final SSLContext tls;
    private final byte[] html;
    private byte[] last;
    private long lastMillis;
    /** Per member id, the time and entriesApplied of the document before: for entries/s. */
    private final java.util.Map<String, long[]> applied = new java.util.HashMap<>();

    /**
     * @param self where this node's Sluice port is reached (through TLS: a name its certificate carries)
     * @param tls  a TLS context for a node with TLS, or null for plain TCP
     */
    StatusPage(Address self, String token, SSLContext tls) {
        this.self = self;
        this.token = token;
        this.tls = tls;
        try (InputStream in = StatusPage.class.getResourceAsStream("status.html")) {
            if (in == null) {
                throw new IllegalStateException("status.html is missing from the node's jar");
            }
            this.html = in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code /status}: the page. */
    void page(HttpExchange exchange) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            if (!path.equals("/status") && !path.equals("/status/")) {
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            send(exchange, 200, HTML_TYPE, html);
        }
    }

    /** {@code /status.json}: the document the page draws (503 with an error if this node does not answer). */
    void json(HttpExchange exchange) throws IOException {
        try (exchange) {
            byte[] body;
            int code = 200;
            try {
                body = document();
            } catch (IOException e) {
                code = 503;
                body = ("{\"error\":" + com.fasterxml.jackson.databind.node.TextNode.valueOf(String.valueOf(
                        e.getMessage())) + "}").getBytes(StandardCharsets.UTF_8);
            }
            send(exchange, code, JSON_TYPE, body);
        }
    }

    private synchronized byte[] document() throws IOException {
        long now = System.currentTimeMillis();
        if (last == null || now - lastMillis >= REUSE_MILLIS) {
            last = withRates(StatusPageData.json(self, token, MEMBER_TIMEOUT, tls)).getBytes(StandardCharsets.UTF_8);
            lastMillis = System.currentTimeMillis();
        }
        return last;
    }

    /**
     * Adds {@code entriesPerSecond} to each member whose {@code status.entriesApplied} this page saw in an earlier
     * document: its growth per second since then (a member that restarted, whose counter went down, gets none).
     */
    private String withRates(String document) throws IOException {
        com.fasterxml.jackson.databind.JsonNode root = JSON.readTree(document);
        long time = root.path("time").asLong();
        for (com.fasterxml.jackson.databind.JsonNode m : root.path("members")) {
            com.fasterxml.jackson.databind.JsonNode count = m.path("status").path("entriesApplied");
            if (!count.isNumber() || count.asLong() < 0) {
                continue;
            }
            String id = m.path("id").asText();
            long[] before = applied.put(id, new long[]{time, count.asLong()});
            if (before != null && time > before[0] && count.asLong() >= before[1]) {
                ((com.fasterxml.jackson.databind.node.ObjectNode) m).put("entriesPerSecond",
                        Math.round((count.asLong() - before[1]) * 1000.0 / (time - before[0])));
            }
        }
        return JSON.writeValueAsString(root);
    }

    private static void send(HttpExchange exchange, int code, String type, byte[] body) throws IOException {
        String method = exchange.getRequestMethod();
        if (!method.equals("GET") && !method.equals("HEAD")) {
            exchange.getResponseHeaders().set("Allow", "GET, HEAD");
            exchange.sendResponseHeaders(405, -1);
            return;
        }
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.getResponseHeaders().set("Cache-Control", "no-store");
        if (method.equals("HEAD")) {
            exchange.sendResponseHeaders(code, -1);
            return;
        }
        exchange.sendResponseHeaders(code, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }
}
