package io.sluice.protocol.internal;

import io.sluice.affinity.internal.Partitioner;
import io.sluice.binary.internal.GrowableBuffer;
import io.sluice.binary.internal.ValueCodec;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A cache operation's entries grouped into one {@link EntryBatch} per partition, encoded once on the
 * caller's thread: what {@code putAll}, {@code removeAll} and their async forms hand to the store's
 * batch path (in-JVM) or send as one STREAM request to the batched receiver (remote). Partitions
 * appear in the order their first entry came.
 */
public final class PartitionBatches {

    private final List<Integer> partitions;
    private final List<EntryBatch> batches;

    private PartitionBatches(List<Integer> partitions, List<EntryBatch> batches) {
        this.partitions = partitions;
        this.batches = batches;
    }

    /** Puts of every entry. @throws NullPointerException if a key or value is null */
    public static PartitionBatches ofPuts(Map<?, ?> entries, ValueCodec codec, int partitionCount) {
        Grouping grouping = new Grouping(codec, partitionCount);
        for (Map.Entry<?, ?> e : entries.entrySet()) {
            grouping.add(Objects.requireNonNull(e.getKey(), "key"), Objects.requireNonNull(e.getValue(),
                    () -> "value of key " + e.getKey()), false);
        }
        return grouping.done();
    }

    /** Removals of every key. @throws NullPointerException if a key is null */
    public static PartitionBatches ofRemovals(Collection<?> keys, ValueCodec codec, int partitionCount) {
        Grouping grouping = new Grouping(codec, partitionCount);
        for (Object key : keys) {
            grouping.add(Objects.requireNonNull(key, "key"), null, true);
        }
        return grouping.done();
    }

    public int size() {
        return batches.size();
    }

    public int partition(int i) {
        return partitions.get(i);
    }

    public EntryBatch batch(int i) {
        return batches.get(i);
    }

    /** Encodes entries into their partition's buffer. */
    private static final class Grouping {
        private final ValueCodec codec;
        private final int partitionCount;
        private final GrowableBuffer key = new GrowableBuffer(64);
        private final Map<Integer, GrowableBuffer> buffers = new HashMap<>();
        private final Map<Integer, int[]> counts = new HashMap<>();
        private final List<Integer> order = new ArrayList<>();

        Grouping(ValueCodec codec, int partitionCount) {
            this.codec = codec;
            this.partitionCount = partitionCount;
        }

        void add(Object k, Object value, boolean removal) {
            key.reset();
            codec.encode(k, key);
            int partition = Partitioner.partition(key.array(), 0, key.position(), partitionCount);
            GrowableBuffer out = buffers.get(partition);
            if (out == null) {
                out = new GrowableBuffer(256);
                buffers.put(partition, out);
                counts.put(partition, new int[1]);
                order.add(partition);
            }
            int header = out.position();
            EntryBatch.appendHeader(out, key.position(), EntryBatch.REMOVAL);
            out.putBytes(key.array(), 0, key.position());
            if (!removal) {
                int valueStart = out.position();
                codec.encode(value, out);
                out.putIntAt(header + 4, out.position() - valueStart);
            }
            counts.get(partition)[0]++;
        }

        PartitionBatches done() {
            List<EntryBatch> batches = new ArrayList<>(order.size());
            for (Integer p : order) {
                GrowableBuffer out = buffers.get(p);
                batches.add(new EntryBatch(out.array(), out.position(), counts.get(p)[0]));
            }
            return new PartitionBatches(List.copyOf(order), batches);
        }
    }
}
