package io.sluice.node.internal;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.node.NodeConfig;
import io.sluice.node.NodeRuntime;

/** Starts {@link NodeEngine}s for {@code SluiceNode.start} (a service: META-INF/services/io.sluice.node.NodeRuntime$Starter). */
public final class NodeEngineStarter implements NodeRuntime.Starter {

    @Override
    public NodeRuntime start(NodeConfig config, MeterRegistry registry) {
        return new NodeEngine(config, registry);
    }

    @Override
    public NodeRuntime start(NodeConfig config) {
        return new NodeEngine(config);
    }
}
