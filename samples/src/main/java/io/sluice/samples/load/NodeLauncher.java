package io.sluice.samples.load;

import io.sluice.Sluice;

/** Starts the node a mode loads into; each node mode gets a fresh one. */
interface NodeLauncher {

    /**
     * Starts a node.
     *
     * @param pageSize       page size in bytes, or {@code null} for the node's default
     * @param regionMaxBytes the most off-heap memory its data region may take
     */
    Sluice start(Integer pageSize, long regionMaxBytes);
}
