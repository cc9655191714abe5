package io.sluice.server.internal;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.jmx.JmxConfig;
import io.micrometer.jmx.JmxMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Where the node process's metrics go: always MBeans in the platform MBean server (JMX domain
 * {@value #JMX_DOMAIN}); with a metrics port also Prometheus text at {@code http://HOST:PORT/metrics},
 * served by the JDK's {@link HttpServer} on one daemon thread. The node's meters are registered in
 * {@link #registry()}, which feeds both. The same endpoint serves the live status page ({@link StatusPage},
 * {@code /status} and {@code /status.json}) once the node's server has started ({@link #serveStatusPage}).
 */
final class MetricsExport implements AutoCloseable {

    /** The JMX domain of the node's MBeans. */
    static final String JMX_DOMAIN = "sluice";
    /** The content type of Prometheus's text format. */
    private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";

    private final CompositeMeterRegistry registry;
    private final JmxMeterRegistry jmx;
    /** Null without a metrics port. */
    private final PrometheusMeterRegistry prometheus;
    private final HttpServer http;
    private final ExecutorService httpThread;

    private MetricsExport(JmxMeterRegistry jmx, PrometheusMeterRegistry prometheus, HttpServer http,
                          ExecutorService httpThread) {
        this.jmx = jmx;
        this.prometheus = prometheus;
        this.http = http;
        this.httpThread = httpThread;
        this.registry = new CompositeMeterRegistry(Clock.SYSTEM);
        registry.add(jmx);
        if (prometheus != null) {
            registry.add(prometheus);
        }
    }

    /**
     * Starts the exports.
     *
     * @param host the address the HTTP endpoint binds (the node's own)
     * @param port the HTTP endpoint's port, 0 = any free port; null = no HTTP endpoint, JMX only
     * @throws IllegalStateException if the port cannot be bound
     */
    static MetricsExport start(String host, Integer port) {
        JmxMeterRegistry jmx = new JmxMeterRegistry(new JmxConfig() {
            @Override
            public String get(String key) {
                return null;
            }

            @Override
            public String domain() {
                return JMX_DOMAIN;
            }
        }, Clock.SYSTEM);
        if (port == null) {
            return new MetricsExport(jmx, null, null, null);
        }
        PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        HttpServer http;
        try {
            http = HttpServer.create(new InetSocketAddress(host, port), 0);
        } catch (IOException | RuntimeException e) {
            jmx.close();
            prometheus.close();
            throw new IllegalStateException("cannot serve metrics on " + host + ":" + port + " (metricsPort): " + e, e);
        }
        // Two threads: a status page waiting for a slow member does not hold up a scrape.
        ExecutorService thread = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "sluice-metrics-http");
            t.setDaemon(true);
            return t;
        });
        http.setExecutor(thread);
        http.createContext("/metrics", exchange -> scrape(exchange, prometheus));
        http.start();
        return new MetricsExport(jmx, prometheus, http, thread);
    }

    private static void scrape(HttpExchange exchange, PrometheusMeterRegistry prometheus) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            if (!method.equals("GET") && !method.equals("HEAD")) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            byte[] body = prometheus.scrape().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", PROMETHEUS_TEXT);
            if (method.equals("HEAD")) {
                exchange.sendResponseHeaders(200, -1);
                return;
            }
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    /** Serves the status page on the HTTP endpoint, if there is one. */
    void serveStatusPage(StatusPage page) {
        if (http != null) {
            http.createContext("/status", page::page);
            http.createContext("/status.json", page::json);
        }
    }

    /** The registry whose meters are exported. */
    MeterRegistry registry() {
        return registry;
    }

    /** The address of the HTTP endpoint (the port chosen when 0 was asked for), or null without one. */
    InetSocketAddress httpAddress() {
        return http == null ? null : http.getAddress();
    }

    /** Stops the HTTP endpoint and unregisters the MBeans. Idempotent. */
    @Override
    public void close() {
        if (http != null) {
            http.stop(0);
            httpThread.shutdownNow();
        }
        registry.close();
        jmx.close();
        if (prometheus != null) {
            prometheus.close();
        }
    }
}
