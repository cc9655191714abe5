package io.sluice.node;

import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.Sluice;

import java.util.List;

/**
 * The engine behind a {@link SluiceNode}: the seam between the node's API and its internals. {@link SluiceNode}
 * finds the one {@link Starter} with {@link java.util.ServiceLoader} (the node's own, registered in its jar's
 * {@code META-INF/services}), so that this package does not depend on the engine's package, which depends on it
 * (its config classes). Implemented by the node itself; applications use {@link SluiceNode}, not this.
 */
public interface NodeRuntime extends Sluice {

    /** The node's id ({@link SluiceNode#id()}). */
    String id();

    /** The config the node was started with. */
    NodeConfig config();

    /** Pages of the data region in use by trees and rows. @throws IllegalStateException if closed */
    long usedPages();

    /** The names of the caches. */
    List<String> cacheNames();

    /** Starts engines; the node's jar registers its implementation as a service. */
    interface Starter {
        /**
         * Starts an engine whose meters go to the registry.
         *
         * @throws IllegalStateException if a custom receiver's or processor's factory throws or returns null
         */
        NodeRuntime start(NodeConfig config, MeterRegistry registry);

        /** Starts an engine with meters of its own (not exported). */
        NodeRuntime start(NodeConfig config);
    }
}
