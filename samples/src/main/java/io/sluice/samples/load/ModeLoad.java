package io.sluice.samples.load;

import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * One mode's load: made before the clock starts, then {@link #load} runs on every producer thread
 * and {@link #finish} once after them, both inside the measured time.
 */
interface ModeLoad extends AutoCloseable {

    /** Producers publish progress every this many entries, not per entry, to keep the counter cold. */
    int PROGRESS_STEP = 1024;

    /** Writes producer thread {@code thread}'s entries, adding them to {@code progress} as it goes. */
    void load(int thread, LongAdder progress) throws Exception;

    /** Runs after every producer returned, inside the measured time (a streamer flushes here). */
    default void finish() throws Exception {
    }

    /** The padding every value carries ({@code --value-size}), or {@code null}. */
    String pad();

    /** Bytes of keys (8 each) and encoded values written, once the load finished. */
    long encodedBytes();

    /** Entries the store holds. */
    long storedSize();

    /**
     * Reads a stored order back.
     *
     * @return reads the order's fields by name, or {@code null} if the key is absent
     */
    Function<String, Object> read(long key);

    /** Releases what the load holds (its node, its arena). */
    @Override
    default void close() {
    }
}
