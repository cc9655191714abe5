package io.sluice.streamer.internal;

/**
 * Brings the lines a partition buffer's next entry will be copied into into the cache ahead of time,
 * by reading them.
 *
 * <p>Why: with many partitions the adding thread scatters entries over as many open arrays (1,024 buffers of
 * ~60 KiB for a StockOrder load, far beyond the core's cache), so every copy writes lines that are not cached.
 * Stores leave the core in order, one missing line at a time, and the lock taken for the next entry waits for
 * them: about one memory latency per entry, measured at 45% of the load's CPU (docs/benchmarks-results.md,
 * issue 29). Reads of the lines the partition's next entries will write start those misses early, several
 * at once (a chunk's lines: reads, unlike stores, overlap); they complete while the caller builds and encodes
 * its next values, and the lines are still cached when this partition's next entries come. The lock then
 * waits at most once per chunk instead of once per entry (StageCost add, alternated with the code before it:
 * 185-256 vs 238-327 ns/entry).
 *
 * <p>The read is a plain racy read of a byte array the caller no longer holds the lock of: the array may by
 * then belong to a sealed batch or even to another buffer. That is harmless: nothing is written and the
 * value read is thrown away.
 */
final class CacheLines {

    private static final int LINE = 64;
    /** Lines are read a chunk at a time: the reads of one chunk overlap, and the lock waits once per chunk. */
    private static final int CHUNK_SHIFT = 8;
    /**
     * Compared with the sum of the bytes read, which can never equal it: the reads have a use the JIT cannot
     * prove dead. Not final, so the comparison is not folded away.
     */
    private static int never = Integer.MIN_VALUE;

    private CacheLines() {
    }

    /**
     * After an entry was written at {@code [start, end)} of {@code array}: when it crossed into a new chunk of
     * 256 bytes, reads one byte per line of the chunk after it (for the first entry of an array, also the rest
     * of its own chunk), so the lines up to the end of the next chunk are cached when entries are written there.
     * A partition thus keeps at most 512 bytes read ahead (1,024 partitions: 512 KiB, within the core's L2).
     * Never reads past the array's end.
     *
     * @return the number of lines read
     */
    static int readAhead(byte[] array, int start, int end) {
        if (end > array.length - LINE) {
            return 0; // no whole line left after the end (and no int overflow below)
        }
        int chunk = end >>> CHUNK_SHIFT;
        int from;
        if (start == 0) {
            from = end + LINE;
        } else if (chunk != (start >>> CHUNK_SHIFT)) {
            from = (chunk + 1) << CHUNK_SHIFT;
        } else {
            return 0;
        }
        int stop = (int) Math.min(array.length, ((long) chunk + 2) << CHUNK_SHIFT);
        int sum = 0;
        int lines = 0;
        for (int at = from; at < stop; at += LINE) {
            sum += array[at];
            lines++;
        }
        if (sum == never) {
            never = sum + 1;
        }
        return lines;
    }
}
