/**
 * Internal: the node's machinery behind {@link io.sluice.node.SluiceNode} — {@link
 * io.sluice.node.internal.NodeEngine} (region, caches, lifecycle), {@link
 * io.sluice.node.internal.EmbeddedTransport} (a request's batches to the stripes), {@link
 * io.sluice.node.internal.StripedExecutor} (one apply thread per stripe), {@link
 * io.sluice.node.internal.NodeCache} (the {@code Cache} over a cache's partition stores) and {@link
 * io.sluice.node.internal.NodeMetrics} (the node's meters, counted once per batch). May change
 * without notice.
 */
package io.sluice.node.internal;
