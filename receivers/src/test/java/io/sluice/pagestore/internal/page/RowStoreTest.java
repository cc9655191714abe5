package io.sluice.pagestore.internal.page;

import io.sluice.protocol.internal.EntryBatch;
import io.sluice.pagestore.internal.freelist.FreeList;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Reads and in-place overwrites of rows that span a head and fragment pages, against a plain byte array. */
class RowStoreTest {

    @Test
    void overwritesAndReadsAnyRangeOfAFragmentedRow() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        try (PageMemory memory = new PageMemory(1024, 1 << 20, 16L << 20)) {
            RowStore rows = new RowStore(memory, new FreeList(memory));
            byte[] key = new byte[37];
            random.nextBytes(key);
            byte[] value = new byte[5 * rows.fragmentCapacity() + 123]; // a head and several fragments
            random.nextBytes(value);
            long link = rows.add(key, 0, key.length, value, 0, value.length);
            long valueStart = EntryBatch.ENTRY_HEADER + (long) key.length;
            for (int round = 0; round < 200; round++) {
                int at = random.nextInt(value.length);
                int length = random.nextInt(Math.min(value.length - at, 3 * rows.fragmentCapacity()) + 1);
                byte[] src = new byte[length + 3];
                random.nextBytes(src);
                rows.overwriteValue(link, key.length, value.length, at, src, 3, length);
                System.arraycopy(src, 3, value, at, length);

                int from = random.nextInt(value.length);
                int readLength = random.nextInt(value.length - from + 1);
                byte[] dst = new byte[readLength + 5];
                rows.read(link, valueStart + from, dst, 5, readLength);
                assertThat(Arrays.copyOfRange(dst, 5, dst.length)).as("seed %d round %d", seed, round)
                        .isEqualTo(Arrays.copyOfRange(value, from, from + readLength));
            }
            assertThat(rows.value(link)).as("seed %d", seed).isEqualTo(value);
            assertThat(rows.key(link)).isEqualTo(key);
            assertThatThrownBy(() -> rows.overwriteValue(link, key.length, value.length, value.length - 1,
                    new byte[2], 0, 2)).isInstanceOf(IndexOutOfBoundsException.class);
        }
    }
}
