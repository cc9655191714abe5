package io.sluice.streamer.internal;

/**
 * Brings the lines a partition buffer's next entry will be copied into into the cache ahead of time,
 * by reading them.
 *
 * <p>Why: with many partitions the adding thread scatters entries over as many open arrays (1,024 buffers of
 * ~60 KiB for a StockOrder load, far beyond the core's cache), so every copy writes lines that are not cached.
 * Stores leave the core in order, one missing line at a time, and the lock taken for the next entry waits for
 * them: about one memory latency per entry, measured at 45% of the load's CPU (docs/benchmarks-results.md,
 * issue 29). A read of the line the next entry of the same partition will write starts that miss now; it
 * completes while the caller builds and encodes its next values, and the line is still cached when this
 * partition's next entry comes (with 1,024 partitions, the lines read ahead total ~128 KiB).
 *
 * <p>The read is a plain racy read of a byte array the caller no longer holds the lock of: the array may by
 * then belong to a sealed batch or even to another buffer. That is harmless: nothing is written and the
 * value read is thrown away.
 */
final class CacheLines {

    private static final int LINE = 64;
    /** Lines read ahead at most per entry: large entries are sequential writes the hardware prefetches. */
    private static final int MAX_LINES = 4;
    /**
     * Compared with the sum of the bytes read, which can never equal it: the reads have a use the JIT cannot
     * prove dead. Not final, so the comparison is not folded away.
     */
    private static int never = Integer.MIN_VALUE;

    private CacheLines() {
    }

    /**
     * Reads one byte per cache line of {@code array} after the line holding {@code end}, for {@code span} bytes
     * (at most {@value #MAX_LINES} lines, never past the array's end).
     *
     * @param end  where the next entry will be written
     * @param span how many bytes it will likely take (the size of the entry just written)
     * @return the number of lines read
     */
    static int readAhead(byte[] array, int end, int span) {
        int stop = Math.min(array.length, end + Math.min(span, MAX_LINES * LINE) + LINE);
        int sum = 0;
        int lines = 0;
        for (int at = end + LINE; at < stop; at += LINE) {
            sum += array[at];
            lines++;
        }
        if (sum == never) {
            never = sum + 1;
        }
        return lines;
    }
}
