package io.sluice.e2e;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A class data sharing archive of {@code sluice-node.jar} (AppCDS), made once per jar and JDK, for the node processes
 * the tests start: such a node maps the classes of its start-up from the archive instead of loading, verifying and
 * linking them from the jar, which halves the CPU a start takes (about 1.4 s to 0.8 s on this machine), and CI
 * starts some hundred nodes. The code the nodes run is the same: the archive holds the jar's classes as parsed, and
 * the JIT is untouched.
 * <p>
 * The archive is made by starting the node once (no cluster) with {@code -XX:ArchiveClassesAtExit} and stopping it
 * with SIGTERM; it lies next to the jar, named by the JDK's version and the jar's size and time, so a rebuilt jar or
 * another JDK gets its own. Should anything fail, the nodes start without it, as before. Several test JVMs making it
 * at once each write their own file and the last rename wins. {@code -Dsluice.node.cds=false} starts nodes without it.
 */
public final class NodeClassArchive {

    private static final boolean ENABLED = Boolean.parseBoolean(System.getProperty("sluice.node.cds", "true"));
    private static final long MAKE_TIMEOUT_SECONDS = 60;

    private static Path made;
    private static boolean tried;

    private NodeClassArchive() {
    }

    /**
     * The JVM arguments that let a node started from {@code jar} (first on its class path) use the archive, making
     * it first if there is none: empty if it cannot be had.
     */
    public static synchronized List<String> jvmArgs(Path jar) {
        if (!ENABLED) {
            return List.of();
        }
        if (!tried) {
            tried = true;
            made = archive(jar.toAbsolutePath());
        }
        // -Xlog:cds=off: were the archive unusable after all, the node says nothing of it on its output.
        return made == null ? List.of() : List.of("-XX:SharedArchiveFile=" + made, "-Xlog:cds=off");
    }

    private static Path archive(Path jar) {
        try {
            String name = "sluice-node-" + Runtime.version().toString().replaceAll("[^0-9A-Za-z.+-]", "_") + "-"
                    + Files.size(jar) + "-" + Files.getLastModifiedTime(jar).toMillis() + ".jsa";
            Path archive = jar.resolveSibling(name);
            if (Files.exists(archive) && Files.size(archive) > 0) {
                return archive;
            }
            long start = System.nanoTime();
            Path dir = Files.createDirectories(jar.resolveSibling("node-class-archive"));
            Path partial = Files.createTempFile(dir, "dump", ".jsa");
            Files.delete(partial); // the JVM writes it at its exit
            Path config = Files.createTempFile(dir, "node", ".json");
            Files.writeString(config, "{\"dataRegionInitialSize\": \"16m\", \"dataRegionMaxSize\": \"64m\"}");
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
        } catch (IOException e) {
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
