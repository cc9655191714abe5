package io.sluice.streamer;

import io.sluice.StreamerOptions;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.protocol.internal.BatchOutcome;
import io.sluice.protocol.internal.BatchRequest;
import io.sluice.protocol.internal.EntryBatch;
import io.sluice.protocol.internal.StreamerTransport;
import io.sluice.streamer.internal.Streamer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code addFromBuilder}: the entry is byte for byte the one {@code addData(key, builder.build())} adds, the builder
 * is left empty and reusable, and bad input is refused as the javadoc says, with nothing added.
 */
@Timeout(60)
class StreamerAddFromBuilderTest {

    private static final StreamerOptions OPTIONS = StreamerOptions.builder().autoFlushInterval(Duration.ZERO).build();

    @Test
    void theEntryIsByteForByteTheOneAddDataOfTheBuiltObjectAdds() {
        BinaryContext binary = new BinaryContext();
        Recording built = new Recording(64);
        Recording direct = new Recording(64);
        BinaryObjectBuilder builder = binary.builder("Order");
        int n = 20_000;
        try (Streamer<Object, Object> viaBuild = new Streamer<>("c", OPTIONS, built, binary, () -> { });
             Streamer<Object, Object> viaBuilder = new Streamer<>("c", OPTIONS, direct, binary, () -> { })) {
            for (long k = 0; k < n; k++) {
                // One builder for both: each add leaves it empty for the next object.
                viaBuild.addData(k, fill(builder, k).build());
                CompletableFuture<Void> joined = viaBuilder.addFromBuilder(k, fill(builder, k));
                assertThat(joined).isNotNull();
            }
            viaBuild.flush();
            viaBuilder.flush();
            assertThat(viaBuilder.metrics().applied()).isEqualTo(n);
        }
        assertThat(direct.entries).hasSize(n);
        assertThat(direct.entries.keySet()).containsExactlyElementsOf(built.entries.keySet());
        for (Map.Entry<ByteBuffer, byte[]> e : built.entries.entrySet()) {
            assertThat(direct.entries.get(e.getKey())).as("entry of key bytes %s", e.getKey()).isEqualTo(e.getValue());
        }
        assertThat(direct.partitionOf).isEqualTo(built.partitionOf);
    }

    /** The key's fields: text of every length up to 300 and one of 70,000 (offsets of 1, 2 and 4 bytes), other layouts. */
    private static BinaryObjectBuilder fill(BinaryObjectBuilder b, long k) {
        int shape = (int) (k % 5);
        if (shape == 3) { // another order, and a null with an explicit type: the builder's general path
            return b.setField("note", "é-" + k).setField("id", k).setField("missing", null, String.class);
        }
        b.setField("id", k).setDouble("price", k / 3.0);
        if (shape == 4) {
            b.setField("note", "x".repeat((int) (k % 300))).removeField("price");
        } else {
            b.setField("note", k == 7 ? "y".repeat(70_000) : "n" + k);
        }
        return b;
    }

    @Test
    void theBuilderIsEmptyAfterTheCallAndBuildsTheNextObjectAlone() {
        BinaryContext binary = new BinaryContext();
        Recording transport = new Recording(4);
        BinaryObjectBuilder builder = binary.builder("Order");
        try (Streamer<Object, Object> s = new Streamer<>("c", OPTIONS, transport, binary, () -> { })) {
            s.addFromBuilder(1L, builder.setField("id", 1L).setField("note", "a"));

            BinaryObject next = builder.setField("other", 2).build();

            assertThat(next.hasField("id")).isFalse();
            assertThat(next.hasField("note")).isFalse();
            assertThat((Integer) next.field("other")).isEqualTo(2);
        }
    }

    @Test
    void aNullKeyIsRefusedAndTheBuilderEmptiedAsAddDataOfTheBuiltObjectWould() {
        BinaryContext binary = new BinaryContext();
        BinaryObjectBuilder builder = binary.builder("Order");
        try (Streamer<Object, Object> s = new Streamer<>("c", OPTIONS, new Recording(4), binary, () -> { })) {
            assertThatThrownBy(() -> s.addFromBuilder(null, builder.setField("id", 1L)))
                    .isInstanceOf(NullPointerException.class).hasMessage("key");
            assertThatThrownBy(() -> s.addFromBuilder(1L, null))
                    .isInstanceOf(NullPointerException.class).hasMessage("value");

            assertThat(builder.setField("other", 2).build().hasField("id")).isFalse();
            s.flush();
            assertThat(s.metrics().added()).isZero();
        }
    }

