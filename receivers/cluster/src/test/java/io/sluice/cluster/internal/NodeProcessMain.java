package io.sluice.cluster.internal;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * A node process reduced to its membership (for {@link NodeProcessExitTest}): joins, prints JOINED, leaves when a
 * line arrives on stdin, prints LEFT and returns from main: the JVM must then end on its own.
 */
public final class NodeProcessMain {

    private NodeProcessMain() {
    }

    public static void main(String[] args) throws Exception {
        HelixMembership membership = HelixMembership.join(
                new ClusterSettings(args[0], args[1], args[2], "127.0.0.1", 7100, Duration.ofSeconds(4)),
                new RecordingRoles());
        System.out.println("JOINED");
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        membership.close();
        System.out.println("LEFT");
    }
}
