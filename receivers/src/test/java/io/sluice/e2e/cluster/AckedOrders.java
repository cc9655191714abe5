package io.sluice.e2e.cluster;

import io.sluice.Cache;
import io.sluice.DataStreamer;
import io.sluice.Sluice;
import io.sluice.StreamerOptions;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;

import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * A client writing StockOrders ({@link OrderLoad#order}) with keys {@code from}, {@code from + 1}, ... through a
 * DataStreamer on a thread of its own, as fast as it goes or at a steady rate, until {@link #stop}; it records
 * which keys the cluster acknowledged (their future completed without error) and how many were acknowledged by
 * each moment (for the rate during a rebalance). {@link #verify} reads each acknowledged key back.
 */
final class AckedOrders {

    private final long from;
    private final int rate;
    /** Bit (key - from): acknowledged. */
    private final AtomicLongArray acked;
    private final AtomicLong issued = new AtomicLong();
    private final AtomicLong acknowledged = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private volatile boolean stopping;
    private volatile Throwable ended;

    private AckedOrders(Sluice client, String cache, long from, int rate, int capacity) {
        this.from = from;
        this.rate = rate;
        this.acked = new AtomicLongArray((capacity + 63) / 64);
        this.thread = new Thread(() -> run(client, cache, capacity), "acked-orders");
        thread.setDaemon(true);
    }

    /**
     * Starts writing keys from {@code from} on, at most {@code capacity} of them.
     *
     * @param rate entries a second, 0 for as fast as the cluster takes them
     */
    static AckedOrders start(Sluice client, String cache, long from, int rate, int capacity) {
        AckedOrders load = new AckedOrders(client, cache, from, rate, capacity);
        load.thread.start();
        return load;
    }

    private void run(Sluice client, String cache, int capacity) {
        BinaryObjectBuilder builder = client.binary().builder("StockOrder");
        try (DataStreamer<Long, BinaryObject> streamer = client.dataStreamer(cache, StreamerOptions.builder()
                .autoFlushInterval(Duration.ofMillis(100)).timeout(Duration.ofSeconds(120)).build())) {
            long due = System.nanoTime();
            for (int i = 0; i < capacity && !stopping; i++) {
                if (rate > 0) {
                    due = Math.max(due + 1_000_000_000L / rate, System.nanoTime() - 100_000_000L);
                    LockSupport.parkNanos(due - System.nanoTime());
                }
                int index = i;
                issued.incrementAndGet();
                streamer.addData(from + i, OrderLoad.order(builder, from + i)).whenComplete((ok, error) -> {
                    if (error == null) {
                        acked.getAndUpdate(index >>> 6, bits -> bits | 1L << (index & 63));
                        acknowledged.incrementAndGet();
                    } else {
                        failed.incrementAndGet();
                        if (failures.size() < 5) {
                            failures.add(error);
                        }
                    }
                });
            }
        } catch (Throwable e) {
            ended = e;
        }
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

    /** Waits at most {@code atMost} until {@code more} entries more than now are acknowledged. */
    void awaitProgress(long more, Duration atMost) {
        long target = acknowledged.get() + more;
        org.awaitility.Awaitility.await().atMost(atMost).pollInterval(Duration.ofMillis(50))
                .until(() -> acknowledged.get() >= target || !thread.isAlive());
        if (acknowledged.get() < target) {
            throw new AssertionError("the load ended: " + ended);
        }
    }

    /** Stops issuing keys, flushes, and waits (at most 3 minutes) for what was issued to be answered. */
    void stop() throws InterruptedException {
        stopping = true;
        thread.join(Duration.ofMinutes(3).toMillis());
        if (thread.isAlive()) {
            throw new AssertionError("the load did not end within 3 minutes of its stop");
        }
    }

    /** How the streamer ended: null if it closed cleanly. */
    Throwable ended() {
        return ended;
    }

    String failures() {
        return failures.toString();
    }

    /**
     * Reads every acknowledged key back (getAll, 1,000 keys a request).
     *
     * @return a description of the keys missing or with another value, or null if there are none
     */
    String verify(Sluice reader, String cache) {
        Cache<Long, BinaryObject> c = reader.<Long, BinaryObject>cache(cache).withKeepBinary();
        long upTo = issued.get();
        long missing = 0;
        long wrong = 0;
        long firstBad = -1;
        Set<Long> keys = new HashSet<>();
        for (long start = 0; start < upTo; start += 1000) {
            keys.clear();
            for (long i = start; i < Math.min(upTo, start + 1000); i++) {
                if ((acked.get((int) (i >>> 6)) & 1L << (i & 63)) != 0) {
                    keys.add(from + i);
                }
            }
            if (keys.isEmpty()) {
                continue;
            }
            Map<Long, BinaryObject> got = c.getAll(keys);
            for (long k : keys) {
                BinaryObject o = got.get(k);
                if (o == null || !OrderLoad.matches(o, k)) {
                    missing += o == null ? 1 : 0;
                    wrong += o == null ? 0 : 1;
                    firstBad = firstBad < 0 ? k : firstBad;
                }
            }
        }
        return missing + wrong == 0 ? null : "of " + acknowledged.get() + " acknowledged keys " + missing
                + " missing, " + wrong + " with another value (first: " + firstBad + ")";
    }

    @Override
    public String toString() {
        return issued.get() + " issued, " + acknowledged.get() + " acknowledged, " + failed.get() + " failed";
    }
}
