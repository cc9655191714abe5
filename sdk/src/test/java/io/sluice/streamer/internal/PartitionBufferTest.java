package io.sluice.streamer.internal;

import io.sluice.protocol.internal.EntryBatch;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** A partition buffer's batches hold exactly the bytes appended, in order, whatever went through its staging array. */
class PartitionBufferTest {

    @Test
    void sealedBatchesHoldTheAppendedBytesInOrder() {
        SplittableRandom random = new SplittableRandom(29);
        BufferMemory memory = new BufferMemory(1L << 30);
        BatchLedger ledger = new BatchLedger(memory, new StreamerCounters(memory));
        // a small first capacity, so that arrays also grow while entries are staged and moved
        PartitionBuffer buffer = new PartitionBuffer(7, ledger, memory, BatchArrays.disabled(), new StagingBlocks(8), 64, 300, 4096);
        for (int b = 0; b < 300; b++) {
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            int entries = 1 + random.nextInt(64);
            for (int i = 0; i < entries; i++) {
                // mostly entries that are staged, some exactly the staging array, some larger than it
                int length = switch (random.nextInt(10)) {
                    case 0 -> PartitionBuffer.STAGE;
                    case 1 -> PartitionBuffer.STAGE + 1 + random.nextInt(2000);
                    default -> 1 + random.nextInt(200);
                };
                byte[] entry = new byte[length + random.nextInt(3)]; // the scratch may be longer than the entry
                random.nextBytes(entry);
                buffer.append(entry, length);
                expected.write(entry, 0, length);
                assertThat(buffer.length()).isEqualTo(expected.size());
                assertThat(buffer.count()).isEqualTo(i + 1);
            }
            Batch batch = buffer.seal();
            EntryBatch sealed = batch.entries();
            assertThat(sealed.size()).isEqualTo(entries);
            assertThat(Arrays.copyOfRange(sealed.data(), sealed.base(), sealed.base() + sealed.length()))
                    .as("batch %d", b).isEqualTo(expected.toByteArray());
            assertThat(buffer.length()).isZero();
            assertThat(buffer.count()).isZero();
        }
        assertThat(buffer.seal()).as("nothing open").isNull();
    }
}
