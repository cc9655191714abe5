package io.sluice.streamer.internal;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class CacheLinesTest {

    @Test
    void readsTheNextChunkWhenAnEntryCrossesIntoANewOne() {
        byte[] array = new byte[4096];
        assertThat(CacheLines.readAhead(array, 100, 200)).as("still in chunk 0: nothing").isZero();
        assertThat(CacheLines.readAhead(array, 200, 300)).as("into chunk 1: chunk 2's 4 lines").isEqualTo(4);
        assertThat(CacheLines.readAhead(array, 300, 1300)).as("into chunk 5: chunk 6's 4 lines").isEqualTo(4);
    }

    @Test
    void theFirstEntryOfAnArrayAlsoReadsTheRestOfItsChunk() {
        byte[] array = new byte[4096];
        assertThat(CacheLines.readAhead(array, 0, 115)).as("179 and 243 in chunk 0, then chunk 1's 4 lines")
                .isEqualTo(6);
    }

    @Test
    void neverReadsPastTheArray() {
        byte[] array = new byte[600];
        assertThat(CacheLines.readAhead(array, 500, 520)).as("chunk 3 would be 768..1023: outside").isZero();
        assertThat(CacheLines.readAhead(array, 200, 300)).as("chunk 2 cut at 600: 512 and 576").isEqualTo(2);
        assertThat(CacheLines.readAhead(array, 0, 600)).as("a full array").isZero();
        assertThat(CacheLines.readAhead(new byte[1030], 700, 1000)).as("less than a line after the end").isZero();
        assertThat(CacheLines.readAhead(new byte[0], 0, 0)).isZero();
    }
}
