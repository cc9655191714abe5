package io.sluice.pagestore.internal.checkpoint;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The manifest's bytes: what it writes is what it reads, store attachments included; a version 1 file still reads. */
class ManifestTest {

    @TempDir
    Path dir;

    @Test
    void cachesWithAndWithoutAStoreAttachmentReadBackAsWritten() throws IOException {
        byte[] attachment = {0, 2, 'p', 'g', 2, 1, 0, 0, 0, 9};
        new Manifest(7, 4_096, 3, new byte[] {1, 2, 3}, List.of(
                new Manifest.CacheFiles(0, "orders", new long[] {7, 0, 5}, attachment),
                new Manifest.CacheFiles(2, "plain", new long[] {0}, null))).write(dir);

        Manifest read = Manifest.read(dir);
        assertThat(read.number()).isEqualTo(7);
        assertThat(read.mark()).isEqualTo(4_096);
        assertThat(read.nextCacheId()).isEqualTo(3);
        assertThat(read.types()).containsExactly(1, 2, 3);
        assertThat(read.caches()).hasSize(2);
        assertThat(read.caches().get(0).name()).isEqualTo("orders");
        assertThat(read.caches().get(0).files()).containsExactly(7, 0, 5);
        assertThat(read.caches().get(0).store()).containsExactly(attachment);
        assertThat(read.caches().get(1).name()).isEqualTo("plain");
        assertThat(read.caches().get(1).store()).isNull();
    }

    @Test
    void cacheOptionsReadBackAsWrittenAndAbsentOnesAsNull() throws IOException {
        byte[] options = {1, 0, 1, 0, 1, 1, 0, 0, 1, 0, 1, 'a'};
        new Manifest(2, 0, 2, new byte[0], List.of(
                new Manifest.CacheFiles(0, "orders", new long[] {2}, null, options),
                new Manifest.CacheFiles(1, "plain", new long[] {0}, null, null))).write(dir);

        Manifest read = Manifest.read(dir);
        assertThat(read.caches().get(0).options()).containsExactly(options);
        assertThat(read.caches().get(0).store()).isNull();
        assertThat(read.caches().get(1).options()).isNull();
    }

    @Test
    void aVersion2ManifestWrittenBeforeCacheOptionsStillReads() throws IOException {
        byte[] name = "orders".getBytes(StandardCharsets.UTF_8);
        byte[] attachment = {0, 2, 'p', 'g'};
        ByteBuffer out = ByteBuffer.allocate(200);
        out.putLong(CheckpointFormat.MANIFEST_MAGIC).putInt(2).putLong(5)
                .putLong(512).putInt(1).putInt(0).putInt(1)
                .putInt(0).putInt(1).putShort((short) name.length).put(name).putLong(5)
                .putInt(attachment.length).put(attachment);
        out.putInt(CheckpointFormat.crc(out.array(), 0, out.position()));
        Files.write(dir.resolve(CheckpointFormat.MANIFEST), java.util.Arrays.copyOf(out.array(), out.position()));

        Manifest read = Manifest.read(dir);
        assertThat(read.caches()).singleElement().satisfies(c -> {
            assertThat(c.files()).containsExactly(5);
            assertThat(c.store()).containsExactly(attachment);
            assertThat(c.options()).isNull();
        });
    }

    @Test
    void aVersion1ManifestWrittenBeforeStoreAttachmentsStillReads() throws IOException {
        byte[] name = "orders".getBytes(StandardCharsets.UTF_8);
        ByteBuffer out = ByteBuffer.allocate(200);
        out.putLong(CheckpointFormat.MANIFEST_MAGIC).putInt(CheckpointFormat.VERSION_WITHOUT_STORES).putLong(4)
                .putLong(512).putInt(1).putInt(0).putInt(1)
                .putInt(0).putInt(2).putShort((short) name.length).put(name).putLong(4).putLong(0);
        out.putInt(CheckpointFormat.crc(out.array(), 0, out.position()));
        Files.write(dir.resolve(CheckpointFormat.MANIFEST), java.util.Arrays.copyOf(out.array(), out.position()));

        Manifest read = Manifest.read(dir);
        assertThat(read.number()).isEqualTo(4);
        assertThat(read.caches()).singleElement().satisfies(c -> {
            assertThat(c.name()).isEqualTo("orders");
            assertThat(c.files()).containsExactly(4, 0);
            assertThat(c.store()).isNull();
        });
    }

    @Test
    void anUnknownVersionIsRefusedNamingIt() throws IOException {
        new Manifest(1, 0, 0, new byte[0], List.of()).write(dir);
        Path file = dir.resolve(CheckpointFormat.MANIFEST);
        byte[] data = Files.readAllBytes(file);
        ByteBuffer.wrap(data).putInt(8, 9);
        ByteBuffer.wrap(data).putInt(data.length - 4, CheckpointFormat.crc(data, 0, data.length - 4));
        Files.write(file, data);
        assertThatThrownBy(() -> Manifest.read(dir)).isInstanceOf(CheckpointCorruptedException.class)
                .hasMessageContaining("version 9");
    }
}
