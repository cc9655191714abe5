package io.sluice.e2e;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.sluice.NodeUnreachableException;
import io.sluice.SluiceException;
import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import io.sluice.protocol.internal.Frames;
import io.sluice.protocol.internal.Wire;
import io.sluice.server.internal.NodeProcess;
import io.sluice.testing.TestCertificates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * A configured token and key-store password never reach the node's output, its metrics or its answers,
 * whatever a client sends: two node processes with the same token (one on TLS) are offered every kind of
 * refused connection — a wrong token, the right token in plain TCP to the TLS port (the handshake then
 * arrives where TLS records are expected), TLS to the plain port, garbage holding the token, oversized
 * frames, a handshake with trailing bytes, the token as the client's name — and then the nodes' whole
 * output (stdout and log) and the metrics are searched for both secrets.
 */
@Timeout(300)
class NodeSecretsIT {

    private static final String TOKEN = "tok-" + UUID.randomUUID();
    private static final String PASSWORD = "pw-" + UUID.randomUUID();
    private static final Pattern ENDPOINT = Pattern.compile("Prometheus text at http://127\\.0\\.0\\.1:(\\d+)/metrics");

    @TempDir
    static Path dir;

    @Test
    void noRefusedConnectionPutsTheTokenOrTheKeyStorePasswordInTheNodesOutput() throws Exception {
        TestCertificates certs = TestCertificates.make(dir, "node", PASSWORD);
        Path keys = certs.keyStore();
        Path cert = certs.certificate();
        String tlsConfig = "{\"token\": \"" + TOKEN + "\", \"metricsPort\": 0, \"tls\": {\"keyStore\": \""
                + keys.toAbsolutePath() + "\", \"keyStorePassword\": \"" + PASSWORD + "\"}}";
        String plainConfig = "{\"token\": \"" + TOKEN + "\", \"metricsPort\": 0}";
        List<String> answers = new ArrayList<>();
        try (NodeProcess tlsNode = NodeProcesses.start(tlsConfig, List.of());
             NodeProcess plainNode = NodeProcesses.start(plainConfig, List.of())) {
            // Plain TCP with the right token to the TLS port: the reported leak.
            answers.add(refused(client(tlsNode).token(TOKEN), NodeUnreachableException.class, "requires TLS",
                    "ClientConfig.builder().tls("));
            // TLS with a wrong token that starts with the right one: a logged token would show.
            answers.add(refused(client(tlsNode).tls(cert).token(TOKEN + "-wrong"), SluiceException.class, "token"));
            answers.add(refusal(tlsNode, garbage()));
            answers.add(refusal(tlsNode, handshakeWithTrailingBytes()));

            answers.add(refused(client(plainNode).tls(cert).token(TOKEN), NodeUnreachableException.class,
                    "TLS handshake failed", "the node closed the connection"));
            answers.add(refused(client(plainNode).token(TOKEN + "-wrong"), SluiceException.class, "token"));
            answers.add(refusal(plainNode, Frames.handshake(io.netty.buffer.UnpooledByteBufAllocator.DEFAULT, Wire.VERSION, TOKEN, TOKEN + "-wrong")));
            answers.add(refusal(plainNode, garbage()));
            answers.add(refusal(plainNode, handshakeWithTrailingBytes()));
            answers.add(refusal(plainNode, oversizedAfterTheHandshake()));
            // A frame whose length prefix is the token's first bytes (a client whose framing is off).
            answers.add(refusal(plainNode, Unpooled.copiedBuffer(TOKEN + TOKEN, StandardCharsets.UTF_8)));

            String metrics = metrics(tlsNode) + metrics(plainNode);
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertThat(tlsNode.log()).contains("spoke plain TCP to this TLS port")
                        .contains("did not present this node's token");
                assertThat(plainNode.log()).contains("a client spoke TLS to this plain TCP port")
                        .contains("after its token").contains("longer than the node's maximum");
            });
            assertThat(tlsNode.stop()).isZero();
            assertThat(plainNode.stop()).isZero();

            String output = tlsNode.output() + plainNode.output();
            assertThat(output).as("the nodes' output").doesNotContain(TOKEN).doesNotContain(PASSWORD)
                    .doesNotContain(hex(TOKEN));
            assertThat(metrics).as("the nodes' metrics").contains("sluice_node_errors_total")
                    .doesNotContain(TOKEN).doesNotContain(PASSWORD);
            assertThat(answers).as("what the clients were told").hasSize(11)
                    .noneMatch(a -> a.contains(TOKEN) || a.contains(PASSWORD));
        }
    }

    /** Connects with the config, which must fail so; returns the error's message. */
    private static String refused(ClientConfig.Builder config, Class<? extends Throwable> type, String... says) {
        Throwable e = catchThrowable(() -> SluiceClient.connect(config.build()).close());
        assertThat(e).isInstanceOf(type);
        for (String s : says) {
            assertThat(e).hasMessageContaining(s);
        }
        return e.getMessage();
    }

    private static ClientConfig.Builder client(NodeProcess node) {
        return ClientConfig.builder().addresses(node.address()).connectTimeout(Duration.ofSeconds(5))
                .retryInitialBackoff(Duration.ofMillis(10));
    }

    /** Bytes that are no frame, holding the token. */
    private static ByteBuf garbage() {
        return Unpooled.buffer().writeInt(40).writeBytes(("GET /?" + TOKEN).getBytes(StandardCharsets.UTF_8));
    }

    private static ByteBuf handshakeWithTrailingBytes() {
        ByteBuf frame = Frames.handshake(io.netty.buffer.UnpooledByteBufAllocator.DEFAULT, Wire.VERSION, "app", TOKEN);
        frame.writeBytes(TOKEN.getBytes(StandardCharsets.UTF_8));
        frame.setInt(0, frame.readableBytes() - Wire.LENGTH_FIELD);
        return frame;
    }

    private static ByteBuf oversizedAfterTheHandshake() {
        ByteBuf bytes = Frames.handshake(io.netty.buffer.UnpooledByteBufAllocator.DEFAULT, Wire.VERSION, "app", TOKEN);
        bytes.writeInt(Integer.MAX_VALUE).writeBytes(TOKEN.getBytes(StandardCharsets.UTF_8));
        return bytes;
    }

    /** Sends the bytes in plain TCP and returns what the node answered (the messages of its frames), until it closes. */
    private static String refusal(NodeProcess node, ByteBuf bytes) throws IOException {
        StringBuilder answer = new StringBuilder();
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), node.port())) {
            socket.setSoTimeout(20_000);
            OutputStream out = socket.getOutputStream();
            byte[] b = new byte[bytes.readableBytes()];
            bytes.readBytes(b);
            out.write(b);
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            while (true) {
                byte[] frame;
                try {
                    frame = new byte[in.readInt()];
                    in.readFully(frame);
                } catch (EOFException | java.net.SocketException e) {
                    break; // the node closed the connection
                }
                answer.append(new String(frame, StandardCharsets.UTF_8)).append('\n');
            }
        }
        return answer.toString();
    }

    private static String metrics(NodeProcess node) throws Exception {
        AtomicInteger port = new AtomicInteger();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            Matcher m = ENDPOINT.matcher(node.log());
            if (m.find()) {
                port.set(Integer.parseInt(m.group(1)));
            }
            return port.get() > 0;
        });
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port.get()
                + "/metrics")).timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    /** The token as Netty's hex dumps print it. */
    private static String hex(String s) {
        StringBuilder b = new StringBuilder();
        for (byte x : s.getBytes(StandardCharsets.UTF_8)) {
            b.append(String.format("%02x", x));
        }
        return b.toString();
    }

}
