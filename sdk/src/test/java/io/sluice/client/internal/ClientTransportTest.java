package io.sluice.client.internal;

import io.sluice.Receivers;
import io.sluice.protocol.internal.BatchRequest;
import io.sluice.protocol.internal.EntryBatch;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ClientTransportTest {

    private static BatchRequest request(int batches, int bytesEach) {
        List<BatchRequest.PartitionBatch> list = new ArrayList<>();
        for (int p = 0; p < batches; p++) {
            list.add(new BatchRequest.PartitionBatch(p, new EntryBatch(new byte[bytesEach], bytesEach, 1)));
        }
        return new BatchRequest("c", Receivers.isolated(), false, false, list);
    }

    @Test
    void aRequestLargerThanAFrameIsSplitInOrderAndASmallOneIsNot() {
        BatchRequest small = request(3, 1000);
        assertThat(ClientTransport.split(small, 1 << 20, 1 << 20)).containsExactly(small);

        List<BatchRequest> parts = ClientTransport.split(request(100, 200_000), 1 << 20, 64 << 20);

        assertThat(parts).hasSizeGreaterThan(20);
        List<Integer> partitions = parts.stream().flatMap(r -> r.batches().stream())
                .map(BatchRequest.PartitionBatch::partition).toList();
        assertThat(partitions).hasSize(100).isSorted();
        for (BatchRequest part : parts) {
            long bytes = part.batches().stream().mapToLong(b -> b.entries().length() + 12L).sum();
            assertThat(bytes).isLessThanOrEqualTo((1 << 20) - 64 * 1024);
        }
    }

    @Test
    void aBatchLargerThanTheTargetGoesAlone() {
        List<BatchRequest> parts = ClientTransport.split(request(3, 3 << 20), 1 << 20, 64 << 20);

        assertThat(parts).hasSize(3).allMatch(r -> r.batches().size() == 1);
    }

    @Test
    void aBatchLargerThanAFrameIsRefusedNamingIt() {
        assertThatThrownBy(() -> ClientTransport.split(request(2, 2 << 20), 1 << 20, 1 << 20))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("partition 0").hasMessageContaining("perPartitionBufferBytes");
    }
}