    @Test
    void aBuilderOfAnotherBinaryContextIsRefusedAndLeftAsItWas() {
        BinaryContext binary = new BinaryContext();
        BinaryObjectBuilder foreign = new BinaryContext().builder("Order");
        BinaryObjectBuilder notSluices = (BinaryObjectBuilder) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[]{BinaryObjectBuilder.class}, (proxy, method, args) -> {
                    throw new AssertionError("a refused builder is not touched: " + method.getName());
                });
        try (Streamer<Object, Object> s = new Streamer<>("c", OPTIONS, new Recording(4), binary, () -> { })) {
            assertThatThrownBy(() -> s.addFromBuilder(1L, foreign.setField("id", 1L)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("binary()")
                    .hasMessageContaining("'c'");
            assertThatThrownBy(() -> s.addFromBuilder(1L, notSluices))
                    .isInstanceOf(IllegalArgumentException.class);

            assertThat((Long) foreign.build().field("id")).isEqualTo(1L);
            s.flush();
            assertThat(s.metrics().added()).isZero();
        }
    }

    @Test
    void anOversizedValueIsRefusedNamingTheLimitAndTheNextEntryIsAdded() {
        BinaryContext binary = new BinaryContext();
        Recording transport = new Recording(4);
        BinaryObjectBuilder builder = binary.builder("Order");
        StreamerOptions small = StreamerOptions.builder().autoFlushInterval(Duration.ZERO).maxEntrySize(1_000).build();
        try (Streamer<Object, Object> s = new Streamer<>("c", small, transport, binary, () -> { })) {
            assertThatThrownBy(() -> s.addFromBuilder(1L, builder.setField("note", "z".repeat(2_000))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxEntrySize")
                    .hasMessageContaining("key 1");
            s.addFromBuilder(2L, builder.setField("id", 2L));
            s.flush();
            assertThat(s.metrics().added()).isEqualTo(1);
        }
        assertThat(transport.entries).hasSize(1);
        byte[] only = transport.entries.values().iterator().next();
        BinaryObject value = (BinaryObject) binary.decode(only, 0, only.length, true);
        assertThat(value.hasField("note")).isFalse();
        assertThat((Long) value.field("id")).isEqualTo(2L);
    }

    @Test
    void aClosedStreamerRefusesTheEntryAndEmptiesTheBuilder() {
        BinaryContext binary = new BinaryContext();
        BinaryObjectBuilder builder = binary.builder("Order");
        Streamer<Object, Object> s = new Streamer<>("c", OPTIONS, new Recording(4), binary, () -> { });
        s.close();

        assertThatThrownBy(() -> s.addFromBuilder(1L, builder.setField("id", 1L)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
        assertThat(builder.setField("other", 2).build().hasField("id")).isFalse();
    }

    /**
     * A transport of one node that answers every batch at once and keeps a copy of each entry's value bytes by its
     * key bytes, in the order added, and the partition each key was sent in.
     */
    static final class Recording implements StreamerTransport {
        private final int partitions;
        final Map<ByteBuffer, byte[]> entries = new LinkedHashMap<>();
        final Map<ByteBuffer, Integer> partitionOf = new LinkedHashMap<>();

        Recording(int partitions) {
            this.partitions = partitions;
        }

        @Override
        public int partitions(String cacheName) {
            return partitions;
        }

        @Override
        public List<String> nodeIds() {
            return List.of("n1");
        }

        @Override
        public synchronized CompletableFuture<List<BatchOutcome>> send(String nodeId, BatchRequest request) {
            BatchOutcome[] outcomes = new BatchOutcome[request.batches().size()];
            for (int b = 0; b < outcomes.length; b++) {
                BatchRequest.PartitionBatch batch = request.batches().get(b);
                EntryBatch e = batch.entries();
                for (int i = 0; i < e.size(); i++) {
                    ByteBuffer key = ByteBuffer.wrap(Arrays.copyOfRange(e.data(), e.keyOffset(i),
                            e.keyOffset(i) + e.keyLength(i)));
                    entries.put(key, Arrays.copyOfRange(e.data(), e.valueOffset(i),
                            e.valueOffset(i) + e.valueLength(i)));
                    partitionOf.put(key, batch.partition());
                }
                outcomes[b] = BatchOutcome.success(e.size());
            }
            return CompletableFuture.completedFuture(Arrays.asList(outcomes));
        }
    }
}
