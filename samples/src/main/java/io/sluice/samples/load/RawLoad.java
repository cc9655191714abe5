package io.sluice.samples.load;

import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * The raw baseline: each producer thread serializes its orders into its own off-heap
 * {@link RawOrderArena} and indexes the offsets in its own {@link LongOffsetIndex}. Threads own
 * disjoint keys ({@link KeyPlan}), so the shards need no locking. A repeated key is overwritten in
 * place, as a put would.
 */
final class RawLoad implements ModeLoad {

    private final KeyPlan plan;
    private final String pad;
    private final RawOrderArena[] arenas;
    private final LongOffsetIndex[] indexes;

    /** Allocates every shard, sized for the thread's distinct keys (outside the measured time). */
    RawLoad(KeyPlan plan, String pad) {
        this.plan = plan;
        this.pad = pad;
        this.arenas = new RawOrderArena[plan.threads()];
        this.indexes = new LongOffsetIndex[plan.threads()];
        long largestRecord = RawOrderArena.recordSize(99, pad);
        for (int t = 0; t < plan.threads(); t++) {
            arenas[t] = new RawOrderArena(Math.max(1, plan.distinct(t) * largestRecord));
            indexes[t] = new LongOffsetIndex(plan.distinct(t));
        }
    }

    /** The padding a record needs to take {@code targetSize} bytes, or {@code null} for none. */
    static String padFor(int targetSize) {
        return ValuePadding.padFor(targetSize, "raw record", padLength -> RawOrderArena.recordSize(0,
                padLength < 0 ? null : ValuePadding.padding(padLength)));
    }

    @Override
    public String pad() {
        return pad;
    }

    @Override
    public void load(int thread, LongAdder progress) {
        RawOrderArena arena = arenas[thread];
        LongOffsetIndex index = indexes[thread];
        long n = plan.entries(thread);
        for (long j = 0; j < n; j++) {
            long key = plan.key(thread, j);
            int at = index.get(key);
            if (at == LongOffsetIndex.ABSENT) {
                index.put(key, arena.append(key, pad));
            } else {
                arena.overwrite(at, key, pad);
            }
            if ((j + 1) % PROGRESS_STEP == 0) {
                progress.add(PROGRESS_STEP);
            }
        }
        progress.add(n % PROGRESS_STEP);
    }

    @Override
    public long encodedBytes() {
        long bytes = 0;
        for (int t = 0; t < plan.threads(); t++) {
            // Repeated keys were written again in place: count them as written.
            long records = plan.entries(t);
            long perRecord = plan.distinct(t) == 0 ? 0 : arenas[t].used() / plan.distinct(t);
            bytes += records * (Long.BYTES + perRecord);
        }
        return bytes;
    }

    @Override
    public long storedSize() {
        long size = 0;
        for (LongOffsetIndex index : indexes) {
            size += index.size();
        }
        return size;
    }

    @Override
    public Function<String, Object> read(long key) {
        int thread = (int) (key % plan.threads());
        int at = indexes[thread].get(key);
        return at == LongOffsetIndex.ABSENT ? null : arenas[thread].read(at)::get;
    }
}
