package io.sluice.e2e;

import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.node.NodeConfig;
import io.sluice.node.SluiceNode;

/**
 * Measures an embedded load: N StockOrder entries with unique Long keys, isolated receiver,
 * default streamer options, from one thread, with values from a reused binary builder and then as
 * POJOs. Prints entries/s; asserts nothing (a measurement, not a test).
 *
 * <pre>
 * java -Xmx512m -XX:MaxDirectMemorySize=4g -cp ... io.sluice.e2e.EmbeddedLoadRate [entries] [rounds]
 * </pre>
 */
public final class EmbeddedLoadRate {

    /** The StockOrder workload's value (a copy of the samples' record: receivers cannot depend on samples). */
    public record StockOrder(String secCode, double price, long quantity, String buySell, String secBoard,
                             String account, String user, String currency, double commission, String status,
                             boolean marketMaker) {

        static StockOrder forKey(long key) {
            return new StockOrder("SBER", 100.0 + (key % 10_000) / 100.0, 1 + key % 1000, (key & 1) == 0 ? "B" : "S",
                    "TQBR", "L01-00000F00", USERS[(int) (key % 100)], "RUB", 0.01 * (1 + key % 7), "NEW",
                    key % 10 == 0);
        }
    }

    private static final String[] USERS = new String[100];

    static {
        for (int i = 0; i < USERS.length; i++) {
            USERS[i] = "user" + i;
        }
    }

    private EmbeddedLoadRate() {
    }

    public static void main(String[] args) {
        int entries = args.length > 0 ? Integer.parseInt(args[0]) : 2_000_000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        for (int round = 1; round <= rounds; round++) {
            report("builder", round, entries, loadWithBuilder(entries));
            report("pojo", round, entries, loadPojos(entries));
        }
    }

    private static void report(String values, int round, int entries, long nanos) {
        System.out.printf("round %d  %-8s %,d entries in %,d ms: %,.0f entries/s%n", round, values, entries,
                nanos / 1_000_000, entries / (nanos / 1e9));
    }

    private static long loadWithBuilder(int entries) {
        try (SluiceNode node = SluiceNode.start(NodeConfig.defaults())) {
            node.createCache(CacheConfig.named("orders"));
            long start = System.nanoTime();
            BinaryObjectBuilder builder = node.binary().builder("StockOrder");
            try (DataStreamer<Long, BinaryObject> streamer = node.dataStreamer("orders")) {
                for (long k = 0; k < entries; k++) {
                    BinaryObject order = builder
                            .setField("secCode", "SBER")
                            .setField("price", 100.0 + (k % 10_000) / 100.0)
                            .setField("quantity", 1 + k % 1000)
                            .setField("buySell", (k & 1) == 0 ? "B" : "S")
                            .setField("secBoard", "TQBR")
                            .setField("account", "L01-00000F00")
                            .setField("user", USERS[(int) (k % 100)])
                            .setField("currency", "RUB")
                            .setField("commission", 0.01 * (1 + k % 7))
                            .setField("status", "NEW")
                            .setField("marketMaker", k % 10 == 0)
                            .build();
                    streamer.addData(k, order);
                }
            }
            long nanos = System.nanoTime() - start;
            check(node, entries);
            return nanos;
        }
    }

    private static long loadPojos(int entries) {
        try (SluiceNode node = SluiceNode.start(NodeConfig.defaults())) {
            node.createCache(CacheConfig.named("orders"));
            long start = System.nanoTime();
            try (DataStreamer<Long, StockOrder> streamer = node.dataStreamer("orders")) {
                for (long k = 0; k < entries; k++) {
                    streamer.addData(k, StockOrder.forKey(k));
                }
            }
            long nanos = System.nanoTime() - start;
            check(node, entries);
            return nanos;
        }
    }

    private static void check(SluiceNode node, int entries) {
        long size = node.cache("orders").size();
        if (size != entries) {
            throw new IllegalStateException("loaded " + entries + " entries but the cache holds " + size);
        }
    }
}
