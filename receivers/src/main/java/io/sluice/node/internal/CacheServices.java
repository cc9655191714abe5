package io.sluice.node.internal;

import io.sluice.processor.internal.ProcessorRegistry;

/**
 * What a node's caches use of the node, and nothing more: the open-state guard, durability waits, the apply
 * threads (entry processors and async writes run on them) and the entry processors.
 */
record CacheServices(NodeState state, Durability durability, StripedExecutor stripes, ProcessorRegistry processors) {
}
