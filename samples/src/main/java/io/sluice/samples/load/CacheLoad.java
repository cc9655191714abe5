package io.sluice.samples.load;

import io.sluice.Cache;
import io.sluice.Sluice;
import io.sluice.binary.Binary;
import io.sluice.binary.BinaryObject;
import io.sluice.samples.StockOrder;

import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * A load into a cache of a node: every producer thread makes its values ({@link ValueSource}) and
 * hands them to its {@link EntrySink}; the subclass decides what the sink does (put, putAll,
 * streamer). Owns the node and closes it.
 */
abstract class CacheLoad implements ModeLoad {

    /** Values whose encoded size is measured to turn entries into bytes. */
    private static final int SIZE_SAMPLE = 256;

    protected final Sluice sluice;
    protected final Cache<Long, Object> cache;
    protected final KeyPlan plan;
    private final ValueKind kind;
    private final String pad;

    CacheLoad(Sluice sluice, Cache<Long, Object> cache, KeyPlan plan, ValueKind kind, String pad) {
        this.sluice = sluice;
        this.cache = cache;
        this.plan = plan;
        this.kind = kind;
        this.pad = pad;
    }

    /** The padding a value of this kind needs to encode to {@code targetSize} bytes, or {@code null}. */
    static String padFor(Binary binary, ValueKind kind, int targetSize) {
        return ValuePadding.padFor(targetSize, kind.cliName() + " StockOrder",
                padLength -> encodedValueSize(binary, kind, 0, padLength < 0 ? null : ValuePadding.padding(padLength)));
    }

    /** The stored size of the key's value of this kind. */
    static int encodedValueSize(Binary binary, ValueKind kind, long key, String pad) {
        BinaryObject value = switch (kind) {
            case POJO -> binary.toBinary(pad == null ? StockOrder.forKey(key) : PaddedStockOrder.forKey(key, pad));
            case BINARY -> StockOrderFields.build(binary.builder(StockOrderFields.TYPE_NAME), key, pad);
        };
        return value.toBytes().length;
    }

    /** What a producer thread hands its entries to. */
    interface EntrySink {
        void write(long key, Object value) throws Exception;

        /** Writes the key's entry with its value from the source; by default the value made as an object. */
        default void write(long key, ValueSource values) throws Exception {
            write(key, values.value(key));
        }

        /** After the thread's last entry. */
        default void end() throws Exception {
        }
    }

    /** The sink of one producer thread. */
    abstract EntrySink sinkFor(int thread);

    @Override
    public final void load(int thread, LongAdder progress) throws Exception {
        ValueSource values = ValueSource.of(kind, sluice.binary(), pad);
        EntrySink sink = sinkFor(thread);
        long n = plan.entries(thread);
        for (long j = 0; j < n; j++) {
            long key = plan.key(thread, j);
            sink.write(key, values);
            if ((j + 1) % PROGRESS_STEP == 0) {
                progress.add(PROGRESS_STEP);
            }
        }
        sink.end();
        progress.add(n % PROGRESS_STEP);
    }

    @Override
    public String pad() {
        return pad;
    }

    @Override
    public long encodedBytes() {
        if (plan.distinct() == 0) {
            return 0;
        }
        long sampleBytes = 0;
        int sampled = 0;
        for (int t = 0; t < plan.threads(); t++) {
            for (long i = 0; i < plan.distinct(t) && i < SIZE_SAMPLE / plan.threads() + 1; i++) {
                sampleBytes += Long.BYTES + encodedValueSize(sluice.binary(), kind, plan.distinctKey(t, i), pad);
                sampled++;
            }
        }
        return Math.round((double) sampleBytes / sampled * plan.entries());
    }

    @Override
    public long storedSize() {
        return cache.size();
    }

    @Override
    public Function<String, Object> read(long key) {
        Cache<Long, BinaryObject> binaryView = cache.withKeepBinary();
        BinaryObject stored = binaryView.get(key);
        return stored == null ? null : stored::field;
    }

    /** Test hook: the cache loaded into. */
    Cache<Long, Object> cache() {
        return cache;
    }

    /**
     * Destroys the load's cache, then closes the node (or the client). A remote node outlives the load:
     * without this it kept every earlier load's cache, so each later mode (streamer-batched runs after
     * streamer-isolated) wrote into page memory the node had to grow and map inside the timed load,
     * while each embedded mode starts on a fresh node whose initial region is mapped before timing.
     */
    @Override
    public void close() {
        try {
            sluice.destroyCache(cache.name());
        } catch (RuntimeException e) {
            // the node is gone or refused: closing is all that is left to do
        } finally {
            sluice.close();
        }
    }
}
