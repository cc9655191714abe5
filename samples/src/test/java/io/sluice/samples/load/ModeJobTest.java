package io.sluice.samples.load;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ModeJobTest {

    @Test
    void repeatsAreInterleavedEveryJobOncePerRound() {
        List<String> order = ModeJob.interleaved(3, 2).stream().map(p -> p[0] + "#" + p[1]).toList();
        assertThat(order).containsExactly("0#0", "1#0", "2#0", "0#1", "1#1", "2#1");
        assertThat(ModeJob.interleaved(2, 1).stream().map(p -> p[0] + "#" + p[1])).containsExactly("0#0", "1#0");
    }

    @Test
    void jobsFollowTheModesOrderWithEveryValueKindAndRawOnce() {
        LoadSettings settings = new LoadSettings(10, 1, List.of(LoadMode.PUT, LoadMode.RAW, LoadMode.STREAMER_BATCHED),
                List.of(ValueKind.POJO, ValueKind.BINARY), 0, 0, 512, 1000, 8, null, 1024, 0, 1);
        assertThat(ModeJob.of(settings).stream().map(ModeJob::label)).containsExactly("put/pojo", "put/binary",
                "raw/fields", "streamer-batched/pojo", "streamer-batched/binary");
    }
}
