package io.sluice.samples.load;

import io.sluice.Sluice;
import io.sluice.node.NodeConfig;
import io.sluice.node.SluiceNode;
import io.sluice.pagestore.internal.DataRegionConfig;

/** Starts an embedded {@link SluiceNode} in this JVM. */
final class EmbeddedNodeLauncher implements NodeLauncher {

    @Override
    public Sluice start(Integer pageSize, long regionMaxBytes) {
        NodeConfig.Builder config = NodeConfig.builder()
                .dataRegionMaxSize(regionMaxBytes)
                .dataRegionInitialSize(Math.min(DataRegionConfig.DEFAULT_INITIAL_SIZE, regionMaxBytes));
        if (pageSize != null) {
            config.pageSize(pageSize);
        }
        return SluiceNode.start(config.build());
    }
}
