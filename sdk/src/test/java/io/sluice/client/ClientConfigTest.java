package io.sluice.client;

import io.sluice.client.internal.ClientSettings;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class ClientConfigTest {

    @Test
    void theClientRunsWithTheSettingsTheConfigWasBuiltWith() {
        ClientConfig config = ClientConfig.builder().addresses("a:1", "b:2").clientName("loader").token("s3cret")
                .connectTimeout(Duration.ofSeconds(3)).requestTimeout(Duration.ofSeconds(4)).maxFrameSize(4096)
                .retryAttempts(2).retryInitialBackoff(Duration.ofMillis(50)).circuitBreakerFailureRate(70)
                .circuitBreakerWaitInOpenState(Duration.ofSeconds(6)).build();
        assertThat(config.settings()).isEqualTo(new ClientSettings(java.util.List.of("a:1", "b:2"), "loader",
                "s3cret", Duration.ofSeconds(3), Duration.ofSeconds(4), 4096, false, null, 2, Duration.ofMillis(50),
                70, Duration.ofSeconds(6)));
        assertThat(config.addresses()).containsExactly("a:1", "b:2");
        assertThat(config.token()).isEqualTo("s3cret");
        assertThat(config.maxFrameSize()).isEqualTo(4096);
        assertThat(ClientConfig.MAX_BACKOFF).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void theTokenStaysOutOfTheTextOfTheConfigAndOfItsSettings() {
        ClientConfig config = ClientConfig.builder().addresses("a:1").token("s3cret").build();
        assertThat(config.toString()).contains("token=set").doesNotContain("s3cret");
        assertThat(config.settings().toString()).doesNotContain("s3cret");
        assertThat(ClientConfig.addresses("a:1").toString()).contains("token=none");
    }
}
