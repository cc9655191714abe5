package io.sluice.protocol.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.sluice.CacheConfig;
import io.sluice.CacheStoreConfig;
import io.sluice.WriteSyncMode;
import org.junit.jupiter.api.Test;

import java.util.HexFormat;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The cache options block and CREATE_CACHE's tail: what is written reads back, and bytes of before read as defaults. */
class CacheOptionsWireTest {

    private static final CacheConfig FULL = CacheConfig.named("orders").withPartitions(64).withBackups(2)
            .withWriteSync(WriteSyncMode.FULL_SYNC).withReadFromBackup(true).index("secCode")
            .index("account", "price");

    @Test
    void theBlockIsTheDocumentedBytes() {
        byte[] bytes = CacheOptionsWire.toBytes(CacheOptionsWire.Options.of(CacheConfig.named("c").withBackups(1)
                .withWriteSync(WriteSyncMode.FULL_ASYNC).withReadFromBackup(true).index("a").index("b", "cd")));
        assertThat(HexFormat.of().formatHex(bytes)).isEqualTo(
                "01" + "02" + "01" + "0002" + "02"            // backups 1, FULL_ASYNC, read from backup, next id 2, 2 indexes
                        + "0000" + "01" + "000161"             // id 0, 1 field: "a"
                        + "0001" + "02" + "000162" + "00026364"); // id 1, 2 fields: "b", "cd"
        assertThat(HexFormat.of().formatHex(CacheOptionsWire.toBytes(CacheOptionsWire.DEFAULTS)))
                .isEqualTo("000100000000");
    }

    @Test
    void theDocumentedExampleIsWhatTheCodecWrites() throws java.io.IOException {
        String doc = java.nio.file.Files.readString(java.nio.file.Path.of("../docs/protocol.md"));
        int at = doc.indexOf("<!-- options-vector -->`") + "<!-- options-vector -->`".length();
        String hex = doc.substring(at, doc.indexOf('`', at)).replace(" ", "");
        CacheOptionsWire.Options example = CacheOptionsWire.Options.of(CacheConfig.named("c").withBackups(1)
                .withWriteSync(WriteSyncMode.FULL_ASYNC).withReadFromBackup(true).index("a").index("b", "cd"));
        assertThat(HexFormat.of().formatHex(CacheOptionsWire.toBytes(example))).isEqualTo(hex);
        assertThat(CacheOptionsWire.fromBytes(HexFormat.of().parseHex(hex), "docs/protocol.md")).isEqualTo(example);
    }

    @Test
    void optionsReadBackAsWrittenOntoAnyBase() {
        CacheOptionsWire.Options options = CacheOptionsWire.Options.of(FULL);
        CacheOptionsWire.Options read = CacheOptionsWire.fromBytes(CacheOptionsWire.toBytes(options), "test");
        assertThat(read).isEqualTo(options);
        assertThat(read.indexIds()).containsExactly(0, 1);
        assertThat(read.applyTo(CacheConfig.named("orders").withPartitions(64))).isEqualTo(FULL);
        assertThat(options.isDefault()).isFalse();
        assertThat(CacheOptionsWire.Options.of(CacheConfig.named("x").withPartitions(3)).isDefault()).isTrue();
    }

    @Test
    void changedOptionsKeepTheIdsOfKeptIndexesAndNeverReuseOne() {
        CacheOptionsWire.Options first = CacheOptionsWire.Options.of(FULL); // secCode 0, account+price 1
        CacheOptionsWire.Options dropped = first.changedTo(CacheConfig.named("orders").index("account", "price"));
        assertThat(dropped.indexIds()).containsExactly(1);
        assertThat(dropped.nextIndexId()).isEqualTo(2);
        CacheOptionsWire.Options added = dropped.changedTo(CacheConfig.named("orders").index("account", "price")
                .index("secCode"));
        assertThat(added.indexIds()).containsExactly(1, 2);
        assertThat(added.nextIndexId()).isEqualTo(3);
        CacheOptionsWire.Options none = added.changedTo(CacheConfig.named("orders"));
        assertThat(none.isDefault()).as("ids were given out: the next one must be kept").isFalse();
        assertThat(CacheOptionsWire.fromBytes(CacheOptionsWire.toBytes(added), "test")).isEqualTo(added);
    }

