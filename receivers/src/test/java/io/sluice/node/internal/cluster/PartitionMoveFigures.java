package io.sluice.node.internal.cluster;

import io.sluice.CacheConfig;
import io.sluice.DataStreamer;
import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryObjectBuilder;
import io.sluice.node.ClusterConfig;
import io.sluice.node.NodeConfig;
import io.sluice.node.PersistenceConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The figure of issue 28 (not a CI test): the time to build every partition of a cache on another node by ENTRIES
 * (a→b) and by FILES (b→c), the same data, three in-memory nodes in this JVM on 127.0.0.1, partitions moved one at a
 * time, no rate limit ({@code -Dsluice.move.figures.persistent=true}: persistent nodes, their directories left under
 * the system's temporary directory); and, as the ceiling, a plain copy of the same partition files (the suppliers' files for the
 * same partitions) over a loopback socket with {@code FileChannel.transferTo} into files. Run with
 * <pre>
 * ./mvnw -B -o -pl receivers -am test -Dtest=PartitionMoveFigures -Dsluice.move.figures=true \
 *     -Dsurefire.failIfNoSpecifiedTests=false -DskipITs [-Dsluice.move.figures.entries=1000000]
 * </pre>
 */
@EnabledIfSystemProperty(named = "sluice.move.figures", matches = "true")
@Timeout(1800)
class PartitionMoveFigures {

    private static final int PARTITIONS = Integer.getInteger("sluice.move.figures.partitions", 64);
    private static final long ENTRIES = Long.getLong("sluice.move.figures.entries", 1_000_000);
    private static final long REGION = 1L << 30;
    /** Persistent nodes (LOG_ONLY, the default WAL mode) instead of nodes in memory. */
    private static final boolean PERSISTENT = Boolean.getBoolean("sluice.move.figures.persistent");

    @Test
    void filesVersusEntriesVersusAPlainCopy() throws Exception {
        try (TwoNodes c = new TwoNodes(PARTITIONS)) {
            TwoNodes.Node a = c.start("a", config("a", ClusterConfig.MoveMethod.ENTRIES));
            c.cluster.assign("a");
            a.cluster().createCache(CacheConfig.named("orders"), true);
            BinaryObjectBuilder builder = a.engine().binary().builder("StockOrder");
            long t0 = System.nanoTime();
            try (DataStreamer<Long, BinaryObject> streamer = a.engine().dataStreamer("orders")) {
                for (long k = 0; k < ENTRIES; k++) {
                    streamer.addData(k, builder.setField("id", k).setField("symbol", "S" + (k % 500))
                            .setField("price", (k % 10_000) / 100.0).setField("qty", (int) (k % 1000)).build());
                }
            }
            System.out.printf("FIGURE " + (PERSISTENT ? "persistent" : "in-memory") + " nodes: loaded %,d StockOrders over %d partitions in %.1f s%n", ENTRIES, PARTITIONS,
                    (System.nanoTime() - t0) / 1e9);
            assertThat(a.engine().nodeCache("orders").size()).isEqualTo(ENTRIES);

            TwoNodes.Node b = c.start("b", config("b", ClusterConfig.MoveMethod.ENTRIES));
            double entries = moveAll(c, "b");
            MoveStats bStats = b.cluster().joinedParts().moves();
            assertThat(b.engine().nodeCache("orders").size()).isEqualTo(ENTRIES);

            TwoNodes.Node d = c.start("c", config("c", ClusterConfig.MoveMethod.FILES));
            double files = moveAll(c, "c");
            MoveStats dStats = d.cluster().joinedParts().moves();
            assertThat(d.engine().nodeCache("orders").size()).isEqualTo(ENTRIES);
            long fileBytes = dStats.bytesReceived();

            double copy = plainCopy(d);
            System.out.printf("FIGURE ENTRIES: %d partitions in %.2f s (%,d entry bytes, %.1f MB/s of entries)%n",
                    PARTITIONS, entries, bStats.bytes(), bStats.bytes() / 1e6 / entries);
            System.out.printf("FIGURE FILES:   %d partitions in %.2f s (%,d file bytes, %.1f MB/s of files,"
                            + " %.1f MB/s of entries)%n", PARTITIONS, files, fileBytes, fileBytes / 1e6 / files,
                    bStats.bytes() / 1e6 / files);
            System.out.printf("FIGURE COPY:    the same files over loopback (transferTo) in %.2f s (%.1f MB/s)%n",
                    copy, fileBytes / 1e6 / copy);
            System.out.printf("FIGURE files vs entries: %.1fx faster; files at %.0f%% of the plain copy's rate%n",
                    entries / files, 100 * copy / files);
        }
    }

