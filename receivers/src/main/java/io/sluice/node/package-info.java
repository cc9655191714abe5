/**
 * The embedded node: {@link io.sluice.node.SluiceNode#start(io.sluice.node.NodeConfig)} gives a
 * {@link io.sluice.Sluice} whose caches live in this JVM's off-heap page memory and whose streamers
 * hand their batches to the node's apply threads without leaving the JVM.
 */
package io.sluice.node;
