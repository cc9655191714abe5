package io.sluice.e2e;

import io.sluice.CacheConfig;
import io.sluice.Sluice;
import io.sluice.node.NodeConfig;
import io.sluice.node.SluiceNode;

/** The streaming suite against an embedded node, one per test. */
class EmbeddedStreamingTest extends StreamingContract {

    @Override
    protected Sluice open(String cacheName, long maxRegion) {
        SluiceNode node = SluiceNode.start(NodeConfig.builder()
                .dataRegionInitialSize(16L << 20)
                .dataRegionMaxSize(maxRegion)
                .receiver("failing", TestReceivers.Failing::new)
                .receiver("stalling", TestReceivers.Stalling::new)
                .receiver("upper", TestReceivers.UpperCase::new)
                .build());
        node.createCache(CacheConfig.named(cacheName));
        return node;
    }
}
