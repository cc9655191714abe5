package io.sluice.server.internal;

import io.sluice.CacheConfig;
import io.sluice.Sluice;
import io.sluice.WriteSyncMode;
import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import io.sluice.node.NodeConfig;
import io.sluice.node.internal.NodeEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A cache's options reach the node from the node's file and from a remote client's createCache. */
@Timeout(60)
class CacheOptionsCarriedTest {

    @TempDir
    Path dir;

    private NodeFileConfig read(String json) throws IOException {
        Path file = dir.resolve("node.json");
        Files.writeString(file, json);
        return NodeFileConfig.read(file);
    }

    @Test
    void theNodeFileDeclaresEveryOptionOfACache() throws IOException {
        NodeFileConfig file = read("""
                {"caches": [{"name": "orders", "partitions": 16, "backups": 2, "writeSync": "FULL_SYNC",
                             "readFromBackup": true, "indexes": [["secCode"], ["account", "price"]]},
                            {"name": "plain"}]}""");
        assertThat(file.cacheConfigs()).containsExactly(
                CacheConfig.named("orders").withPartitions(16).withBackups(2).withWriteSync(WriteSyncMode.FULL_SYNC)
                        .withReadFromBackup(true).index("secCode").index("account", "price"),
                CacheConfig.named("plain"));
    }

    @Test
    void badCacheOptionsInTheFileNameTheirKey() {
        assertThatThrownBy(() -> read("{\"caches\": [{\"name\": \"c\", \"writeSync\": \"SOMETIMES\"}]}")
                .cacheConfigs()).hasMessageContaining("caches[0].writeSync").hasMessageContaining("FULL_SYNC");
        assertThatThrownBy(() -> read("{\"caches\": [{\"name\": \"c\", \"backups\": 4}]}").cacheConfigs())
                .hasMessageContaining("caches[0]").hasMessageContaining("backups is 4");
        assertThatThrownBy(() -> read("{\"caches\": [{\"name\": \"c\", \"indexes\": [[\"a\", \"a\"]]}]}")
                .cacheConfigs()).hasMessageContaining("caches[0]").hasMessageContaining("repeated");
    }

    @Test
    void aRemoteCreateCarriesTheOptionsAndAGetOrCreateWithOthersIsRefused() {
        try (NodeEngine node = new NodeEngine(NodeConfig.builder().dataRegionInitialSize(16L << 20)
                .dataRegionMaxSize(64L << 20).applyThreads(1).build());
             SluiceServer server = SluiceServer.start(node, ServerConfig.defaults().withPort(0));
             Sluice client = SluiceClient.connect(ClientConfig.addresses("127.0.0.1:" + server.address().getPort()))) {
            CacheConfig config = CacheConfig.named("orders").withPartitions(8).withBackups(1)
                    .withWriteSync(WriteSyncMode.FULL_ASYNC).withReadFromBackup(true).index("secCode");
            client.createCache(config);
            assertThat(node.nodeCache("orders").config()).isEqualTo(config);
            client.getOrCreateCache(config);
            client.createCache(CacheConfig.named("plain").withPartitions(2));
            assertThat(node.nodeCache("plain").config()).isEqualTo(CacheConfig.named("plain").withPartitions(2));

            assertThatThrownBy(() -> client.getOrCreateCache(config.withBackups(2)))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("backups 1")
                    .hasMessageContaining("backups 2");
            assertThat(node.nodeCache("orders").config()).isEqualTo(config);
        }
    }
}
