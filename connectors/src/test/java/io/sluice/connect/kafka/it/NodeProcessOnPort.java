package io.sluice.connect.kafka.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A Sluice node as a child process from receivers/target/sluice-node.jar, on a fixed loopback port
 * so that it can be killed (kill -9) and started again at the same address.
 */
final class NodeProcessOnPort implements AutoCloseable {

    private final Path jar;
    private final Path dir;
    private final int port;
    private final List<String> jvmArgs;
    private final List<String> nodeArgs;
    private Process process;

    NodeProcessOnPort(Path dir) throws IOException {
        this(dir, List.of("-Xmx384m"));
    }

    NodeProcessOnPort(Path dir, List<String> jvmArgs) throws IOException {
        this(dir, jvmArgs, List.of());
    }

    /** @param nodeArgs arguments of the node's main (e.g. --config node.json) */
    NodeProcessOnPort(Path dir, List<String> jvmArgs, List<String> nodeArgs) throws IOException {
        this.jvmArgs = List.copyOf(jvmArgs);
        this.nodeArgs = List.copyOf(nodeArgs);
        String prop = System.getProperty("sluice.node.jar", "../receivers/target/sluice-node.jar");
        this.jar = Path.of(prop).toAbsolutePath().normalize();
        if (!Files.exists(jar)) {
            throw new IllegalStateException(jar + " is missing: build it with ./mvnw -B -q -DskipTests package");
        }
        this.dir = Files.createDirectories(dir);
        this.port = KafkaBroker.freePort();
    }

    /** CPU time the node process has used so far, in nanoseconds (0 if the OS does not tell). */
    long cpuNanos() {
        return process.toHandle().info().totalCpuDuration().map(java.time.Duration::toNanos).orElse(0L);
    }

    String address() {
        return "127.0.0.1:" + port;
    }

    void start() throws Exception {
        Path log = dir.resolve("node-" + System.nanoTime() + ".log");
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        cmd.addAll(jvmArgs);
        cmd.addAll(List.of("-XX:+UseSerialGC", "-jar", jar.toString(), "--port", Integer.toString(port)));
        cmd.addAll(nodeArgs);
        process = new ProcessBuilder(cmd).redirectError(log.toFile()).start();
        Process p = process;
        CompletableFuture<Boolean> listening = CompletableFuture.supplyAsync(() -> {
            try {
                BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
                String line;
                while ((line = out.readLine()) != null) {
                    if (line.contains("sluice-node listening on")) {
                        Thread drain = new Thread(() -> {
                            try {
                                while (out.readLine() != null) {
                                    // discard
                                }
                            } catch (IOException e) {
                                // ended
                            }
                        });
                        drain.setDaemon(true);
                        drain.start();
                        return true;
                    }
                }
                return false;
            } catch (IOException e) {
                return false;
            }
        });
        if (!Boolean.TRUE.equals(listening.get(60, TimeUnit.SECONDS))) {
            process.destroyForcibly();
            throw new IllegalStateException("the node did not start: " + Files.readString(log));
        }
    }

    /** kill -9. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM (the node drains and exits, writing a JFR recording if it makes one), kill -9 after 10 s. */
    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                kill();
            }
        }
    }
}
