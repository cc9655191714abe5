package io.sluice.e2e.cluster;

import io.sluice.Cache;
import io.sluice.DataStreamer;
import io.sluice.Sluice;
import io.sluice.StreamerOptions;
import io.sluice.affinity.internal.Partitioner;
import io.sluice.binary.internal.BinaryContext;
import io.sluice.binary.internal.GrowableBuffer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A write load for the failover tests: unique Long keys, each with a String value made from the key, written by a
 * client's DataStreamer and, one in ten, by {@code putAsync}, paced at a steady rate (no catching up after the
 * client was held up), on a thread of its own; it
 * records which keys the cluster ACKNOWLEDGED (their future completed without error) and when. {@link #verify}
 * reads every acknowledged key back.
 */
final class AckedWrites {

    /** The outcome of a {@link #verify}: the acknowledged keys missing, or present with another value. */
    record Check(long checked, List<Long> missing, List<Long> wrong) {
        boolean clean() {
            return missing.isEmpty() && wrong.isEmpty();
        }

        @Override
        public String toString() {
            return "of " + checked + " acknowledged keys " + missing.size() + " missing " + head(missing) + ", "
                    + wrong.size() + " with another value " + head(wrong);
        }

        private static String head(List<Long> keys) {
            return keys.size() <= 10 ? keys.toString() : keys.subList(0, 10) + "...";
        }
    }

    private static final int PUT_EVERY = 10;
    private static final int PUTS_IN_FLIGHT = 16;

    private final String cache;
    private final int rate;
    /** Per key, 1 + the millisecond (since the start) its acknowledgement arrived; 0: not acknowledged. */
    private final AtomicIntegerArray ackedAt;
    private final AtomicLong issued = new AtomicLong();
    private final AtomicLong acknowledged = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    private final long start = System.nanoTime();
    private final Thread thread;
    private volatile boolean stopping;
    private volatile Throwable ended;

    private AckedWrites(Sluice client, String cache, int rate, int capacity) {
        this.cache = cache;
        this.rate = rate;
        this.ackedAt = new AtomicIntegerArray(capacity);
        this.thread = new Thread(() -> run(client), "acked-writes");
        thread.setDaemon(true);
    }

    /**
     * Starts writing keys 0, 1, 2, ... into the cache at {@code rate} entries a second, until {@link #stop} or
     * {@code capacity} keys.
     */
    static AckedWrites start(Sluice client, String cache, int rate, int capacity) {
        AckedWrites writes = new AckedWrites(client, cache, rate, capacity);
        writes.thread.start();
        return writes;
    }

    /** The value every key is written with. */
    static String value(long key) {
        return "v" + key + ":" + Long.toHexString(key * 0x9E3779B97F4A7C15L);
    }

    /** The key's partition among {@code partitions}, as client and node compute it. */
    static int partition(long key, int partitions) {
        GrowableBuffer out = new GrowableBuffer(16);
        new BinaryContext().encode(key, out);
        return Partitioner.partition(out.array(), 0, out.position(), partitions);
    }

    private void run(Sluice client) {
        Cache<Long, String> puts = client.cache(cache);
        Semaphore inFlight = new Semaphore(PUTS_IN_FLIGHT);
        try (DataStreamer<Long, String> streamer = client.dataStreamer(cache, StreamerOptions.builder()
                .autoFlushInterval(Duration.ofMillis(100)).timeout(Duration.ofSeconds(120)).build())) {
            long due = System.nanoTime();
            for (int k = 0; k < ackedAt.length() && !stopping; k++) {
                // The steady rate, without a burst after the client was held up (no partition owner for a while).
                due = Math.max(due + 1_000_000_000L / rate, System.nanoTime() - 100_000_000L);
                LockSupport.parkNanos(due - System.nanoTime());
                int key = k;
                issued.incrementAndGet();
                if (k % PUT_EVERY == PUT_EVERY - 1) {
                    inFlight.acquire();
                    puts.putAsync((long) key, value(key)).whenComplete((ok, error) -> {
                        inFlight.release();
                        acknowledge(key, error);
                    });
                } else {
                    streamer.addData((long) key, value(key)).whenComplete((ok, error) -> acknowledge(key, error));
                }
            }
            inFlight.acquire(PUTS_IN_FLIGHT);
        } catch (Throwable e) {
            ended = e;
        }
    }

    private void acknowledge(int key, Throwable error) {
        if (error == null) {
            ackedAt.set(key, 1 + nowMillis());
            acknowledged.incrementAndGet();
        } else {
            failed.incrementAndGet();
            if (failures.size() < 5) {
                failures.add(error);
            }
        }
    }

    /** Milliseconds since the load started. */
    int nowMillis() {
        return (int) TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    long issued() {
        return issued.get();
    }

    long acknowledged() {
        return acknowledged.get();
    }

    long failed() {
        return failed.get();
    }

    List<Throwable> failures() {
        return List.copyOf(failures);
    }

    /** When the key's acknowledgement arrived (ms since the start), or -1 if it was not acknowledged. */
    int acknowledgedAt(long key) {
        return ackedAt.get((int) key) - 1;
    }

    /** Waits at most {@code atMost} until {@code more} entries more than now are acknowledged. */
    void awaitProgress(long more, Duration atMost) {
        long target = acknowledged.get() + more;
        org.awaitility.Awaitility.await().atMost(atMost).pollInterval(Duration.ofMillis(50))
                .until(() -> acknowledged.get() >= target || !thread.isAlive());
        if (acknowledged.get() < target) {
            throw new AssertionError("the load ended: " + ended);
        }
    }

    /**
     * Reads every key acknowledged so far through {@code reader} (getAll, 1,000 keys a request) and compares
     * it with its value; keys in {@code excused} are not checked.
     */
    Check verify(Sluice reader, Set<Long> excused) {
        Cache<Long, String> c = reader.cache(cache);
        long upTo = issued.get();
        long checked = 0;
        List<Long> missing = new ArrayList<>();
        List<Long> wrong = new ArrayList<>();
        Set<Long> keys = new HashSet<>();
        for (long from = 0; from < upTo; from += 1000) {
            keys.clear();
            for (long k = from; k < Math.min(upTo, from + 1000); k++) {
                if (ackedAt.get((int) k) != 0 && !excused.contains(k)) {
                    keys.add(k);
                }
            }
            if (keys.isEmpty()) {
                continue;
            }
            checked += keys.size();
            Map<Long, String> got = c.getAll(keys);
            for (long k : keys) {
                String v = got.get(k);
                if (v == null) {
                    missing.add(k);
                } else if (!v.equals(value(k))) {
                    wrong.add(k);
                }
            }
        }
        missing.sort(null);
        wrong.sort(null);
        return new Check(checked, missing, wrong);
    }

    /** Stops issuing keys, flushes, and waits (at most 3 minutes) for what was issued to be answered. */
    void stop() throws InterruptedException {
        stopping = true;
        thread.join(Duration.ofMinutes(3).toMillis());
        if (thread.isAlive()) {
            throw new AssertionError("the load did not end within 3 minutes of its stop");
        }
    }

    /** How the load's streamer ended: null if it closed cleanly (every batch answered without error). */
    Throwable ended() {
        return ended;
    }

    @Override
    public String toString() {
        return issued.get() + " issued, " + acknowledged.get() + " acknowledged, " + failed.get() + " failed";
    }
}
