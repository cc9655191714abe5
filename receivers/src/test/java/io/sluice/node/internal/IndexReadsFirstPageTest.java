package io.sluice.node.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A partition's first page is sized by the query's limit over the partitions: small limits read few values. */
class IndexReadsFirstPageTest {

    @Test
    void firstPageIsTwiceTheLimitsShareOfAPartitionBetweenOneAndSixteen() {
        assertThat(IndexReads.firstPage(Long.MAX_VALUE, 1024)).isEqualTo(IndexReads.FIRST_PAGE);
        assertThat(IndexReads.firstPage(Long.MAX_VALUE, 1)).isEqualTo(IndexReads.FIRST_PAGE);
        assertThat(IndexReads.firstPage(100, 1024)).isEqualTo(1);      // 1,024 values read for 100, not 16,384
        assertThat(IndexReads.firstPage(4097, 1024)).isEqualTo(9);     // a remote page of 4,096 (and one to see more)
        assertThat(IndexReads.firstPage(1, 1)).isEqualTo(2);
        assertThat(IndexReads.firstPage(5, 2)).isEqualTo(5);
        assertThat(IndexReads.firstPage(1_000_000, 16)).isEqualTo(IndexReads.FIRST_PAGE);
        assertThat(IndexReads.firstPage(0, 4)).isEqualTo(1);
    }
}
