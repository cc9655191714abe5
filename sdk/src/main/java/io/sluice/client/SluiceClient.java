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
     * Connects to every configured node that answers, within the connect timeout.
     *
     * @throws io.sluice.NodeUnreachableException if no node can be reached
     * @throws io.sluice.SluiceException if a node refuses the handshake (protocol version, token)
     */
    public static Sluice connect(ClientConfig config) {
        return new RemoteSluice(java.util.Objects.requireNonNull(config, "config").settings());
    }
}
