package io.sluice.client;

import io.sluice.Sluice;
import io.sluice.client.internal.RemoteSluice;

/**
 * Connects to remote Sluice nodes: the {@link Sluice} it returns works as an embedded node's does
 * (caches, streamers, binary objects), over TCP. Streamed batches go to the node that owns their
 * partition; every batch ends acknowledged or failed with its cause — a connection lost while a
 * batch was in flight fails it with {@link io.sluice.NodeUnreachableException} (whether the node
 * applied it is then unknown: delivery is at-least-once when the caller re-sends).
 *
 * <pre>{@code
 * try (Sluice sluice = SluiceClient.connect(ClientConfig.addresses("127.0.0.1:10800"))) {
 *     sluice.getOrCreateCache(CacheConfig.named("orders"));
 *     try (DataStreamer<Long, BinaryObject> streamer = sluice.dataStreamer("orders")) {
 *         streamer.addData(1L, order);
 *     }
 * }
 * }</pre>
 */
public final class SluiceClient {

    private SluiceClient() {
    }

    /**
     * Connects to every configured node that answers. Each address gets up to
     * {@link ClientConfig#retryAttempts()} attempts, as a request does: a refused or lost connection and a
     * node serving its maximum of connections are tried again with backoff, each attempt within
     * {@link ClientConfig#connectTimeout()}.
     *
     * @throws io.sluice.NodeUnreachableException if no node can be reached: the error names the attempts
     *         and their first and last causes (a node at its connection limit says so); also when a node
     *         requires TLS and the config has no {@link ClientConfig.Builder#tls}, or the TLS handshake fails
     * @throws io.sluice.SluiceException if a node refuses the handshake (protocol version, token)
     */
    public static Sluice connect(ClientConfig config) {
        return new RemoteSluice(java.util.Objects.requireNonNull(config, "config").settings());
    }
}
