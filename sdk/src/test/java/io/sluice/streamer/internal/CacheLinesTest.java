package io.sluice.streamer.internal;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class CacheLinesTest {

    @Test
    void readsTheLinesAfterTheEndForTheSpanBounded() {
        byte[] array = new byte[4096];
        assertThat(CacheLines.readAhead(array, 0, 115)).as("lines at 64 and 128").isEqualTo(2);
        assertThat(CacheLines.readAhead(array, 100, 1)).as("the line after the end's").isEqualTo(1);
        assertThat(CacheLines.readAhead(array, 0, 1 << 20)).as("capped at 4 lines").isEqualTo(4);
    }

    @Test
    void neverReadsPastTheArray() {
        byte[] array = new byte[300];
        assertThat(CacheLines.readAhead(array, 200, 115)).as("only 264 is inside").isEqualTo(1);
        assertThat(CacheLines.readAhead(array, 236, 115)).isZero();
        assertThat(CacheLines.readAhead(array, 300, 115)).as("a full array").isZero();
        assertThat(CacheLines.readAhead(new byte[0], 0, 64)).isZero();
    }
}
