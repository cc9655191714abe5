package io.sluice.pagestore.internal.freelist;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.pagestore.internal.page.DataPageIO;
import io.sluice.pagestore.internal.page.PageMemory;
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

    @Test
    void aRowLargerThanTheLastBucketsFloorNeverGetsAPageWithLessRoom() {
        int page = 16384; // buckets of 64 bytes: the last one (255) holds every page with 16,320 bytes or more
        try (PageMemory memory = new PageMemory(page, 1 << 20, 16L << 20)) {
            FreeList freeList = new FreeList(memory);
            long almostEmpty = pageWithRoom(memory, freeList, page, 16322);
            freeList.putBack(almostEmpty);
            int need = DataPageIO.rowSize(DataPageIO.maxPayload(page, false), false); // 16,348 bytes

            long taken = freeList.takeDataPage(need);

            assertThat(taken).as("the listed page has 16,322 bytes, the row needs %d", need).isNotEqualTo(almostEmpty);
            assertThat(DataPageIO.spaceForNewRow(memory.buffer(taken), memory.offset(taken))).isGreaterThanOrEqualTo(need);
        }
    }

    /** A data page taken from the free list with one row, leaving {@code room} bytes for a new row. */
    private static long pageWithRoom(PageMemory memory, FreeList freeList, int room) {
        return pageWithRoom(memory, freeList, PAGE, room);
    }

    private static long pageWithRoom(PageMemory memory, FreeList freeList, int pageSize, int room) {
        long page = freeList.takeDataPage(16);
        int p = memory.offset(page);
        int empty = DataPageIO.spaceForNewRow(memory.buffer(page), p);
        DataPageIO.addRow(memory.buffer(page), p, pageSize, empty - room - 4, PageMemory.NULL_PAGE); // + header, slot
        assertThat(DataPageIO.spaceForNewRow(memory.buffer(page), p)).isEqualTo(room);
        return page;
    }
}
