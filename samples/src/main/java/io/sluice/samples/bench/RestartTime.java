package io.sluice.samples.bench;

import io.sluice.node.NodeConfig;
import io.sluice.node.PersistenceConfig;
import io.sluice.node.WalMode;
import io.sluice.node.internal.NodeEngine;

import java.nio.file.Path;

/**
 * Times the restart of a node on a directory a persistent node left (e.g. {@code DurabilityLoad restart}'s
 * {@code <dir>/NONE}), without loading anything first: {@code RestartTime <dir> [times=1]}. Each restart opens the
 * node (checkpoint load and log replay), prints the time and the entries back, and closes it. Uses only the
 * node's API, so it runs against an older build's classes too (put that build's jar first on the class path) to
 * compare restarts of one directory.
 */
public final class RestartTime {

    private RestartTime() {
    }

    public static void main(String[] args) {
        Path dir = Path.of(args[0]);
        int times = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        for (int i = 0; i < times; i++) {
            long start = System.nanoTime();
            try (NodeEngine node = new NodeEngine(NodeConfig.builder().dataRegionMaxSize(4L << 30)
                    .persistence(PersistenceConfig.at(dir).withWalMode(WalMode.NONE)).build())) {
                long millis = (System.nanoTime() - start) / 1_000_000;
                long size = 0;
                for (String cache : node.cacheNames()) {
                    size += node.cache(cache).size();
                }
                System.out.printf("restart: %,d entries back in %,d ms (%,.0f entries/s)%n", size, millis,
                        size / (millis / 1e3));
            }
        }
    }
}