    @Test
    void badBlocksAreRefusedNamingWhatIsWrong() {
        assertThatThrownBy(() -> CacheOptionsWire.fromBytes(HexFormat.of().parseHex("040100000000"), "t"))
                .hasMessageContaining("backups 4");
        assertThatThrownBy(() -> CacheOptionsWire.fromBytes(HexFormat.of().parseHex("000300000000"), "t"))
                .hasMessageContaining("write sync mode 3");
        assertThatThrownBy(() -> CacheOptionsWire.fromBytes(HexFormat.of().parseHex("000102000000"), "t"))
                .hasMessageContaining("unknown bits");
        byte[] noField = HexFormat.of().parseHex("000100000101" + "0000" + "00");
        assertThatThrownBy(() -> CacheOptionsWire.fromBytes(noField, "t")).hasMessageContaining("has no field");
        byte[] blank = HexFormat.of().parseHex("000100000101" + "0000" + "01" + "000120");
        assertThatThrownBy(() -> CacheOptionsWire.fromBytes(blank, "t")).hasMessageContaining("blank");
    }

    @Test
    void indexIdsMustBeBelowTheNextIdAndDistinct() {
        // next id 1, two indexes both id 0
        byte[] repeated = HexFormat.of().parseHex("000100000102" + "0000" + "01" + "000161" + "0000" + "01" + "000162");
        assertThatThrownBy(() -> CacheOptionsWire.fromBytes(repeated, "t")).hasMessageContaining("index id 0");
        // next id 0, one index with id 0
        byte[] notBelow = HexFormat.of().parseHex("000100000001" + "0000" + "01" + "000161");
        assertThatThrownBy(() -> CacheOptionsWire.fromBytes(notBelow, "t")).hasMessageContaining("index id 0");
        byte[] cut = HexFormat.of().parseHex("0001000001");
        assertThatThrownBy(() -> CacheOptionsWire.fromBytes(cut, "t")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("malformed");
    }

    @Test
    void aCreateRequestOfBeforeTheOptionsReadsAsTheDefaults() {
        CacheStoreConfig store = CacheStoreConfig.writeThrough("pg");
        for (int ifAbsent = 0; ifAbsent <= 1; ifAbsent++) {
            ByteBuf old = Unpooled.buffer();
            old.writeByte(ifAbsent);
            CacheStoreWire.write(old, store);
            CacheCreateWire.Tail tail = CacheCreateWire.readTail(old);
            assertThat(tail.ifAbsent()).isEqualTo(ifAbsent == 1);
            assertThat(tail.options()).isEqualTo(CacheOptionsWire.DEFAULTS);
            assertThat(tail.applyTo(CacheConfig.named("c").withPartitions(8)))
                    .isEqualTo(CacheConfig.named("c").withPartitions(8).withStore(store));
            assertThat(old.isReadable()).isFalse();
            old.release();
        }
        ByteBuf bare = Unpooled.wrappedBuffer(new byte[] {0});
        assertThat(CacheCreateWire.readTail(bare).applyTo(CacheConfig.named("c"))).isEqualTo(CacheConfig.named("c"));
    }

    @Test
    void aCreateRequestCarriesOptionsAndStoreAndLeavesDefaultsOut() {
        CacheConfig config = FULL.withStore(CacheStoreConfig.writeThrough("pg"));
        ByteBuf out = Unpooled.buffer();
        CacheCreateWire.writeTail(out, config, true);
        assertThat(out.getByte(0)).isEqualTo((byte) 3);
        CacheCreateWire.Tail tail = CacheCreateWire.readTail(out);
        assertThat(tail.ifAbsent()).isTrue();
        assertThat(tail.applyTo(CacheConfig.named("orders").withPartitions(64))).isEqualTo(config);
        assertThat(out.isReadable()).isFalse();
        out.release();

        ByteBuf plain = Unpooled.buffer();
        CacheCreateWire.writeTail(plain, CacheConfig.named("c"), false);
        assertThat(plain.readableBytes()).as("the layout of before: a node of before reads it").isEqualTo(1);
        assertThat(plain.getByte(0)).isEqualTo((byte) 0);
        plain.release();

        ByteBuf unknown = Unpooled.wrappedBuffer(new byte[] {4});
        assertThatThrownBy(() -> CacheCreateWire.readTail(unknown)).isInstanceOf(Wire.MalformedFrameException.class);
        assertThat(List.of(WriteSyncMode.values())).as("the layout numbers the modes by declaration order")
                .containsExactly(WriteSyncMode.FULL_SYNC, WriteSyncMode.PRIMARY_SYNC, WriteSyncMode.FULL_ASYNC);
    }
}
