package io.sluice.connect.kafka;

import io.sluice.Receivers;
import io.sluice.StreamerOptions;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SluiceSinkConfigTest {

    private static Map<String, String> minimal() {
        Map<String, String> p = new HashMap<>();
        p.put("sluice.addresses", "127.0.0.1:10800");
        return p;
    }

    private static SluiceSinkConfig config(String... kv) {
        Map<String, String> p = minimal();
        for (int i = 0; i < kv.length; i += 2) {
            p.put(kv[i], kv[i + 1]);
        }
        return new SluiceSinkConfig(p);
    }

    @Test
    void defaultsAreUsableWithOnlyTheAddresses() {
        SluiceSinkConfig c = config();
        assertThat(c.cacheFor("orders")).isEqualTo("orders");
        assertThat(c.keyMode()).isEqualTo(SluiceSinkConfig.KeyMode.RECORD_KEY);
        assertThat(c.nullValues()).isEqualTo(SluiceSinkConfig.NullValueBehavior.DELETE);
        assertThat(c.nullKeys()).isEqualTo(SluiceSinkConfig.NullKeyBehavior.FAIL);
        assertThat(c.receiver()).isEqualTo(Receivers.individual());
        StreamerOptions o = c.streamerOptions();
        assertThat(o.allowOverwrite()).isTrue();
        assertThat(o.bufferMemory()).isEqualTo(64L * 1024 * 1024);
        assertThat(o.autoFlushInterval()).isEqualTo(Duration.ofMillis(200));
        assertThat(c.clientConfig("t").addresses()).containsExactly("127.0.0.1:10800");
    }

    @Test
    void missingAddressesAreRefusedNamingTheKey() {
        assertThatThrownBy(() -> new SluiceSinkConfig(Map.of()))
                .isInstanceOf(ConfigException.class).hasMessageContaining("sluice.addresses");
        assertThatThrownBy(() -> config("sluice.addresses", "localhost:99999"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("sluice.addresses")
                .hasMessageContaining("localhost:99999");
    }

    @Test
    void topicsMapToCachesByNameThenMappingThenFormat() {
        assertThat(config("sluice.cache.name", "all").cacheFor("x")).isEqualTo("all");
        SluiceSinkConfig mapped = config("sluice.cache.mapping", "orders:o_cache, trades:t_cache",
                "sluice.cache.name.format", "kafka_${topic}");
        assertThat(mapped.cacheFor("orders")).isEqualTo("o_cache");
        assertThat(mapped.cacheFor("trades")).isEqualTo("t_cache");
        assertThat(mapped.cacheFor("quotes")).isEqualTo("kafka_quotes");
    }

    @Test
    void badMappingsAreRefusedNamingTheEntry() {
        assertThatThrownBy(() -> config("sluice.cache.mapping", "orders"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("sluice.cache.mapping")
                .hasMessageContaining("'orders' is not topic:cache");
        assertThatThrownBy(() -> config("sluice.cache.mapping", "a:b,a:c"))
                .hasMessageContaining("topic 'a' is mapped twice");
        assertThatThrownBy(() -> config("sluice.cache.name.format", "x_${partition}"))
                .hasMessageContaining("sluice.cache.name.format");
    }

    @Test
    void enumsAreCaseInsensitiveAndCheckedNamingTheKey() {
        assertThat(config("behavior.on.null.values", "ignore").nullValues())
                .isEqualTo(SluiceSinkConfig.NullValueBehavior.IGNORE);
        assertThatThrownBy(() -> config("behavior.on.null.values", "drop"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("behavior.on.null.values")
                .hasMessageContaining("DELETE, IGNORE, FAIL");
        assertThatThrownBy(() -> config("sluice.key.mode", "hash")).hasMessageContaining("sluice.key.mode");
    }

    @Test
    void valueFieldKeysNeedFields() {
        assertThatThrownBy(() -> config("sluice.key.mode", "VALUE_FIELDS"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("sluice.key.fields");
        assertThat(config("sluice.key.mode", "VALUE_FIELDS", "sluice.key.fields", "id,side").keyFields())
                .containsExactly("id", "side");
    }

    @Test
    void streamerOptionsThatDoNotFitTogetherAreRefused() {
        assertThatThrownBy(() -> config("sluice.streamer.buffer.memory", "2048", "sluice.streamer.buffer.bytes", "4096"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("sluice.streamer.buffer.memory")
                .hasMessageContaining("perPartitionBufferBytes");
        assertThatThrownBy(() -> config("sluice.streamer.parallel.operations", "0"))
                .hasMessageContaining("sluice.streamer.parallel.operations");
    }

    @Test
    void theIsolatedReceiverDoesNotOverwriteAndNamedReceiversPassThrough() {
        assertThat(config("sluice.receiver", "isolated").streamerOptions().allowOverwrite()).isFalse();
        assertThat(config("sluice.receiver", "audit").receiver()).isEqualTo(Receivers.named("audit"));
    }

    @Test
    void errorsToleranceIsChecked() {
        assertThatThrownBy(() -> config("errors.tolerance", "some")).hasMessageContaining("errors.tolerance");
    }

    @Test
    void connectorValidationAttachesCrossChecksToTheKey() {
        Map<String, String> p = minimal();
        p.put("connector.class", SluiceSinkConnector.class.getName());
        p.put("topics", "t");
        p.put("sluice.key.mode", "VALUE_FIELDS");
        Config result = new SluiceSinkConnector().validate(p);
        ConfigValue fields = result.configValues().stream().filter(v -> v.name().equals("sluice.key.fields"))
                .findFirst().orElseThrow();
        assertThat(fields.errorMessages()).anySatisfy(m -> assertThat(m).contains("VALUE_FIELDS"));
    }

    @Test
    void everyOptionIsDocumentedInAGroup() {
        for (var key : SluiceSinkConfig.CONFIG_DEF.configKeys().values()) {
            assertThat(key.documentation).as(key.name).isNotBlank();
            assertThat(key.group).as(key.name).isNotBlank();
        }
    }
}
