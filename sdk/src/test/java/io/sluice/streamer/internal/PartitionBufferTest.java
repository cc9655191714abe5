package io.sluice.streamer.internal;

import io.sluice.protocol.internal.EntryBatch;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/** A partition buffer's batches hold exactly the bytes appended, in order, whatever went through its staging slot. */
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

    @Test
    void buffersSharingAStagingBlockKeepTheirOwnEntries() {
        SplittableRandom random = new SplittableRandom(64);
        BufferMemory memory = new BufferMemory(1L << 30);
        BatchLedger ledger = new BatchLedger(memory, new StreamerCounters(memory));
        StagingBlocks staging = new StagingBlocks(130);
        // 0, 1 and 63 share the first block, 64 and 129 the second and third
        int[] partitions = {0, 1, 63, 64, 129};
        PartitionBuffer[] buffers = new PartitionBuffer[partitions.length];
        ByteArrayOutputStream[] expected = new ByteArrayOutputStream[partitions.length];
        int[] counts = new int[partitions.length];
        for (int i = 0; i < partitions.length; i++) {
            buffers[i] = new PartitionBuffer(partitions[i], ledger, memory, BatchArrays.disabled(), staging, 10_000,
                    4096, 1 << 20);
            expected[i] = new ByteArrayOutputStream();
        }
        for (int n = 0; n < 5_000; n++) { // entries interleaved over the buffers, each slot filled and moved many times
            int i = random.nextInt(partitions.length);
            byte[] entry = new byte[1 + random.nextInt(300)];
            random.nextBytes(entry);
            buffers[i].append(entry, entry.length);
            expected[i].write(entry, 0, entry.length);
            counts[i]++;
        }
        for (int i = 0; i < partitions.length; i++) {
            EntryBatch sealed = buffers[i].seal().entries();
            assertThat(sealed.size()).isEqualTo(counts[i]);
            assertThat(Arrays.copyOfRange(sealed.data(), sealed.base(), sealed.base() + sealed.length()))
                    .as("partition %d", partitions[i]).isEqualTo(expected[i].toByteArray());
        }
    }
}
