package io.sluice.server.internal;

import io.sluice.node.NodeOptions;

import java.time.Duration;
import java.util.Objects;

/**
 * How a node serves remote clients. The options' names, defaults, bounds and docs are declared in
 * {@link NodeOptions}.
 *
 * @param host                 the address to bind; loopback by default
 * @param port                 the port; 0 = any free port
 * @param maxFrameSize         the largest frame accepted; a longer one closes its connection
 * @param maxConnections       connections served at once; more are closed at once
 * @param idleTimeout          a connection with nothing read or written for this long is closed; zero = never
 * @param token                the token a client must present in its handshake, or null for none
 * @param maxQueuedBytes       bytes of one connection the node holds (streamed requests not yet applied,
 *                             answers not yet sent) before it stops reading its socket (backpressure)
 * @param tls                  the node's TLS key and certificate, or null: plain TCP
 */
public record ServerConfig(String host, int port, int maxFrameSize, int maxConnections, Duration idleTimeout,
                           String token, long maxQueuedBytes, TlsConfig tls) {

    public static final String DEFAULT_HOST = NodeOptions.DEFAULT_HOST;
    public static final int DEFAULT_PORT = NodeOptions.DEFAULT_PORT;
    public static final int DEFAULT_MAX_CONNECTIONS = NodeOptions.DEFAULT_MAX_CONNECTIONS;
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(NodeOptions.IDLE_TIMEOUT_SECONDS.defaultValue());
    public static final long DEFAULT_MAX_QUEUED_BYTES = NodeOptions.DEFAULT_MAX_QUEUED_BYTES;

    public ServerConfig {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        NodeOptions.PORT.check(port);
        NodeOptions.MAX_FRAME_SIZE.check((long) maxFrameSize);
        NodeOptions.MAX_CONNECTIONS.check(maxConnections);
        if (idleTimeout.isNegative()) {
            throw new IllegalArgumentException("idleTimeout is " + idleTimeout + "; it must not be negative");
        }
        if (maxQueuedBytes < maxFrameSize) {
            throw new IllegalArgumentException("maxQueuedBytes is " + maxQueuedBytes
                    + "; it must be at least maxFrameSize (" + maxFrameSize + ")");
        }
        if (token != null && token.isEmpty()) {
            token = null;
        }
    }

    /** Loopback, port 10800, the default limits, no token. */
    public static ServerConfig defaults() {
        return new ServerConfig(DEFAULT_HOST, DEFAULT_PORT, NodeOptions.MAX_FRAME_SIZE.defaultValue().intValue(),
                DEFAULT_MAX_CONNECTIONS,
                DEFAULT_IDLE_TIMEOUT, null, DEFAULT_MAX_QUEUED_BYTES, null);
    }

    public ServerConfig withPort(int newPort) {
        return new ServerConfig(host, newPort, maxFrameSize, maxConnections, idleTimeout, token, maxQueuedBytes, tls);
    }

    public ServerConfig withHost(String newHost) {
        return new ServerConfig(newHost, port, maxFrameSize, maxConnections, idleTimeout, token, maxQueuedBytes, tls);
    }

    public ServerConfig withToken(String newToken) {
        return new ServerConfig(host, port, maxFrameSize, maxConnections, idleTimeout, newToken, maxQueuedBytes, tls);
    }

    /** @param newTls the node's key and certificate, or null for plain TCP */
    public ServerConfig withTls(TlsConfig newTls) {
        return new ServerConfig(host, port, maxFrameSize, maxConnections, idleTimeout, token, maxQueuedBytes, newTls);
    }

    /** The config without its token (a record's own toString would print it). */
    @Override
    public String toString() {
        return "ServerConfig{host=" + host + ", port=" + port + ", maxFrameSize=" + maxFrameSize + ", maxConnections="
                + maxConnections + ", idleTimeout=" + idleTimeout + ", token=" + (token == null ? "none" : "set")
                + ", maxQueuedBytes=" + maxQueuedBytes + ", tls=" + tls + "}";
    }
}
