package io.sluice.cluster.internal;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A node process reduced to its membership (for {@link NodeProcessExitTest} and {@link FailoverProcessTest}): joins,
 * prints JOINED, leaves when a line arrives on stdin, prints LEFT and returns from main: the JVM must then end on its
 * own. Arguments: ZooKeeper, cluster, node id[, session timeout in ms (4000)[, port (7100)]].
 */
public final class NodeProcessMain {

    private NodeProcessMain() {
    }

    public static void main(String[] args) throws Exception {
        HelixMembership membership = HelixMembership.join(
                new ClusterSettings(args[0], args[1], args[2], "127.0.0.1",
                        args.length > 4 ? Integer.parseInt(args[4]) : 7100,
                        Duration.ofMillis(args.length > 3 ? Long.parseLong(args[3]) : 4000)),
                new RecordingRoles());
        System.out.println("JOINED");
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        membership.close();
        System.out.println("LEFT");
    }
}
