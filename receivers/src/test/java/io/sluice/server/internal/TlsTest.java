package io.sluice.server.internal;

import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.NodeUnreachableException;
import io.sluice.Sluice;
import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import io.sluice.node.NodeConfig;
import io.sluice.node.internal.NodeEngine;
import io.sluice.testing.TestCertificates;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * TLS between client and node, with certificates the test makes with the JDK's {@code keytool}: a
 * trusting client streams and reads; a plain client, a client that does not trust the node's
 * certificate, and a client dialling a name the certificate does not carry are all refused.
 */
@Timeout(120)
class TlsTest {

    private static final String PASSWORD = TestCertificates.PASSWORD;

    @TempDir
    static Path dir;
    private static Path nodeKeys;
    private static Path nodeCert;
    private static Path otherCert;

    private NodeEngine node;
    private SluiceServer server;

    @BeforeAll
    static void makeCertificates() throws Exception {
        TestCertificates node = TestCertificates.make(dir, "node");
        nodeKeys = node.keyStore();
        nodeCert = node.certificate();
        otherCert = TestCertificates.make(dir, "other").certificate();
    }

    private void start() {
        node = new NodeEngine(NodeConfig.builder().dataRegionMaxSize(128L << 20).applyThreads(2).build());
        server = SluiceServer.start(node, ServerConfig.defaults().withPort(0)
                .withTls(new TlsConfig(nodeKeys, PASSWORD)).withToken("s3cret"));
    }

    private String address(String host) {
        return host + ":" + server.address().getPort();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.closeConnections();
            node.close();
        }
    }

    @Test
    void aClientTrustingTheNodeStreamsAndReadsOverTls() {
        start();
        try (Sluice client = SluiceClient.connect(ClientConfig.builder().addresses(address("127.0.0.1"))
                .tls(nodeCert).token("s3cret").build())) {
            client.createCache(CacheConfig.named("orders").withPartitions(16));
            try (DataStreamer<Long, String> s = client.dataStreamer("orders")) {
                for (long k = 0; k < 20_000; k++) {
                    s.addData(k, "order-" + k);
                }
            }
            Cache<Long, String> cache = client.cache("orders");
            assertThat(cache.size()).isEqualTo(20_000);
            assertThat(cache.get(12_345L)).isEqualTo("order-12345");
        }
    }

    @Test
    void plainUntrustingAndMisnamedClientsAreRefused() {
        start();

        assertThatThrownBy(() -> SluiceClient.connect(ClientConfig.builder().addresses(address("127.0.0.1"))
                .connectTimeout(Duration.ofSeconds(3)).token("s3cret").build()))
                .as("a plain client").isInstanceOf(NodeUnreachableException.class)
                .hasMessageContaining("requires TLS and this client spoke plain TCP")
                .hasMessageContaining("ClientConfig.builder().tls(")
                .hasMessageNotContaining("attempt(s)"); // told at once, not retried
        assertThatThrownBy(() -> SluiceClient.connect(ClientConfig.builder().addresses(address("127.0.0.1"))
                .connectTimeout(Duration.ofSeconds(3)).tls(otherCert).token("s3cret").build()))
                .as("a client trusting another certificate").isInstanceOf(NodeUnreachableException.class)
                .hasStackTraceContaining("SSLHandshakeException");
        assertThatThrownBy(() -> SluiceClient.connect(ClientConfig.builder().addresses(address("localhost"))
                .connectTimeout(Duration.ofSeconds(3)).tls(nodeCert).token("s3cret").build()))
                .as("a name the certificate does not carry").isInstanceOf(NodeUnreachableException.class)
                .hasStackTraceContaining("SSLHandshakeException");
        assertThatThrownBy(() -> SluiceClient.connect(ClientConfig.builder().addresses(address("127.0.0.1"))
                .connectTimeout(Duration.ofSeconds(3)).tls(nodeCert).token("guess").build()))
                .as("a trusted client with the wrong token").hasMessageContaining("token");
    }

    @Test
    void aTlsClientOfAPlainNodeIsToldTheTlsHandshakeFailedWithoutRetrying() {
        node = new NodeEngine(NodeConfig.builder().dataRegionMaxSize(128L << 20).applyThreads(2).build());
        server = SluiceServer.start(node, ServerConfig.defaults().withPort(0));

        assertThatThrownBy(() -> SluiceClient.connect(ClientConfig.builder().addresses(address("127.0.0.1"))
                .connectTimeout(Duration.ofSeconds(3)).tls(nodeCert).build()))
                .isInstanceOf(NodeUnreachableException.class)
                .hasMessageContaining("TLS handshake failed")
                .hasMessageContaining("a node without TLS does so with a client that has ClientConfig.builder().tls(")
                .hasMessageNotContaining("attempt(s)");
    }

    @Test
    void aBadKeyStoreStopsTheStartNamingTheFile() throws IOException {
        Path junk = Files.writeString(dir.resolve("junk.p12"), "not a key store");
        NodeEngine n = new NodeEngine(NodeConfig.builder().dataRegionMaxSize(64L << 20).applyThreads(1).build());
        try {
            assertThatThrownBy(() -> SluiceServer.start(n, ServerConfig.defaults().withPort(0)
                    .withTls(new TlsConfig(junk, PASSWORD))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("junk.p12");
            assertThatThrownBy(() -> SluiceServer.start(n, ServerConfig.defaults().withPort(0)
                    .withTls(new TlsConfig(nodeKeys, "wrong"))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("node.p12");
        } finally {
            n.close();
        }
    }
}
