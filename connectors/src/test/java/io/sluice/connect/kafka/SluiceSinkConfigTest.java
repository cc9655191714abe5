package io.sluice.connect.kafka;

import io.sluice.Receivers;
import io.sluice.StreamerOptions;
import io.sluice.client.ClientConfig;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
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
        assertThat(c.receiver()).isEqualTo(Receivers.batched());
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
    void tlsIsOffByDefaultAndUsesTheJvmTrustStoreOrAPemFile(@TempDir Path dir) throws Exception {
        assertThat(config().clientConfig("t").tls()).isFalse();
        ClientConfig jvm = config("sluice.tls.enabled", "true").clientConfig("t");
        assertThat(jvm.tls()).isTrue();
        assertThat(jvm.tlsTrustedCertificates()).isNull();
        Path pem = Files.writeString(dir.resolve("node.pem"), "-----BEGIN CERTIFICATE-----\n");
        ClientConfig file = config("sluice.tls.enabled", "true", "sluice.tls.trusted.certificates", pem.toString())
                .clientConfig("t");
        assertThat(file.tls()).isTrue();
        assertThat(file.tlsTrustedCertificates()).isEqualTo(pem);
    }

    @Test
    void tlsCertificatesWithoutTlsOrUnreadableAreRefusedNamingTheKey(@TempDir Path dir) {
        assertThatThrownBy(() -> config("sluice.tls.trusted.certificates", "/etc/node.pem"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("sluice.tls.trusted.certificates")
                .hasMessageContaining("sluice.tls.enabled=false");
        String missing = dir.resolve("missing.pem").toString();
        SluiceSinkConfig c = config("sluice.tls.enabled", "true", "sluice.tls.trusted.certificates", missing);
        assertThatThrownBy(() -> c.clientConfig("t"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("sluice.tls.trusted.certificates")
                .hasMessageContaining(missing);
        assertThatThrownBy(() -> config("sluice.tls.enabled", "true", "sluice.tls.trusted.certificates", " "))
                .isInstanceOf(ConfigException.class).hasMessageContaining("sluice.tls.trusted.certificates");
    }

    @Test
    void retryAndCircuitBreakerSettingsReachTheClient() {
        ClientConfig defaults = config().clientConfig("t");
        assertThat(defaults.retryAttempts()).isEqualTo(ClientConfig.DEFAULT_RETRY_ATTEMPTS);
        assertThat(defaults.retryInitialBackoff()).isEqualTo(ClientConfig.DEFAULT_RETRY_INITIAL_BACKOFF);
        assertThat(defaults.circuitBreakerFailureRate()).isEqualTo(ClientConfig.DEFAULT_CIRCUIT_BREAKER_FAILURE_RATE);
        assertThat(defaults.circuitBreakerWaitInOpenState())
                .isEqualTo(ClientConfig.DEFAULT_CIRCUIT_BREAKER_WAIT_IN_OPEN_STATE);
        ClientConfig set = config("sluice.request.retry.attempts", "1", "sluice.request.retry.backoff.ms", "250",
                "sluice.circuit.breaker.failure.rate", "80", "sluice.circuit.breaker.wait.ms", "1500").clientConfig("t");
        assertThat(set.retryAttempts()).isEqualTo(1);
        assertThat(set.retryInitialBackoff()).isEqualTo(Duration.ofMillis(250));
        assertThat(set.circuitBreakerFailureRate()).isEqualTo(80);
        assertThat(set.circuitBreakerWaitInOpenState()).isEqualTo(Duration.ofMillis(1500));
    }

    @Test
    void retryAndCircuitBreakerSettingsOutOfRangeAreRefusedNamingTheKey() {
        assertThatThrownBy(() -> config("sluice.request.retry.attempts", "0"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("sluice.request.retry.attempts");
        assertThatThrownBy(() -> config("sluice.request.retry.backoff.ms", "60000"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("sluice.request.retry.backoff.ms");
        assertThatThrownBy(() -> config("sluice.circuit.breaker.failure.rate", "101"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("sluice.circuit.breaker.failure.rate");
        assertThatThrownBy(() -> config("sluice.circuit.breaker.wait.ms", "0"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("sluice.circuit.breaker.wait.ms");
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
    void theConverterIsGivenEveryConversionOptionAsSet() {
        for (SluiceSinkConfig.KeyMode mode : SluiceSinkConfig.KeyMode.values()) {
            assertThat(config("sluice.key.mode", mode.name(), "sluice.key.fields", "id").conversionSettings()
                    .keySource().name()).isEqualTo(mode.name());
        }
        for (SluiceSinkConfig.NullValueBehavior b : SluiceSinkConfig.NullValueBehavior.values()) {
            assertThat(config("behavior.on.null.values", b.name()).conversionSettings().onNullValue().name())
                    .isEqualTo(b.name());
        }
        for (SluiceSinkConfig.NullKeyBehavior b : SluiceSinkConfig.NullKeyBehavior.values()) {
            assertThat(config("behavior.on.null.keys", b.name()).conversionSettings().onNullKey().name())
                    .isEqualTo(b.name());
        }
        assertThat(config().conversionSettings().stringsAsJson()).isTrue();
        assertThat(config("sluice.value.string.format", "string").conversionSettings().stringsAsJson()).isFalse();
        assertThat(config().conversionSettings().bytesAsJson()).isFalse();
        assertThat(config("sluice.value.bytes.format", "JSON").conversionSettings().bytesAsJson()).isTrue();
        var s = config("sluice.key.mode", "VALUE_FIELDS", "sluice.key.fields", "id,region",
                "sluice.key.type.name", "K.${topic}", "sluice.value.type.name", "V.${schema}").conversionSettings();
        assertThat(s.keyFields()).containsExactly("id", "region");
        assertThat(s.keyTypeFormat()).isEqualTo("K.${topic}");
        assertThat(s.valueTypeFormat()).isEqualTo("V.${schema}");
    }

    @Test
    void everyOptionIsDocumentedInAGroup() {
        for (var key : SluiceSinkConfig.CONFIG_DEF.configKeys().values()) {
            assertThat(key.documentation).as(key.name).isNotBlank();
            assertThat(key.group).as(key.name).isNotBlank();
        }
    }
}
