/**
 * Internal: the node's machinery behind {@link io.sluice.node.SluiceNode} — {@link
 * io.sluice.node.internal.NodeEngine} (region, caches, lifecycle), {@link
 * io.sluice.node.internal.EmbeddedTransport} (a request's batches to the stripes), {@link
 * io.sluice.node.internal.StripedExecutor} (one apply thread per stripe) and {@link
 * io.sluice.node.internal.NodeCache} (the {@code Cache} over a cache's partition stores). May change
 * without notice.
 */
package io.sluice.node.internal;
