package io.sluice.server.internal;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The node's configs print neither the token nor the key store's password (a record's own toString would). */
class ServerConfigSecretsTest {

    @TempDir
    Path dir;

    @Test
    void noConfigPrintsTheTokenOrTheKeyStorePassword() throws IOException {
        ServerConfig server = ServerConfig.defaults().withToken("tok-secret")
                .withTls(new TlsConfig(dir.resolve("node.p12"), "pw-secret"));
        Path file = Files.writeString(dir.resolve("node.json"), "{\"token\": \"tok-secret\", \"tls\": {\"keyStore\": \""
                + dir.resolve("node.p12") + "\", \"keyStorePassword\": \"pw-secret\"}}");
        NodeFileConfig read = NodeFileConfig.read(file);

        for (Object config : new Object[] {server, server.tls(), read, read.tls()}) {
            assertThat(config.toString()).as(config.getClass().getSimpleName())
                    .doesNotContain("tok-secret").doesNotContain("pw-secret");
        }
        assertThat(server.toString()).contains("token=set");
        assertThat(read.toString()).contains("token=set");
    }
}
