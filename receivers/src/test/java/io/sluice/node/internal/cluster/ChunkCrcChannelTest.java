package io.sluice.node.internal.cluster;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.util.Random;
import java.util.zip.CRC32C;

import static org.assertj.core.api.Assertions.assertThat;

/** The checks a transfer file gets as it is written equal those computed over the bytes afterwards. */
class ChunkCrcChannelTest {

    @Test
    void chunkAndFileChecksMatchTheBytesWrittenInAnyPieces() throws Exception {
        byte[] data = new byte[10 * 4096 + 123];
        new Random(7).nextBytes(data);
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        ChunkCrcChannel out = new ChunkCrcChannel(Channels.newChannel(sink), 4096);
        Random sizes = new Random(11);
        for (int at = 0; at < data.length; ) {
            int n = Math.min(data.length - at, 1 + sizes.nextInt(9000)); // pieces across chunk boundaries
            out.write(ByteBuffer.wrap(data, at, n));
            at += n;
        }
        assertThat(sink.toByteArray()).isEqualTo(data);
        assertThat(out.length()).isEqualTo(data.length);
        int[] crcs = out.chunkCrcs();
        assertThat(crcs).hasSize(PartitionFileWire.Header.chunksOf(data.length, 4096)).hasSize(11);
        for (int i = 0; i < crcs.length; i++) {
            CRC32C crc = new CRC32C();
            crc.update(data, i * 4096, Math.min(4096, data.length - i * 4096));
            assertThat(crcs[i]).as("chunk %d", i).isEqualTo((int) crc.getValue());
        }
        CRC32C whole = new CRC32C();
        whole.update(data);
        assertThat(out.fileCrc()).isEqualTo((int) whole.getValue());
    }
}
