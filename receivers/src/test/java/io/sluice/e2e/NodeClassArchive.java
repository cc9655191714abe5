package io.sluice.e2e;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Class data sharing archives of {@code sluice-node.jar} (AppCDS), made once per jar, JDK and kind of node, for the
 * node processes the tests start: such a node maps the classes of its start-up from the archive instead of loading,
 * verifying and linking them from the jar. CPU per start on this machine: a node alone 1.5 s, 0.97 s with its archive;
 * a node joining a cluster 3.0 s, 1.7 s with its archive (Helix and ZooKeeper's client are most of its classes, so
 * it gets an archive of its own). The code the nodes run is the same: the archive holds the jar's classes as
 * parsed, and the JIT is untouched.
 * <p>
 * An archive is made by starting the node once with {@code -XX:ArchiveClassesAtExit} and the given config, waiting
 * until it listens and stopping it with SIGTERM; it lies next to the jar, named by the kind, the JDK's version and the
 * jar's size and time, so a rebuilt jar or another JDK gets its own. Should anything fail, the nodes start without
 * it, as before. Several test JVMs making one at once each write their own file and the last rename wins.
 * {@code -Dsluice.node.cds=false} starts nodes without archives.
 */
public final class NodeClassArchive {

    private static final boolean ENABLED = Boolean.parseBoolean(System.getProperty("sluice.node.cds", "true"));
    private static final long MAKE_TIMEOUT_SECONDS = 60;

    private static final Map<String, Optional<Path>> MADE = new HashMap<>();

    private NodeClassArchive() {
    }

    /**
     * The JVM arguments that let a node started from {@code jar} (first on its class path) use the archive of its
     * kind, making it first if there is none: empty if it cannot be had.
     *
     * @param kind       names the archive: nodes of one kind load mostly the same classes
     * @param dumpConfig the config of the node that makes the archive (it must start and listen without a data
     *                   directory of its own; a cluster node must be given a cluster of its own to join)
     */
    public static synchronized List<String> jvmArgs(Path jar, String kind, Supplier<String> dumpConfig) {
        if (!ENABLED) {
            return List.of();
        }
        Optional<Path> archive = MADE.computeIfAbsent(kind, k -> Optional.ofNullable(archive(jar.toAbsolutePath(),
                kind, dumpConfig)));
        // -Xlog:cds=off: were the archive unusable after all, the node says nothing of it on its output.
        return archive.isEmpty() ? List.of() : List.of("-XX:SharedArchiveFile=" + archive.get(), "-Xlog:cds=off");
    }

    private static Path archive(Path jar, String kind, Supplier<String> dumpConfig) {
        try {
            String jdk = Runtime.version().toString().replaceAll("[^0-9A-Za-z.+-]", "_");
            String name = "sluice-node-" + kind + "-" + jdk + "-" + Files.size(jar) + "-"
                    + Files.getLastModifiedTime(jar).toMillis() + ".jsa";
            Path archive = jar.resolveSibling(name);
            if (Files.exists(archive) && Files.size(archive) > 0) {
                return archive;
            }
            long start = System.nanoTime();
            Path dir = Files.createDirectories(jar.resolveSibling("node-class-archive"));
            Path partial = Files.createTempFile(dir, "dump", ".jsa");
            Files.delete(partial); // the JVM writes it at its exit
            Path config = Files.createTempFile(dir, "node", ".json");
            Files.writeString(config, dumpConfig.get());
            Process node = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx256m", "-XX:+UseSerialGC", "-XX:ArchiveClassesAtExit=" + partial, "-Xlog:cds=off",
                    "-cp", jar.toString(), "io.sluice.server.internal.NodeMain", "--config", config.toString(),
                    "--port", "0")
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.PIPE).start();
            try {
                if (!awaitListening(node)) {
                    return null;
                }
                node.destroy(); // SIGTERM: the node stops, the JVM exits normally and writes the archive
                if (!node.waitFor(MAKE_TIMEOUT_SECONDS, TimeUnit.SECONDS) || !Files.exists(partial)
                        || Files.size(partial) == 0) {
                    return null;
                }
            } finally {
                node.destroyForcibly();
            }
            Files.move(partial, archive, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            System.out.printf("node class archive %s made in %.1f s%n", archive.getFileName(),
                    (System.nanoTime() - start) / 1e9);
            return archive;
        } catch (IOException | RuntimeException e) {
            System.out.println("node class archive: none (" + e + "): nodes start from the jar alone");
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Reads the node's output until it listens (then drains the rest on a thread of its own). */
    private static boolean awaitListening(Process node) throws IOException {
        BufferedReader out = new BufferedReader(new InputStreamReader(node.getInputStream(), StandardCharsets.UTF_8));
        Thread watchdog = new Thread(() -> {
            try {
                if (!node.waitFor(MAKE_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                    node.destroyForcibly(); // the read below then ends
                }
            } catch (InterruptedException e) {
                // the archive was made or given up
            }
        }, "node-class-archive-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        try {
            String line;
            while ((line = out.readLine()) != null) {
                if (line.contains("sluice-node listening on")) {
                    Thread drain = new Thread(() -> {
                        try {
                            while (out.readLine() != null) {
                                // the node's log until it exits
                            }
                        } catch (IOException e) {
                            // it exited
                        }
                    }, "node-class-archive-output");
                    drain.setDaemon(true);
                    drain.start();
                    return true;
                }
            }
            return false;
        } finally {
            watchdog.interrupt();
        }
    }
}
