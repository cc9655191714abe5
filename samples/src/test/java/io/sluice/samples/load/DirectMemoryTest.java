package io.sluice.samples.load;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class DirectMemoryTest {

    @Test
    void limitIsTheFlagSetForTheTests() {
        // The parent pom runs tests with -XX:MaxDirectMemorySize=2g.
        assertThat(DirectMemory.limit()).isEqualTo(2L << 30);
    }

    @Test
    void warnsOnlyWhenTheRegionMayOutgrowTheLimitAndSuggestsEnough() {
        assertThat(DirectMemory.warning(512L << 20, 512L << 20)).isNull();
        assertThat(DirectMemory.warning(768L << 20, 512L << 20)).isEqualTo("warning: a node's data region may take "
                + "up to 768 MiB of direct memory, but -XX:MaxDirectMemorySize is 512 MiB (it defaults to -Xmx); a "
                + "mode whose store outgrows it fails with a full data region: run java with "
                + "-XX:MaxDirectMemorySize=1g");
        assertThat(DirectMemory.warning(3L << 30, 1L << 30)).endsWith("-XX:MaxDirectMemorySize=3g");
    }
}
