package io.sluice.server.internal.command;

import io.sluice.cluster.internal.ZooKeeperServerRunner;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code sluice-node.jar zookeeper --port 2181 --dir DIR}: one ZooKeeper server, for trying a cluster on one machine
 * (no replication: an ensemble in production). Its data stays in the directory across restarts. Prints
 * {@code zookeeper listening on HOST:PORT} once it accepts connections and runs until SIGTERM or Ctrl-C.
 */
@Command(name = "zookeeper", mixinStandardHelpOptions = true,
        description = "Runs one ZooKeeper server for trying a cluster on one machine (not for production).")
public final class ZooKeeperCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--port", paramLabel = "PORT", defaultValue = "2181",
            description = "Port to listen on; 0 = any free port (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(names = "--host", paramLabel = "HOST", defaultValue = "127.0.0.1",
            description = "Address to listen on (default: ${DEFAULT-VALUE}; 0.0.0.0 for every address).")
    String host;

    @Option(names = "--dir", paramLabel = "DIR", required = true,
            description = "Where ZooKeeper keeps its snapshots and log (created if missing).")
    Path dir;

    @Override
    public Integer call() throws InterruptedException {
        PrintWriter err = spec.commandLine().getErr();
        if (port < 0 || port > 65535) {
            err.println("zookeeper: --port is " + port + "; it must be between 0 (any free port) and 65535");
            return 2;
        }
        ZooKeeperServerRunner.Running server;
        try {
            server = ZooKeeperServerRunner.start(new InetSocketAddress(host, port), dir);
        } catch (UncheckedIOException | IllegalStateException | IllegalArgumentException e) {
            err.println("zookeeper: " + e.getMessage());
            return 2;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "zookeeper-stop"));
        PrintWriter out = spec.commandLine().getOut();
        out.println("zookeeper listening on " + host + ":" + server.port() + " (data in " + dir.toAbsolutePath()
                + ")");
        out.flush();
        server.awaitClose();
        return 0;
    }
}
