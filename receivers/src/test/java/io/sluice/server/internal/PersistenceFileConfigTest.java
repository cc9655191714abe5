package io.sluice.server.internal;

import io.sluice.node.NodeConfig;
import io.sluice.node.PersistenceConfig;
import io.sluice.node.WalMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The node file's {@code persistence} object: read, defaulted and checked with messages naming the key. */
class PersistenceFileConfigTest {

    @TempDir
    Path dir;

    private NodeConfig read(String json) throws IOException {
        Path file = dir.resolve("node.json");
        Files.writeString(file, json);
        return NodeFileConfig.read(file).nodeConfig();
    }

    @Test
    void withoutPersistenceTheNodeIsInMemory() throws IOException {
        assertThat(read("{}").persistence().enabled()).isFalse();
        assertThat(NodeConfig.defaults().persistence()).isSameAs(PersistenceConfig.disabled());
        assertThat(read("{\"persistence\": {\"enabled\": false, \"directory\": \"x\"}}").persistence().enabled()).isFalse();
    }

    @Test
    void everySettingIsRead() throws IOException {
        PersistenceConfig p = read("{\"persistence\": {\"directory\": \"/data/n1\", \"walMode\": \"fsync\","
                + " \"walFlushIntervalMillis\": 250, \"walSegmentSize\": \"16m\"}}").persistence();
        assertThat(p.enabled()).isTrue();
        assertThat(p.directory()).isEqualTo(Path.of("/data/n1"));
        assertThat(p.walMode()).isEqualTo(WalMode.FSYNC);
        assertThat(p.walFlushInterval()).isEqualTo(Duration.ofMillis(250));
        assertThat(p.walSegmentSize()).isEqualTo(16L << 20);
        assertThat(read("{\"persistence\": {\"directory\": \"d\"}}").persistence().walMode())
                .isEqualTo(PersistenceConfig.DEFAULT_WAL_MODE);
    }

    @Test
    void badValuesNameTheirKey() {
        assertThatThrownBy(() -> read("{\"persistence\": {\"walMode\": \"FSYNC\"}}"))
                .hasMessageContaining("key 'persistence.directory' is missing");
        assertThatThrownBy(() -> read("{\"persistence\": {\"directory\": \"d\", \"walMode\": \"SOMETIMES\"}}"))
                .hasMessageContaining("key 'persistence.walMode' is 'SOMETIMES'; it must be one of [FSYNC, LOG_ONLY,"
                        + " BACKGROUND, NONE]");
        assertThatThrownBy(() -> read("{\"persistence\": {\"directory\": \"d\", \"walSegmentSize\": \"1k\"}}"))
                .hasMessageContaining("key 'persistence.walSegmentSize': walSegmentSize is 1024 bytes");
        assertThatThrownBy(() -> read("{\"persistence\": {\"directory\": \"d\", \"walFlushIntervalMillis\": 0}}"))
                .hasMessageContaining("key 'persistence.walFlushIntervalMillis'");
        assertThatThrownBy(() -> read("{\"persistence\": {\"dir\": \"d\"}}"))
                .hasMessageContaining("unknown key 'dir' in 'persistence'")
                .hasMessageContaining("walMode");
    }

    @Test
    void theBuilderChecksItsArguments() {
        assertThatThrownBy(() -> PersistenceConfig.disabled().withWalMode(WalMode.FSYNC))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("PersistenceConfig.at(directory)");
        assertThatThrownBy(() -> PersistenceConfig.at(dir).withWalFlushInterval(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("between 1 ms and 1 hour");
        NodeConfig config = NodeConfig.builder()
                .persistence(PersistenceConfig.at(dir).withWalMode(WalMode.BACKGROUND)).build();
        assertThat(config.persistence().walMode()).isEqualTo(WalMode.BACKGROUND);
        assertThat(config.toString()).contains("walMode=BACKGROUND");
    }
}
