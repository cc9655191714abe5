package io.sluice.server.internal.command;

import io.sluice.cluster.internal.ClusterSetup;
import io.sluice.node.ClusterConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * {@code sluice-node.jar create-cluster --zookeeper HOST:PORT --name NAME [--partitions 1024]
 * [--rebalance-delay 60s] [--backups 0]}: makes the cluster its nodes then join (Helix's structure in ZooKeeper, one
 * resource of P partitions with 1 + backups replicas placed by rendezvous hashing, the rebalance delay). Running it
 * again for an existing cluster with the same partition count changes nothing but raising its replicas to
 * 1 + backups (never lowering them); another count is refused (it is fixed at creation).
 */
@Command(name = "create-cluster", mixinStandardHelpOptions = true,
        description = "Creates a cluster in ZooKeeper for nodes to join.")
public final class CreateClusterCommand implements Callable<Integer> {

    /** Partitions of a cluster unless set otherwise: every cache of the cluster has them. */
    static final int DEFAULT_PARTITIONS = 1024;

    @Spec
    CommandSpec spec;

    @Option(names = "--zookeeper", paramLabel = "HOST:PORT[,...]", required = true,
            description = "ZooKeeper's connect string.")
    String zookeeper;

    @Option(names = "--name", paramLabel = "NAME", required = true,
            description = "The cluster's name (letters, digits, _, - and .), as the nodes' \"cluster.name\".")
    String name;

    @Option(names = "--partitions", paramLabel = "N", defaultValue = "" + DEFAULT_PARTITIONS,
            description = "Partitions of every cache of the cluster, fixed from now on (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--rebalance-delay", paramLabel = "DURATION", defaultValue = "60s",
            converter = DurationConverter.class,
            description = "How long a node that left keeps its partitions (unserved) before they are placed on the"
                    + " others (default: ${DEFAULT-VALUE}).")
    Duration rebalanceDelay;

    @Option(names = "--backups", paramLabel = "N", defaultValue = "0",
            description = "Backups of each partition from the start (0.." + ClusterSetup.MAX_BACKUPS + "; default:"
                    + " ${DEFAULT-VALUE}); a cache created with more backups raises it.")
    int backups;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        try {
            // The nodes' own checks: a name a node's file cannot give would make a cluster nobody joins.
            ClusterConfig.of(zookeeper, name, "check");
        } catch (IllegalArgumentException e) {
            err.println("create-cluster: " + e.getMessage().replace("(ClusterConfig.", "(--"));
            return 2;
        }
        if (partitions < 1 || partitions > Short.MAX_VALUE) {
            err.println("create-cluster: --partitions is " + partitions + "; it must be between 1 and "
                    + Short.MAX_VALUE);
            return 2;
        }
        if (backups < 0 || backups > ClusterSetup.MAX_BACKUPS) {
            err.println("create-cluster: --backups is " + backups + "; it must be between 0 and "
                    + ClusterSetup.MAX_BACKUPS);
            return 2;
        }
        boolean created;
        try {
            created = ClusterSetup.create(zookeeper.replace(" ", ""), name, partitions, rebalanceDelay, backups);
        } catch (IllegalStateException | IllegalArgumentException e) {
            err.println("create-cluster: " + e.getMessage());
            return 2;
        }
        PrintWriter out = spec.commandLine().getOut();
        out.println(created
                ? "created cluster '" + name + "' at " + zookeeper + ": " + partitions + " partitions, rebalance"
                        + " delay " + (rebalanceDelay.toMillis() % 1000 == 0 ? rebalanceDelay.toSeconds() + " s"
                        : rebalanceDelay.toMillis() + " ms") + ", " + backups + (backups == 1 ? " backup" : " backups")
                : "cluster '" + name + "' exists at " + zookeeper + " with " + partitions + " partitions: unchanged"
                        + (backups > 0 ? " (replicas raised to " + (1 + backups) + " if they were fewer)" : ""));
        out.flush();
        return 0;
    }
}
