package io.sluice.streamer;

import io.sluice.StreamerOptions;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.streamer.internal.Streamer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The streamer with the real codec: what the node decodes is what was added. */
@Timeout(30)
class StreamerBinaryCodecTest {

    @Test
    void builderValuesArriveAsTheyWereBuiltWhileTheBuilderIsReused() {
        BinaryContext binary = new BinaryContext();
        TestTransport transport = new TestTransport(binary, 1024, "n1");
        try (Streamer<Object, Object> s = new Streamer<>("c", StreamerOptions.builder()
                .autoFlushInterval(Duration.ZERO).build(), transport, binary, () -> { })) {
            BinaryObjectBuilder builder = binary.builder("Order");
            for (long k = 0; k < 5_000; k++) {
                s.addData(k, builder.setField("id", k).setField("symbol", "S" + (k % 7)).build());
            }
            s.addData("text-key", 42);
            s.removeData(3L);
            s.flush();
            assertThat(s.metrics().applied()).isEqualTo(5_002);
        }
        assertThat(transport.misrouted.get()).isNull();
        assertThat(transport.received).hasSize(5_001);
        BinaryObject order = (BinaryObject) transport.lastValue(4_321L);
        assertThat((Long) order.field("id")).isEqualTo(4_321L);
        assertThat((String) order.field("symbol")).isEqualTo("S" + (4_321 % 7));
        assertThat(transport.lastValue("text-key")).isEqualTo(42);
        assertThat(transport.lastValue(3L)).isNull();
    }
}
