package io.sluice.e2e;

import io.sluice.Cache;
import io.sluice.DataStreamer;
import io.sluice.IndexQuery;
import io.sluice.Sluice;
import io.sluice.StreamerOptions;
import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import io.sluice.server.internal.NodeProcess;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Kill -9 during an indexed load under FSYNC (issue 31): a node process whose cache has an index on {@code secCode}
 * and a composite one on {@code account, price} is loaded by a streamer (new keys) and by putAlls that overwrite earlier
 * keys with other field values (moving their index entries), and killed at a random moment, again. After each
 * restart every acknowledged entry is found through each index with its value, and each index finds exactly the
 * entries the cache holds (nothing else, none twice, in index order); the node checked its store (trees, rows and
 * indexes as itree's check covers them) after recovery.
 *
 * <p>CI runs {@value #CI_KILLS} kills; {@code -Dsluice.indexCrash.kills=N} runs more, {@code
 * -Dsluice.indexCrash.seed=S} replays the kill times:
 * <pre>
 * ./mvnw -B -o verify -pl receivers -am -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dit.test=IndexCrashIT -Dfailsafe.failIfNoSpecifiedTests=false -Dsluice.indexCrash.kills=20
 * </pre>
 */
class IndexCrashIT {

    /** The StockOrder shape (the client marshals it; the node keeps it as a binary object). */
    public record Order(String secCode, String account, double price, long qty) {
    }

    static final int CI_KILLS = 2;
    private static final int KILLS = Integer.getInteger("sluice.indexCrash.kills", CI_KILLS);
    private static final long SEED = Long.getLong("sluice.indexCrash.seed", System.nanoTime());
    private static final String[] CODES = {"GAZP", "LKOH", "SBER", "YNDX", "MGNT"};
    private static final int ACCOUNTS = 12;

    /** The keys acknowledged last, across rounds (a ring): what the overwriter picks from, without copying the map. */
    private final AtomicLongArray recent = new AtomicLongArray(4096);
    private final AtomicLong acked = new AtomicLong();

    /** The node of the moment, for {@link HangWatch}. */
    private volatile NodeProcess current;
    private HangWatch watch;

    @Test
    void fsyncKeepsEveryAcknowledgedEntryFindableThroughEachIndex() {
        Duration bound = Duration.ofSeconds(60 + 50L * KILLS);
        try (HangWatch w = HangWatch.start("IndexCrashIT", bound.minusSeconds(10), () -> current)) {
            watch = w;
            assertTimeoutPreemptively(bound, this::crashLoop);
        } catch (AssertionFailedError failed) { // a timeout, or an assertion: either way, say in which phase
            throw new AssertionError(failed.getMessage() + " " + watch.where(failed), failed);
        }
    }

    private static Order order(Random random) {
        return new Order(CODES[random.nextInt(CODES.length)], "A" + random.nextInt(ACCOUNTS),
                Math.round(random.nextDouble() * 100_000) / 100.0, random.nextInt(10_000));
    }

    private void crashLoop() throws Exception {
        System.out.println("IndexCrashIT: " + KILLS + " kills, seed " + SEED + " (-Dsluice.indexCrash.seed=" + SEED
                + " replays it)");
        Random random = new Random(SEED);
        Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "index-crash-");
        String config = """
                {"dataRegionInitialSize": "16m", "dataRegionMaxSize": "1g", "applyThreads": 2,
                 "caches": [{"name": "orders", "partitions": 32, "indexes": [["secCode"], ["account", "price"]]}],
                 "persistence": {"directory": "%s", "walMode": "FSYNC", "walSegmentSize": "2m",
                                 "checkpointIntervalMillis": 200, "checkOnRecovery": true}}
                """.formatted(dir.toString().replace("\\", "\\\\"));
        Map<Long, Order> acknowledged = new ConcurrentHashMap<>();
        Map<Long, Order> inFlight = new ConcurrentHashMap<>(); // an overwrite not answered when the node died
        long nextKey = 0;
        for (int round = 0; round <= KILLS; round++) {
            long started = System.nanoTime();
            watch.phase("round " + round + ": starting the node");
            NodeProcess node = NodeProcesses.start(config, List.of());
            current = node;
            try {
                assertThat(node.log()).contains("store check after recovery: consistent");
                long verifying = System.nanoTime();
                verify(node, acknowledged, inFlight, round, watch);
                System.out.printf("restart %d: node up in %d ms, verified in %d ms%n", round,
                        (verifying - started) / 1_000_000, (System.nanoTime() - verifying) / 1_000_000);
                if (round == KILLS) {
                    break;
                }
                long killAfterKeys = 20_000 + random.nextInt(150_000);
                nextKey = load(node, acknowledged, inFlight, nextKey, killAfterKeys, new Random(random.nextLong()));
                System.out.println("round " + round + ": killed after " + killAfterKeys + " keys offered; "
                        + acknowledged.size() + " acknowledged in all");
            } catch (AssertionError | RuntimeException e) {
                System.err.println("node log of round " + round + ":\n" + node.log());
                throw e;
            } finally {
                if (round == KILLS) {
                    node.stop();
                } else {
                    node.close();
                }
            }
        }
        assertThat(acknowledged).as("the loads got entries acknowledged").isNotEmpty();
    }

    /** Streams new keys and overwrites earlier ones until the node is killed; returns the next unused key. */
    private long load(NodeProcess node, Map<Long, Order> acknowledged, Map<Long, Order> inFlight, long firstKey,
                      long killAfterKeys, Random random) throws Exception {
        AtomicLong next = new AtomicLong(firstKey);
        AtomicLong overwrites = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        watch.phase("connecting the loading client");
        Sluice client = SluiceClient.connect(ClientConfig.builder().addresses(node.address())
                .requestTimeout(Duration.ofSeconds(5)).retryAttempts(1).build());
        DataStreamer<Long, Order> streamer = client.dataStreamer("orders", StreamerOptions.builder()
                .perPartitionBufferSize(256).timeout(Duration.ofSeconds(10)).build());
        long seed = random.nextLong();
        Thread loader = new Thread(() -> {
            Random r = new Random(seed);
            try {
                while (!stop.get()) {
                    long key = next.getAndIncrement();
                    Order value = order(r);
                    streamer.addData(key, value).whenComplete((ok, error) -> {
                        if (error == null) {
                            acknowledged.putIfAbsent(key, value); // an overwrite acknowledged first wins
                            recent.set((int) (acked.getAndIncrement() % recent.length()), key);
                        }
                    });
                }
            } catch (RuntimeException e) {
                // the node is gone: the streamer refuses more data
            }
        }, "index-crash-loader");
        Cache<Long, Order> cache = client.cache("orders");
        Thread overwriter = new Thread(() -> {
            Random r = new Random(seed + 1);
            try {
                while (!stop.get()) {
                    long known = Math.min(acked.get(), recent.length());
                    if (known == 0) {
                        Thread.onSpinWait(); // nothing acknowledged yet: overwrite only what a load has stored
                        continue;
                    }
                    Map<Long, Order> batch = new HashMap<>();
                    for (int i = 0; i < 256; i++) {
                        batch.put(recent.get(r.nextInt((int) known)), order(r));
                    }
                    inFlight.putAll(batch);
                    cache.putAll(batch); // one batch per partition, each moving its keys' index entries
                    acknowledged.putAll(batch);
                    inFlight.keySet().removeAll(batch.keySet());
                    overwrites.addAndGet(batch.size());
                }
            } catch (RuntimeException e) {
                // the node is gone; the putAll in flight may have been applied in part (each key old or new)
            }
        }, "index-crash-overwriter");
        long ackedBefore = acked.get();
        long loading = System.nanoTime();
        watch.phase("loading until " + killAfterKeys + " keys are offered");
        loader.start();
        overwriter.start();
        // Offering runs far ahead of FSYNC's acknowledgements (tens of thousands of keys in flight): the kill also
        // waits for this round's first acknowledgement, so a slow disk cannot leave every round with nothing to check.
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() ->
                next.get() - firstKey >= killAfterKeys && acked.get() > ackedBefore || !loader.isAlive());
        long killed = System.nanoTime();
        watch.phase("killing the node");
        node.kill(); // kill -9: no drain, no final fsync
        stop.set(true);
        watch.phase("waiting for the loaders to stop after the kill");
        loader.join(30_000);
        overwriter.join(30_000);
        long joined = System.nanoTime();
        watch.phase("closing the streamer with cancel after the kill");
        streamer.close(true);
        watch.phase("closing the client after the kill");
        client.close();
        System.out.printf("  %d overwrites acknowledged; loaded for %d ms, the loaders stopped in %d ms after the kill"
                        + " (%s), closed in %d ms%n", overwrites.get(), (killed - loading) / 1_000_000,
                (joined - killed) / 1_000_000, loader.isAlive() || overwriter.isAlive() ? "one still running" : "both ended",
                (System.nanoTime() - joined) / 1_000_000);
        return next.get();
    }

    /**
     * Each index finds exactly the cache's entries (a scan), in index order, and every acknowledged entry is there with
     * its value (or, for a key whose overwrite was in flight at the kill, with that value).
     */
    private static void verify(NodeProcess node, Map<Long, Order> acknowledged, Map<Long, Order> inFlight, int round,
                               HangWatch watch) {
        watch.phase("restart " + round + ": connecting to verify");
        try (Sluice client = SluiceClient.connect(ClientConfig.addresses(node.address()))) {
            Cache<Long, Order> cache = client.cache("orders");
            watch.phase("restart " + round + ": scanning the cache");
            Map<Long, Order> stored = new HashMap<>();
            cache.scan().forEach(e -> stored.put(e.getKey(), e.getValue()));
            long missing = 0;
            for (Map.Entry<Long, Order> e : acknowledged.entrySet()) {
                Order got = stored.get(e.getKey());
                if (!e.getValue().equals(got) && !(got != null && got.equals(inFlight.get(e.getKey())))) {
                    missing++;
                }
            }
            assertThat(missing).as("restart %d: acknowledged entries missing or with another value, of %d", round,
                    acknowledged.size()).isZero();
            for (Long key : inFlight.keySet()) { // whichever value the store holds is the key's from now on
                acknowledged.put(key, stored.get(key));
            }
            inFlight.clear();

            long found = 0;
            for (String code : CODES) {
                List<Long> expected = stored.entrySet().stream().filter(e -> e.getValue().secCode().equals(code))
                        .map(Map.Entry::getKey).sorted().toList();
                List<Map.Entry<Long, Order>> result;
                watch.phase("restart " + round + ": querying secCode " + code);
                try (var s = cache.query(IndexQuery.on("secCode").eq(code))) {
                    result = s.toList();
                }
                assertThat(result.stream().map(Map.Entry::getKey).toList()).as("restart %d: secCode %s", round, code)
                        .isEqualTo(expected);
                result.forEach(e -> assertThat(e.getValue()).isEqualTo(stored.get(e.getKey())));
                found += result.size();
            }
            for (int a = 0; a < ACCOUNTS; a++) {
                String account = "A" + a;
                List<Long> expected = stored.entrySet().stream().filter(e -> e.getValue().account().equals(account))
                        .sorted(Map.Entry.<Long, Order>comparingByValue(Comparator.comparingDouble(Order::price))
                                .thenComparing(Map.Entry.comparingByKey()))
                        .map(Map.Entry::getKey).toList();
                watch.phase("restart " + round + ": querying account " + account);
                try (var s = cache.query(IndexQuery.on("account", "price").eq(account))) {
                    assertThat(s.map(Map.Entry::getKey).toList()).as("restart %d: account %s", round, account)
                            .isEqualTo(expected);
                }
            }
            assertThat(found).isEqualTo(stored.size());
            watch.phase("restart " + round + ": closing the verifying client");
            System.out.println("restart " + round + ": " + stored.size() + " stored, " + acknowledged.size()
                    + " acknowledged; both indexes find exactly the stored entries");
        }
    }
}
