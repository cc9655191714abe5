package io.sluice.pagestore.internal.tree;

import static org.assertj.core.api.Assertions.assertThat;

import io.sluice.pagestore.internal.page.PageHeader;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class TreePageIOTest {

    @Test
    void fullPagesFitTheirPageAtEveryPageSize() {
        for (int item : new int[] {TreePageIO.ITEM, TreePageIO.WIDE_ITEM}) {
            for (int pageSize = 1024; pageSize <= 16384; pageSize <<= 1) {
                int leaves = TreePageIO.leafCapacity(pageSize, item);
                int inner = TreePageIO.innerCapacity(pageSize, item);
                assertThat(TreePageIO.leafItem(0, leaves, item)).as("end of a full leaf, %d-byte pages", pageSize)
                        .isLessThanOrEqualTo(pageSize);
                assertThat(TreePageIO.childSlot(0, inner + 1)).as("end of the child ids").isLessThanOrEqualTo(
                        TreePageIO.separatorsStart(inner));
                assertThat(TreePageIO.separatorsStart(inner) + inner * item).as("end of a full inner page")
                        .isLessThanOrEqualTo(pageSize);
                assertThat(TreePageIO.ITEMS).isGreaterThanOrEqualTo(TreePageIO.COUNT + 2)
                        .isGreaterThanOrEqualTo(PageHeader.SIZE);
            }
        }
        assertThat(TreePageIO.leafCapacity(4096)).isEqualTo(TreePageIO.leafCapacity(4096, TreePageIO.ITEM))
                .isGreaterThan(TreePageIO.leafCapacity(4096, TreePageIO.WIDE_ITEM));
    }

    @Test
    void anItemHoldsTheLinkTheLengthAndTheZeroPaddedPrefixAtItsNamedOffsets() {
        ByteBuffer b = ByteBuffer.allocate(4096);
        byte[] key = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
        int at = TreePageIO.leafItem(0, 3, TreePageIO.ITEM);

        TreePageIO.writeItem(b, at, TreePageIO.ITEM, 0x1122_3344_5566L, key, 0, key.length);
        TreePageIO.markGhost(b, at);

        assertThat(b.getLong(at + TreePageIO.LINK)).isEqualTo(0x1122_3344_5566L);
        assertThat(TreePageIO.keyLength(b, at)).isEqualTo(10);
        assertThat(TreePageIO.ghost(b, at)).isTrue();
        assertThat(b.getInt(at + TreePageIO.KEY_LENGTH)).isEqualTo(10 | TreePageIO.GHOST);
        assertThat(b.getLong(at + TreePageIO.PREFIX_HIGH)).isEqualTo(0x0102_0304_0506_0708L);
        assertThat(b.getInt(at + TreePageIO.PREFIX_LOW)).isEqualTo(0x090A_0000);
        assertThat(TreePageIO.PREFIX_LOW + 4).isEqualTo(TreePageIO.ITEM);
    }

    @Test
    void aWideItemCarriesKeyBytes12To27AfterTheNarrowFieldsZeroPadded() {
        ByteBuffer b = ByteBuffer.allocate(4096);
        byte[] key = new byte[22];
        for (int i = 0; i < key.length; i++) {
            key[i] = (byte) (i + 1);
        }
        int at = TreePageIO.leafItem(0, 2, TreePageIO.WIDE_ITEM);
        assertThat(at).isEqualTo(TreePageIO.ITEMS + 2 * 40);

        TreePageIO.writeItem(b, at, TreePageIO.WIDE_ITEM, 77L, key, 0, key.length);

        assertThat(TreePageIO.link(b, at)).isEqualTo(77L);
        assertThat(TreePageIO.keyLength(b, at)).isEqualTo(22);
        assertThat(b.getLong(at + TreePageIO.PREFIX_HIGH)).isEqualTo(0x0102_0304_0506_0708L);
        assertThat(b.getInt(at + TreePageIO.PREFIX_LOW)).isEqualTo(0x090A_0B0C);
        assertThat(b.getLong(at + TreePageIO.EXTENSION_HIGH)).isEqualTo(0x0D0E_0F10_1112_1314L);
        assertThat(b.getLong(at + TreePageIO.EXTENSION_LOW)).isEqualTo(0x1516_0000_0000_0000L);
        assertThat(TreePageIO.EXTENSION_LOW + 8).isEqualTo(TreePageIO.WIDE_ITEM);
        assertThat(TreePageIO.WIDE_PREFIX).isEqualTo(TreePageIO.PREFIX + 16);
    }

    @Test
    void keyBytesPastTheKeysEndReadAsZeroWhereverTheKeySitsInItsArray() {
        java.util.Random random = new java.util.Random(7);
        for (int length = 0; length <= 40; length++) {
            byte[] key = new byte[length];
            random.nextBytes(key);
            byte[] within = new byte[5 + length + 8 + random.nextInt(3)]; // bytes before and after it, none zero
            java.util.Arrays.fill(within, (byte) 0xA5);
            System.arraycopy(key, 0, within, 5, length);
            for (int from : new int[] {TreePageIO.PREFIX, TreePageIO.PREFIX + 8}) {
                long expected = 0;
                for (int i = from; i < from + 8; i++) {
                    expected = expected << 8 | (i < length ? key[i] & 0xFF : 0);
                }
                assertThat(TreePageIO.keyLong(key, 0, length, from)).as("length %d from %d", length, from)
                        .isEqualTo(expected);
                assertThat(TreePageIO.keyLong(within, 5, length, from)).as("length %d from %d", length, from)
                        .isEqualTo(expected);
            }
        }
    }

    @Test
    void anItemThatHoldsItsKeyWholeGivesItBack() {
        ByteBuffer b = ByteBuffer.allocate(4096);
        for (int item : new int[] {TreePageIO.ITEM, TreePageIO.WIDE_ITEM}) {
            for (int length = 0; length <= TreePageIO.prefix(item); length++) {
                byte[] key = new byte[length];
                for (int i = 0; i < length; i++) {
                    key[i] = (byte) (0xF0 - i);
                }
                TreePageIO.writeItem(b, 64, item, 99, key, 0, length);
                assertThat(TreePageIO.itemKey(b, 64, length)).as("item %d, length %d", item, length).isEqualTo(key);
            }
        }
    }
}
