package io.sluice.node.internal.cluster;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.sluice.CacheConfig;
import io.sluice.CacheStoreConfig;
import io.sluice.WriteSyncMode;
import io.sluice.protocol.internal.CacheStoreWire;
import io.sluice.protocol.internal.Wire;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The catalogue's cache descriptions: options read back as written, and format 1 (before options) as defaults. */
class CacheDescriptionTest {

    @Test
    void aCacheWithOptionsAndAStoreReadsBackAsItWas() {
        CacheConfig config = CacheConfig.named("orders").withPartitions(16).withBackups(1)
                .withWriteSync(WriteSyncMode.FULL_SYNC).withReadFromBackup(true).index("secCode")
                .withStore(CacheStoreConfig.writeThrough("pg"));
        byte[] bytes = CacheDescription.encode(config);
        assertThat(bytes[0]).isEqualTo((byte) CacheDescription.FORMAT_WITH_OPTIONS);
        assertThat(CacheDescription.decode(bytes)).isEqualTo(config);
    }

    @Test
    void aCacheWithTheDefaultOptionsIsWrittenInFormat1() {
        CacheConfig config = CacheConfig.named("plain").withPartitions(16);
        byte[] bytes = CacheDescription.encode(config);
        assertThat(bytes[0]).isEqualTo((byte) CacheDescription.FORMAT);
        assertThat(CacheDescription.decode(bytes)).isEqualTo(config);
    }

    @Test
    void format1BytesOfBeforeTheOptionsReadAsTheDefaults() {
        ByteBuf old = Unpooled.buffer();
        old.writeByte(1);
        Wire.writeString(old, "orders");
        old.writeInt(8);
        CacheStoreWire.write(old, CacheStoreConfig.writeThrough("pg"));
        byte[] bytes = new byte[old.readableBytes()];
        old.readBytes(bytes);
        old.release();
        assertThat(CacheDescription.decode(bytes)).isEqualTo(CacheConfig.named("orders").withPartitions(8)
                .withStore(CacheStoreConfig.writeThrough("pg")));
    }

    @Test
    void anUnknownFormatIsRefused() {
        assertThatThrownBy(() -> CacheDescription.decode(new byte[] {3, 0, 0})).isInstanceOf(
                IllegalArgumentException.class).hasMessageContaining("format 3");
    }
}