    private static UnaryOperator<NodeConfig.Builder> config(String id, ClusterConfig.MoveMethod method) {
        return b -> {
            b.dataRegionMaxSize(REGION).cluster(ClusterConfig.of("127.0.0.1:2181", "figures", id)
                    .withMoveMethod(method).withMoveBytesPerSecond(0));
            if (PERSISTENT) {
                try {
                    b.persistence(PersistenceConfig.at(Files.createTempDirectory("sluice-figures-" + id + "-")));
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            }
            return b;
        };
    }

    /** Moves every partition to the node, one at a time; the seconds it took. */
    private static double moveAll(TwoNodes c, String to) throws Exception {
        long t0 = System.nanoTime();
        for (int p = 0; p < PARTITIONS; p++) {
            c.cluster.move(p, to);
        }
        return (System.nanoTime() - t0) / 1e9;
    }

    /**
     * Writes the node's partitions as transfer files (not timed), then copies them all over one loopback connection
     * into files (timed, from the first byte sent to the last one written); the seconds the copy took.
     */
    private static double plainCopy(TwoNodes.Node node) throws Exception {
        PartitionFileSupplier supplier = node.cluster().joinedParts().files();
        List<OutgoingPartitionFile> files = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            files.add(supplier.prepare("orders", p, PartitionFileWire.DEFAULT_CHUNK, false, "copy"));
        }
        Path into = Files.createTempDirectory("sluice-copy-");
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress("127.0.0.1", 0));
            CompletableFuture<Void> received = CompletableFuture.runAsync(() -> receive(server, files, into),
                    r -> new Thread(r, "copy-receiver").start());
            long t0 = System.nanoTime();
            try (SocketChannel out = SocketChannel.open(server.getLocalAddress())) {
                for (OutgoingPartitionFile f : files) {
                    try (FileChannel in = FileChannel.open(f.path(), StandardOpenOption.READ)) {
                        long at = 0;
                        long size = in.size();
                        while (at < size) {
                            at += in.transferTo(at, size - at, out);
                        }
                    }
                }
            }
            received.get(10, TimeUnit.MINUTES);
            return (System.nanoTime() - t0) / 1e9;
        } finally {
            for (OutgoingPartitionFile f : files) {
                f.ended(true);
            }
            try (var left = Files.list(into)) {
                for (Path p : (Iterable<Path>) left::iterator) {
                    Files.delete(p);
                }
            }
            Files.delete(into);
        }
    }

    private static void receive(ServerSocketChannel server, List<OutgoingPartitionFile> files, Path into) {
        try (SocketChannel in = server.accept()) {
            for (int i = 0; i < files.size(); i++) {
                long size = files.get(i).header().length();
                try (FileChannel out = FileChannel.open(into.resolve("p" + i), StandardOpenOption.CREATE_NEW,
                        StandardOpenOption.WRITE)) {
                    long at = 0;
                    while (at < size) {
                        at += out.transferFrom(in, at, size - at);
                    }
                    out.force(true);
                }
            }
            ByteBuffer end = ByteBuffer.allocate(1);
            assertThat(in.read(end)).isEqualTo(-1);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
