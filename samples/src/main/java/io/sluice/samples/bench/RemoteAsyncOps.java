package io.sluice.samples.bench;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.sluice.Cache;
import io.sluice.CacheConfig;
import io.sluice.Sluice;
import io.sluice.client.ClientConfig;
import io.sluice.client.SluiceClient;
import io.sluice.node.NodeConfig;
import io.sluice.node.internal.NodeEngine;
import io.sluice.server.internal.ServerConfig;
import io.sluice.server.internal.SluiceServer;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;

/**
 * Gets and puts of small values through the cache's async methods with up to {@code window} of them in flight, from
 * one thread: a remote cache (a client over loopback to a node in the same JVM) and, as the same run's baseline,
 * the embedded node's own cache; then the remote cache's sync calls, one at a time. Prints ops/s per round (the
 * first two rounds are warm-up) and the median of the rest. A measurement; asserts nothing.
 *
 * <pre>
 * java -Xmx1g -cp samples/target/benchmarks.jar io.sluice.samples.bench.RemoteAsyncOps [window=256] [ops=100000] [rounds=6]
 * </pre>
 */
public final class RemoteAsyncOps {

    private static final int KEYS = 1_000;

    private RemoteAsyncOps() {
    }

    public static void main(String[] args) throws InterruptedException {
        int window = args.length > 0 ? Integer.parseInt(args[0]) : 256;
        int ops = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 6;
        NodeEngine node = new NodeEngine(NodeConfig.builder().dataRegionMaxSize(256L << 20).build(),
                new SimpleMeterRegistry());
        SluiceServer server = SluiceServer.start(node, ServerConfig.defaults().withHost("127.0.0.1").withPort(0));
        try (Sluice client = SluiceClient.connect(ClientConfig.addresses("127.0.0.1:" + server.address().getPort()))) {
            Cache<Long, String> remote = client.createCache(CacheConfig.named("remote").withPartitions(16));
            Cache<Long, String> embedded = node.createCache(CacheConfig.named("embedded").withPartitions(16));
            for (long k = 0; k < KEYS; k++) {
                remote.put(k, "v" + k);
                embedded.put(k, "v" + k);
            }
            for (String kind : new String[]{"get", "put"}) {
                double r = median(rounds, () -> async(remote, kind, window, ops));
                double e = median(rounds, () -> async(embedded, kind, window, ops));
                double s = median(rounds, () -> sync(remote, kind, ops / 10));
                System.out.printf("%s: remote async %,.0f ops/s, embedded async %,.0f ops/s (remote %.2fx of it),"
                        + " remote sync one at a time %,.0f ops/s%n", kind, r, e, r / e, s);
            }
        } finally {
            server.closeConnections();
            node.close();
        }
    }

    private interface Round {
        double run() throws InterruptedException;
    }

    /** Runs the rounds, prints each; the median of those after the first two. */
    private static double median(int rounds, Round round) throws InterruptedException {
        double[] rates = new double[Math.max(1, rounds - 2)];
        for (int i = 0; i < rounds; i++) {
            double rate = round.run();
            System.out.printf("  round %d: %,.0f ops/s%n", i + 1, rate);
            if (i >= rounds - rates.length) {
                rates[i - (rounds - rates.length)] = rate;
            }
        }
        java.util.Arrays.sort(rates);
        return rates[rates.length / 2];
    }

    private static double async(Cache<Long, String> cache, String kind, int window, int ops)
            throws InterruptedException {
        Semaphore inFlight = new Semaphore(window);
        long start = System.nanoTime();
        for (int i = 0; i < ops; i++) {
            inFlight.acquire();
            long key = i % KEYS;
            CompletableFuture<?> f = kind.equals("get") ? cache.getAsync(key) : cache.putAsync(key, "w" + key);
            f.whenComplete((v, e) -> {
                if (e != null) {
                    e.printStackTrace();
                }
                inFlight.release();
            });
        }
        inFlight.acquire(window);
        return ops * 1e9 / (System.nanoTime() - start);
    }

    private static double sync(Cache<Long, String> cache, String kind, int ops) {
        long start = System.nanoTime();
        for (int i = 0; i < ops; i++) {
            long key = i % KEYS;
            if (kind.equals("get")) {
                cache.get(key);
            } else {
                cache.put(key, "w" + key);
            }
        }
        return ops * 1e9 / (System.nanoTime() - start);
    }
}
