package io.sluice.client.internal;

import java.util.ArrayDeque;
import java.util.function.IntFunction;

/**
 * The partition scans of one scan of a {@link RemoteCache}: each asks for its first page
 * ({@link PartitionScan#start()}) {@link #PARTITIONS} partitions before the stream reaches it, so that a cache of
 * many small partitions is not read one round trip per partition. The stream asks for the partitions in order; one
 * asked for out of order (a parallel stream) gets a scan of its own, without read-ahead. Holds at most
 * {@link #PARTITIONS} scans started ahead, a page each.
 *
 * @param <K> key type
 * @param <V> value type
 */
final class ScanAhead<K, V> {

    /** Partitions whose first page is asked for before the stream reaches them. */
    static final int PARTITIONS = 4;

    private final int partitions;
    private final IntFunction<PartitionScan<K, V>> scans;
    private final ArrayDeque<PartitionScan<K, V>> started = new ArrayDeque<>();
    /** The partition the stream is expected to ask for next. */
    private int expected;

    /** @param scans makes partition p's scan */
    ScanAhead(int partitions, IntFunction<PartitionScan<K, V>> scans) {
        this.partitions = partitions;
        this.scans = scans;
    }

    /** Partition {@code partition}'s scan, its first page already asked for if the stream came in order. */
    synchronized PartitionScan<K, V> scan(int partition) {
        if (partition != expected) {
            return scans.apply(partition);
        }
        PartitionScan<K, V> scan = started.isEmpty() ? scans.apply(partition) : started.poll();
        expected++;
        for (int p = expected + started.size(); p < Math.min(partitions, expected + PARTITIONS); p++) {
            PartitionScan<K, V> next = scans.apply(p);
            next.start();
            started.add(next);
        }
        return scan;
    }
}
