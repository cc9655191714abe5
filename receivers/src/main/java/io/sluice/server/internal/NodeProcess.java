package io.sluice.server.internal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A node started as a child process from {@code sluice-node.jar} (for tests and tools such as
 * {@code sluice-load --start-node}), listening on a free loopback port; its log goes to a file.
 * Stopped with SIGTERM, or killed with kill -9.
 */
public final class NodeProcess implements AutoCloseable {

    private static final Pattern LISTENING = Pattern.compile("sluice-node listening on (\\S+):(\\d+)");

    private final Process process;
    private final int port;
    private final Path log;
    /** Every line the node printed on stdout, kept (tests search the node's whole output). */
    private final StringBuffer stdout;

    private NodeProcess(Process process, int port, Path log, StringBuffer stdout) {
        this.process = process;
        this.port = port;
        this.log = log;
        this.stdout = stdout;
    }

    /**
     * Starts a node and waits (at most 60 s) until it listens.
     *
     * @param jar        the node's jar
     * @param classPath  more class path entries (custom receivers), may be empty
     * @param configJson the node's config file content
     * @param jvmArgs    JVM arguments (heap, system properties)
     * @param workDir    where its config file and log go
     * @throws IllegalStateException if the jar is missing or the node does not listen in time (with its log)
     */
    public static NodeProcess start(Path jar, List<Path> classPath, String configJson, List<String> jvmArgs,
                                    Path workDir) {
        return start(jar, classPath, configJson, jvmArgs, workDir, List.of());
    }

    /**
     * {@link #start(Path, List, String, List, Path)} with a command the java command line is appended to, which
     * must exec it in its own process (e.g. {@code prlimit --fsize=N --}: the node then meets real write errors).
     */
    public static NodeProcess start(Path jar, List<Path> classPath, String configJson, List<String> jvmArgs,
                                    Path workDir, List<String> commandPrefix) {
        return start(jar, classPath, configJson, jvmArgs, workDir, commandPrefix, 0);
    }

    /**
     * {@link #start(Path, List, String, List, Path, List)} on a given port (0 = any free one): a node restarted on
     * its old port keeps its address, as a cluster member restarted by an operator would.
     */
    public static NodeProcess start(Path jar, List<Path> classPath, String configJson, List<String> jvmArgs,
                                    Path workDir, List<String> commandPrefix, int port) {
        if (!Files.exists(jar)) {
            throw new IllegalStateException(jar.toAbsolutePath() + " is missing: build it with"
                    + " ./mvnw -B -q -DskipTests package");
        }
        try {
            Path dir = Files.createDirectories(workDir);
            Path config = Files.createTempFile(dir, "node", ".json");
            Files.writeString(config, configJson);
            Path log = Files.createTempFile(dir, "node", ".log");
            List<String> command = new ArrayList<>(commandPrefix);
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(jvmArgs);
            command.add("-cp");
            StringBuilder cp = new StringBuilder(jar.toAbsolutePath().toString());
            for (Path p : classPath) {
                cp.append(java.io.File.pathSeparator).append(p.toAbsolutePath());
            }
            command.add(cp.toString());
            command.add("io.sluice.server.internal.NodeMain");
            command.add("--config");
            command.add(config.toString());
            command.add("--port");
            command.add(Integer.toString(port));
            Process process = new ProcessBuilder(command).redirectError(log.toFile()).start();
            StringBuffer stdout = new StringBuffer();
            CompletableFuture<Integer> listening = CompletableFuture.supplyAsync(() -> readPort(process, stdout));
            try {
                return new NodeProcess(process, listening.get(60, TimeUnit.SECONDS), log, stdout);
            } catch (Exception e) {
                process.destroyForcibly();
                throw new IllegalStateException("the node did not start: " + e + "; its log: " + Files.readString(log), e);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int readPort(Process process, StringBuffer stdout) {
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        try {
            String line;
            while ((line = out.readLine()) != null) {
                stdout.append(line).append('\n');
                Matcher m = LISTENING.matcher(line);
                if (m.find()) {
                    Thread drain = new Thread(() -> drain(out, stdout), "node-stdout");
                    drain.setDaemon(true);
                    drain.start();
                    return Integer.parseInt(m.group(2));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new IllegalStateException("the node exited before it listened (exit " + process.exitValue() + ")");
    }

    private static void drain(BufferedReader out, StringBuffer stdout) {
        try {
            String line;
            while ((line = out.readLine()) != null) {
                stdout.append(line).append('\n');
            }
        } catch (IOException e) {
            // the process ended
        }
    }

    public int port() {
        return port;
    }

    public String address() {
        return "127.0.0.1:" + port;
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** SIGTERM, then waits for the exit (at most 60 s). @return the exit code */
    public int stop() {
        process.destroy();
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("the node did not stop within 60 s of SIGTERM");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        return process.exitValue();
    }

    /** kill -9. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** Everything the node wrote so far: stdout, then its log (stderr). */
    public String output() {
        return stdout + log();
    }

    /** The node's log (its stderr). */
    public String log() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
    }
}
