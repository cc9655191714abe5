package io.sluice.client;

import io.sluice.NodeUnreachableException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A connection reset after the client sent its handshake (what a node restarting on its port does to the
 * connections its old socket had accepted; CI saw it fail a streamer's batches at once in ClientRetryTest) is a lost
 * connection: the client tries again, as for a refused one, rather than giving up on the first reset.
 */
@Timeout(60)
class HandshakeResetTest {

    @Test
    void aConnectionResetDuringTheHandshakeIsRetried() throws Exception {
        AtomicInteger accepted = new AtomicInteger();
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread resetter = new Thread(() -> resetEveryConnection(server, accepted), "handshake-resetter");
            resetter.setDaemon(true);
            resetter.start();
            ClientConfig config = ClientConfig.builder().addresses("127.0.0.1:" + server.getLocalPort())
                    .retryAttempts(3).retryInitialBackoff(Duration.ofMillis(10)).requestTimeout(Duration.ofSeconds(20))
                    .build();
            assertThatThrownBy(() -> SluiceClient.connect(config).close())
                    .isInstanceOf(NodeUnreachableException.class)
                    .hasMessageContaining("3 attempt(s)")
                    .hasStackTraceContaining("Connection reset");
            assertThat(accepted.get()).as("connections the client opened").isEqualTo(3);
        }
    }

    /** Reads each client's first bytes (its handshake), then closes with a reset (linger 0) without answering. */
    private static void resetEveryConnection(ServerSocket server, AtomicInteger accepted) {
        while (!server.isClosed()) {
            try (Socket s = server.accept()) {
                accepted.incrementAndGet();
                InputStream in = s.getInputStream();
                if (in.read(new byte[256]) < 0) {
                    continue;
                }
                s.setSoLinger(true, 0);
            } catch (IOException closed) {
                return;
            }
        }
    }
}
