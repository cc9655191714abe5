package io.sluice.server.internal.command;

import io.sluice.client.internal.Address;
import io.sluice.node.internal.cluster.MemberTls;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import javax.net.ssl.SSLContext;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code sluice-node.jar status --connect HOST:PORT[,...]}: asks a node for the cluster's map (CLUSTER_MAP) and
 * every member for its status (NODE_STATUS), and prints members, map version, partitions and entries per node and
 * the moves in progress; {@code --json} prints them as one JSON document. Exit 0, or 2 with a message when no
 * given node answers or the arguments are bad (a member that does not answer is a row saying so, not a failure).
 */
@Command(name = "status", mixinStandardHelpOptions = true,
        description = "Prints the cluster's members, map version, partitions and entries per node, and moves in"
                + " progress.")
public final class StatusCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--connect", required = true, split = ",", paramLabel = "HOST:PORT",
            description = "Nodes to ask for the map, tried in order until one answers.")
    List<String> connect;

    @Option(names = "--json", description = "Print one JSON document (each member's status as it sent it).")
    boolean json;

    @Option(names = "--token", paramLabel = "TOKEN", description = "The nodes' handshake token, if they require one.")
    String token;

    @Option(names = "--tls", description = "Speak TLS to the nodes (they must present a certificate the JVM's trust"
            + " store, or --trusted-certificates, trusts, naming the address dialled).")
    boolean tls;

    @Option(names = "--trusted-certificates", paramLabel = "PEM",
            description = "Trust the certificates of this PEM file instead of the JVM's trust store (implies --tls).")
    Path trustedCertificates;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "5s", converter = DurationConverter.class,
            description = "How long to wait for each node (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        List<Address> addresses = new ArrayList<>();
        for (String a : connect) {
            try {
                addresses.add(Address.parse(a.trim()));
            } catch (IllegalArgumentException e) {
                err.println("status: --connect '" + a + "' is not host:port with a port from 1 to 65535");
                return 2;
            }
        }
        StatusReport status;
        try {
            SSLContext context = tls || trustedCertificates != null ? MemberTls.trusting(trustedCertificates) : null;
            status = StatusReport.read(addresses, token, timeout, context);
        } catch (IOException e) {
            boolean hint = !tls && trustedCertificates == null && String.valueOf(e.getMessage()).contains("TLS");
            err.println("status: " + e.getMessage() + (hint ? " (ask through TLS: --tls, with --trusted-certificates"
                    + " PEM unless the JVM's trust store trusts the node's certificate)" : ""));
            return 2;
        }
        PrintWriter out = spec.commandLine().getOut();
        out.print(json ? status.json() + System.lineSeparator() : status.table());
        out.flush();
        return 0;
    }
}
