package io.sluice;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StreamerOptionsTest {

    @Test
    void defaultsAreTheDocumentedOnes() {
        StreamerOptions o = StreamerOptions.DEFAULT;
        assertThat(o.perPartitionBufferSize()).isEqualTo(512);
        assertThat(o.autoFlushInterval()).isEqualTo(Duration.ofSeconds(1));
        assertThat(o.allowOverwrite()).isFalse();
        assertThat(o.receiver()).isEqualTo(Receivers.isolated());
        assertThat(o.maxEntrySize()).isEqualTo(64 * 1024 * 1024);
        assertThat(o.bufferMemory()).isEqualTo(256L * 1024 * 1024);
    }

    @Test
    void allowOverwriteChoosesTheIndividualReceiverUnlessOneIsSet() {
        assertThat(StreamerOptions.builder().allowOverwrite(true).build().receiver()).isEqualTo(Receivers.individual());
        assertThat(StreamerOptions.builder().allowOverwrite(true).receiver(Receivers.batched()).build().receiver())
                .isEqualTo(Receivers.batched());
    }

    @Test
    void outOfRangeOptionsFailAtBuildTimeNamingTheOption() {
        assertThatThrownBy(() -> StreamerOptions.builder().perPartitionBufferSize(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("perPartitionBufferSize is 0");
        assertThatThrownBy(() -> StreamerOptions.builder().perNodeParallelOperations(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("perNodeParallelOperations");
        assertThatThrownBy(() -> StreamerOptions.builder().autoFlushInterval(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("autoFlushInterval");
        assertThatThrownBy(() -> StreamerOptions.builder().timeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
        assertThatThrownBy(() -> StreamerOptions.builder().bufferMemory(100))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bufferMemory is 100");
        assertThatThrownBy(() -> StreamerOptions.builder().bufferMemory(4096).perPartitionBufferBytes(8192).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("perPartitionBufferBytes");
        assertThatThrownBy(() -> StreamerOptions.builder().bufferMemory(4096).perPartitionBufferBytes(1024)
                .maxEntrySize(8192).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxEntrySize");
    }

    @Test
    void defaultEntryLimitFollowsASmallBufferMemory() {
        StreamerOptions o = StreamerOptions.builder().bufferMemory(1 << 20).perPartitionBufferBytes(4096).build();
        assertThat(o.maxEntrySize()).isEqualTo(1 << 20);
    }

    @Test
    void buildDoesNotChangeTheBuilder() {
        StreamerOptions.Builder b = StreamerOptions.builder().bufferMemory(1 << 20).perPartitionBufferBytes(4096);
        assertThat(b.build().maxEntrySize()).isEqualTo(1 << 20);

        StreamerOptions bigger = b.bufferMemory(512L << 20).build();

        assertThat(bigger.maxEntrySize()).as("the entry limit was not lowered in the builder by the first build")
                .isEqualTo(StreamerOptions.DEFAULT_MAX_ENTRY_SIZE);
    }

    @Test
    void toBuilderKeepsDerivedDefaultsFollowingTheirOptions() {
        StreamerOptions small = StreamerOptions.builder().bufferMemory(1 << 20).perPartitionBufferBytes(4096).build();

        StreamerOptions again = small.toBuilder().bufferMemory(128L << 20).build();

        assertThat(again.maxEntrySize()).as("maxEntrySize was never set, so it still follows bufferMemory")
                .isEqualTo(StreamerOptions.DEFAULT_MAX_ENTRY_SIZE);
        assertThat(small.toBuilder().allowOverwrite(true).build().receiver()).isEqualTo(Receivers.individual());
    }

    @Test
    void equalOptionsAreEqual() {
        StreamerOptions a = StreamerOptions.builder().perPartitionBufferSize(512).build();
        StreamerOptions b = StreamerOptions.builder().receiver(Receivers.isolated()).build();

        assertThat(a).isEqualTo(StreamerOptions.DEFAULT).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(StreamerOptions.builder().perPartitionBufferSize(7).build()).isNotEqualTo(a);
        assertThat(StreamerOptions.builder().receiver(Receivers.named("x")).build()).isNotEqualTo(a);
    }

    @Test
    void aNullReceiverRestoresTheDefaultAndOtherNullsAreRefused() {
        assertThat(StreamerOptions.builder().receiver(Receivers.batched()).receiver(null).build().receiver())
                .isEqualTo(Receivers.isolated());
        assertThatThrownBy(() -> StreamerOptions.builder().timeout(null))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("timeout");
    }

    @Test
    void toStringNamesEveryOption() {
        assertThat(StreamerOptions.DEFAULT.toString()).contains("perPartitionBufferSize=512", "receiver=isolated",
                "maxEntrySize=67108864", "skipStore=false", "timeout=PT5M");
    }

    @Test
    void toBuilderKeepsEveryOption() {
        StreamerOptions o = StreamerOptions.builder().perPartitionBufferSize(7).autoFlushInterval(Duration.ZERO)
                .receiver(Receivers.named("x")).skipStore(true).build();
        assertThat(o.toBuilder().build()).hasToString(o.toString()).isEqualTo(o);
    }
}
