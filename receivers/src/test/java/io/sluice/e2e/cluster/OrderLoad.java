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
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A load of StockOrders (binary objects of type {@code StockOrder}: id, symbol, price, qty, all derived from the
 * Long key) streamed by one client on a thread of its own, counting what the cluster acknowledged; and the check
 * that a range of keys reads back, each with its value.
 */
final class OrderLoad {

    static final String CACHE = "orders";

    /** The CI size of a test's load; {@code -Dsluice.cluster.it.entries=2000000} for the size. */
    static long entries() {
        return Long.getLong("sluice.cluster.it.entries", 200_000);
    }

    private final Thread thread;
    private final AtomicLong acknowledged = new AtomicLong();
    private final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
    private volatile Throwable ended;

    private OrderLoad(Sluice client, long from, long to, String name, Duration spread) {
        thread = new Thread(() -> run(client, from, to, spread.toNanos()), name);
        thread.setDaemon(true);
    }

    /** Starts streaming the keys [from, to) into {@link #CACHE}; the streamer waits up to 90 s for a partition. */
    static OrderLoad start(Sluice client, long from, long to, String name) {
        return start(client, from, to, name, Duration.ZERO);
    }

    /**
     * A load paced to last at least {@code spread} (a node can then come or go while it runs, whatever the
     * machine's speed).
     */
    static OrderLoad start(Sluice client, long from, long to, String name, Duration spread) {
        OrderLoad load = new OrderLoad(client, from, to, name, spread);
        load.thread.start();
        return load;
    }

    private void run(Sluice client, long from, long to, long spreadNanos) {
        long start = System.nanoTime();
        BinaryObjectBuilder builder = client.binary().builder("StockOrder");
        try (DataStreamer<Long, BinaryObject> streamer = client.dataStreamer(CACHE, StreamerOptions.builder()
                .timeout(Duration.ofSeconds(90)).build())) {
            for (long k = from; k < to; k++) {
                if (spreadNanos > 0 && (k - from) % 1000 == 0) {
                    long due = start + (long) ((double) spreadNanos * (k - from) / (to - from));
                    LockSupport.parkNanos(due - System.nanoTime());
                }
                streamer.addData(k, order(builder, k)).whenComplete((ok, error) -> {
                    if (error == null) {
                        acknowledged.incrementAndGet();
                    } else if (failures.size() < 10) {
                        failures.add(error);
                    }
                });
            }
        } catch (Throwable e) {
            ended = e;
        }
    }

    /** Entries acknowledged so far. */
    long acknowledged() {
        return acknowledged.get();
    }

    /**
     * Waits for the load's end and asserts it completed: the streamer closed without error and every entry it
     * was given was acknowledged.
     */
    void assertCompleted(long expected, Duration atMost) throws InterruptedException {
        thread.join(atMost.toMillis());
        assertThat(thread.isAlive()).as("%s still streaming after %s", thread.getName(), atMost).isFalse();
        assertThat(ended).as("%s ended with", thread.getName()).isNull();
        assertThat(failures).as("%s: entries that failed", thread.getName()).isEmpty();
        assertThat(acknowledged.get()).as("%s: acknowledged entries", thread.getName()).isEqualTo(expected);
    }

    static BinaryObject order(BinaryObjectBuilder builder, long id) {
        return builder.setField("id", id).setField("symbol", "S" + (id % 500)).setField("price", (id % 10_000) / 100.0)
                .setField("qty", (int) (id % 1000)).build();
    }

    /** Asserts that every key in [from, to) reads back through this client with the StockOrder made from it. */
    static void assertReadable(Sluice client, long from, long to) {
        Cache<Long, BinaryObject> cache = client.<Long, BinaryObject>cache(CACHE).withKeepBinary();
        long missing = 0;
        long wrong = 0;
        long firstBad = -1;
        Set<Long> keys = new HashSet<>();
        for (long start = from; start < to; start += 1000) {
            keys.clear();
            for (long k = start; k < Math.min(to, start + 1000); k++) {
                keys.add(k);
            }
            Map<Long, BinaryObject> got = cache.getAll(keys);
            for (long k : keys) {
                BinaryObject o = got.get(k);
                if (o == null) {
                    missing++;
                } else if (!matches(o, k)) {
                    wrong++;
                } else {
                    continue;
                }
                if (firstBad < 0) {
                    firstBad = k;
                }
            }
        }
        assertThat(missing + wrong).as("of keys [%d, %d): %d missing, %d with another value (first: %d)",
                from, to, missing, wrong, firstBad).isZero();
    }

    /** Asserts that a scan through this client meets n entries, each key once. */
    static void assertScanMeetsEachOnce(Sluice client, long n) {
        Set<Long> keys = new HashSet<>();
        long[] met = {0};
        client.<Long, BinaryObject>cache(CACHE).withKeepBinary().scan().forEach(e -> {
            met[0]++;
            keys.add(e.getKey());
        });
        assertThat(met[0]).as("entries a scan meets (%d distinct keys)", keys.size()).isEqualTo(n);
        assertThat(keys).as("distinct keys a scan meets").hasSize((int) n);
    }

    static boolean matches(BinaryObject o, long id) {
        return o.<Long>field("id") == id && ("S" + (id % 500)).equals(o.field("symbol"))
                && o.<Double>field("price") == (id % 10_000) / 100.0 && o.<Integer>field("qty") == (int) (id % 1000);
    }

    /** Waits at most the time given for at least n acknowledged entries (or the load's end). */
    void awaitAcknowledged(long n, Duration atMost) {
        org.awaitility.Awaitility.await().atMost(atMost.toMillis(), TimeUnit.MILLISECONDS)
                .until(() -> acknowledged.get() >= n || !thread.isAlive());
    }
}
