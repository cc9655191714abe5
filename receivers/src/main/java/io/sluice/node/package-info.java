/**
 * The embedded node: {@link io.sluice.node.SluiceNode#start(io.sluice.node.NodeConfig)} gives a
 * {@link io.sluice.Sluice} whose caches live in this JVM's off-heap page memory and whose streamers
 * hand their batches to the node's apply threads without leaving the JVM. Every option of a node (and of the
 * node process's file) is declared once in {@link io.sluice.node.NodeOptions}. {@link io.sluice.node.NodeRuntime}
 * is the seam to the engine ({@code node.internal}), found as a service so that this package does not depend on
 * the engine's.
 */
package io.sluice.node;
