package io.sluice.store.freelist;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.store.page.DataPageIO;
import io.sluice.store.page.PageMemory;
import org.junit.jupiter.api.Test;

class FreeListTest {

    private static final int PAGE = 4096;

    @Test
    void batchTakesTheRoomiestPageWithAQuarterOfTheWantedRoomElseAnEmptyOne() {
        try (PageMemory memory = new PageMemory(PAGE, 1 << 20, 16L << 20)) {
            FreeList freeList = new FreeList(memory);
            long small = pageWithRoom(memory, freeList, 200); // bucket 12: under a quarter of 4,000
            long middle = pageWithRoom(memory, freeList, 1100); // bucket 68 (second word of buckets)
            long large = pageWithRoom(memory, freeList, 2100); // bucket 131 (third word)
            long edge = pageWithRoom(memory, freeList, 3990); // bucket 249: just under 4,000 (bucket 250)
            freeList.putBack(edge);
            freeList.putBack(small);
            freeList.putBack(middle);
            freeList.putBack(large);

            assertThat(freeList.takeDataPage(16, 4000)).as("roomiest below the wanted room").isEqualTo(edge);
            assertThat(freeList.takeDataPage(16, 4000)).as("next roomiest").isEqualTo(large);
            assertThat(freeList.takeDataPage(16, 4000)).as("next roomiest").isEqualTo(middle);
            long fresh = freeList.takeDataPage(16, 4000);
            assertThat(fresh).as("the 200-byte page has less than a quarter: an empty page instead")
                    .isNotIn(small, middle, large, edge);
            assertThat(DataPageIO.spaceForNewRow(memory.buffer(fresh), memory.offset(fresh))).isEqualTo(PAGE - 34); // header 32, one slot 2
            assertThat(freeList.takeDataPage(16, 300)).as("a quarter of 300 bytes: the 200-byte page qualifies")
                    .isEqualTo(small);
        }
    }

    /** A data page taken from the free list with one row, leaving {@code room} bytes for a new row. */
    private static long pageWithRoom(PageMemory memory, FreeList freeList, int room) {
        long page = freeList.takeDataPage(16);
        int p = memory.offset(page);
        int empty = DataPageIO.spaceForNewRow(memory.buffer(page), p);
        DataPageIO.addRow(memory.buffer(page), p, PAGE, empty - room - 4, PageMemory.NULL_PAGE); // + header, slot
        assertThat(DataPageIO.spaceForNewRow(memory.buffer(page), p)).isEqualTo(room);
        return page;
    }
}
