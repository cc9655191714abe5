package io.sluice.samples.bench;

import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.node.NodeConfig;
import io.sluice.node.SluiceNode;
import io.sluice.samples.StockOrder;
import io.sluice.samples.load.StockOrderFields;

/**
 * What a StockOrder costs: its encoded size (reused builder and record), and the page memory per
 * entry after streaming N of them (isolated receiver, Long keys) into a fresh embedded node.
 * Run: {@code java -cp samples/target/benchmarks.jar io.sluice.samples.bench.StockOrderFootprint [entries]}
 * (default 2,000,000).
 */
public final class StockOrderFootprint {

    private StockOrderFootprint() {
    }

    public static void main(String[] args) {
        long entries = args.length > 0 ? Long.parseLong(args[0]) : 2_000_000L;
        try (SluiceNode node = SluiceNode.start(NodeConfig.defaults())) {
            BinaryObjectBuilder builder = node.binary().builder(StockOrderFields.TYPE_NAME);
            int builtSize = StockOrderFields.build(builder, 12_345L, null).toBytes().length;
            int recordSize = node.binary().toBinary(StockOrder.forKey(12_345L)).toBytes().length;
            node.createCache(CacheConfig.named("orders"));
            long before = node.usedPages();
            try (DataStreamer<Long, BinaryObject> streamer = node.dataStreamer("orders")) {
                for (long key = 0; key < entries; key++) {
                    streamer.addData(key, StockOrderFields.build(builder, key, null));
                }
            }
            long pages = node.usedPages() - before;
            long bytes = pages * node.config().pageSize();
            System.out.printf("StockOrder encoded: builder %d bytes, record %d bytes%n", builtSize, recordSize);
            System.out.printf("%,d entries streamed (isolated): %,d pages of %d bytes = %.1f bytes of page memory"
                    + " per entry (%,d entries in the cache)%n", entries, pages, node.config().pageSize(),
                    (double) bytes / entries, node.cache("orders").size());
        }
    }
}
