package io.sluice.samples.load;

import java.util.List;

/**
 * What one {@code sluice-load} run does, validated by {@link LoadGenerator}.
 *
 * @param entries         entries per mode
 * @param threads         producer threads
 * @param modes           modes, in the order they run
 * @param values          value kinds each node mode runs with (the raw baseline writes fields directly)
 * @param valueSize       target encoded size of a value in bytes, or 0 for the natural size
 * @param collisionRatio  share of entries that repeat a key, 0 to 1
 * @param bufferSize      streamer entries per partition buffer, and the putAll batch size
 * @param flushIntervalMs streamer auto-flush interval in milliseconds, 0 = off
 * @param parallelOps     streamer requests in flight per node
 * @param pageSize        node page size in bytes, or {@code null} for the node's default
 * @param partitions      partitions of each cache
 * @param warmupEntries   entries loaded into a throw-away store before each mode is timed, 0 = none
 * @param repeat          timed runs of each mode, each into a fresh store; the table shows the median
 */
public record LoadSettings(long entries, int threads, List<LoadMode> modes, List<ValueKind> values, int valueSize,
                           double collisionRatio, int bufferSize, long flushIntervalMs, int parallelOps,
                           Integer pageSize, int partitions, long warmupEntries, int repeat) {

    public LoadSettings {
        modes = List.copyOf(modes);
        values = List.copyOf(values);
    }

    /** The same settings with other modes. */
    public LoadSettings withModes(List<LoadMode> otherModes) {
        return new LoadSettings(entries, threads, otherModes, values, valueSize, collisionRatio, bufferSize,
                flushIntervalMs, parallelOps, pageSize, partitions, warmupEntries, repeat);
    }

    /** The keys this run writes. */
    public KeyPlan keyPlan() {
        return new KeyPlan(entries, threads, collisionRatio);
    }
}
