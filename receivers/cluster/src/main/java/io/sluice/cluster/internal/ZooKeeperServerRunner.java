package io.sluice.cluster.internal;

import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;
import org.apache.zookeeper.server.persistence.FileTxnSnapLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * One standalone ZooKeeper server for trying a cluster on one machine ({@code sluice-node.jar zookeeper --port
 * 2181 --dir ...}): its data (snapshots and transaction log) in a directory, so a restart keeps the clusters; no
 * replication, so not for production (run a ZooKeeper ensemble there). Tick 500 ms: sessions of 1 to 10 s.
 */
public final class ZooKeeperServerRunner {

    private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperServerRunner.class);
    /** ZooKeeper grants session timeouts from 2 to 20 ticks. */
    public static final int TICK_MILLIS = 500;
    private static final int MAX_CLIENT_CONNECTIONS = 1000;

    private ZooKeeperServerRunner() {
    }

    /** A running server. */
    public static final class Running implements AutoCloseable {
        private final ServerCnxnFactory connections;
        private final ZooKeeperServer server;
        private final CountDownLatch closed = new CountDownLatch(1);

        private Running(ServerCnxnFactory connections, ZooKeeperServer server) {
            this.connections = connections;
            this.server = server;
        }

        /** The port it listens on (the one asked for, or the one chosen for port 0). */
        public int port() {
            return connections.getLocalPort();
        }

        /** Blocks until {@link #close()}. */
        public void awaitClose() throws InterruptedException {
            closed.await();
        }

        /** Stops the server (clients see their connection go). Idempotent. */
        @Override
        public synchronized void close() {
            if (closed.getCount() == 0) {
                return;
            }
            connections.shutdown();
            server.shutdown();
            closed.countDown();
            LOG.info("ZooKeeper server on port {} stopped", connections.getLocalPort());
        }
    }

    /**
     * Starts a server listening on every interface.
     *
     * @param port 0 for any free port
     * @throws UncheckedIOException if the directory cannot be used or the port is taken
     */
    public static Running start(int port, Path dir) {
        return start(new InetSocketAddress(port), dir);
    }

    /** Starts a server listening on one address (127.0.0.1 in tests). */
    public static Running start(InetSocketAddress address, Path dir) {
        try {
            Files.createDirectories(dir);
            ZooKeeperServer server = new ZooKeeperServer(new FileTxnSnapLog(dir.toFile(), dir.toFile()),
                    TICK_MILLIS, "");
            ServerCnxnFactory connections = ServerCnxnFactory.createFactory(address, MAX_CLIENT_CONNECTIONS);
            try {
                connections.startup(server);
            } catch (IOException | RuntimeException e) {
                connections.shutdown();
                throw e;
            }
            LOG.info("ZooKeeper server listening on {}:{}, data in {}", address.getHostString(),
                    connections.getLocalPort(), dir.toAbsolutePath());
            return new Running(connections, server);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start ZooKeeper on " + address + " with data in " + dir + ": "
                    + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting ZooKeeper", e);
        }
    }

    /** Runs a server until the process is stopped (SIGTERM or Ctrl-C close it cleanly). */
    public static void run(int port, Path dir) throws InterruptedException {
        Running running = start(port, dir);
        Runtime.getRuntime().addShutdownHook(new Thread(running::close, "zookeeper-shutdown"));
        running.awaitClose();
    }
}
