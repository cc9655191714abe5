package io.sluice.server.internal.command;

import io.sluice.client.internal.Address;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.time.Duration;
import java.util.List;

/**
 * The document the node's status page draws ({@code GET /status.json} on its metrics port): what the {@code status}
 * command reads, asked of the node itself ({@link StatusReport#pageJson}).
 */
public final class StatusPageData {

    private StatusPageData() {
    }

    /**
     * Asks the node at {@code self} for its map, then every member of it for its status.
     *
     * @param timeout how long each member may take to answer (one that does not is a member with an error)
     * @param tls     a TLS context for nodes with TLS, or null for plain TCP
     * @throws IOException if the node itself does not answer
     */
    public static String json(Address self, String token, Duration timeout, SSLContext tls) throws IOException {
        return StatusReport.read(List.of(self), token, timeout, tls).pageJson();
    }
}
