package io.sluice.streamer;

import io.sluice.DataStreamer;
import io.sluice.StreamerOptions;
import io.sluice.streamer.internal.StreamerRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The streamers of one owner: each leaves the registry when it closes, closeAll flushes and closes the rest. */
@Timeout(30)
class StreamerRegistryTest {

    @Test
    void closeAllFlushesAndClosesOpenStreamersThenRefusesNewOnes() {
        TestTransport transport = new TestTransport(8, "n1");
        StreamerRegistry registry = new StreamerRegistry(transport, new TestCodec(), "the client");
        DataStreamer<Long, Long> open = registry.open("c", StreamerOptions.DEFAULT);
        DataStreamer<Long, Long> closedEarly = registry.open("c", StreamerOptions.DEFAULT);
        assertThat(registry.size()).isEqualTo(2);
        closedEarly.close();
        assertThat(registry.size()).as("a closed streamer leaves the registry").isEqualTo(1);

        open.addData(1L, 10L);
        assertThat(registry.closeAll()).as("no failure").isNull();

        assertThat(transport.receivedEntries.get()).as("flushed by closeAll").isEqualTo(1);
        assertThat(registry.size()).isZero();
        assertThatThrownBy(() -> open.addData(2L, 20L)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("is closed");
        assertThatThrownBy(() -> registry.open("c", StreamerOptions.DEFAULT))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("the client is closing; no new streamers");
    }
}
