package io.sluice.e2e;

import io.sluice.server.internal.NodeProcess;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Says where a bounded test is stuck before its bound ends it. The test names its phase as it goes; shortly before
 * the bound the watch prints every thread of this JVM and of the node process the test talks to ({@code jcmd
 * Thread.print}); the phase and the stuck thread's top frames go on one line into the test's failure message, which
 * a CI summary shows where a timeout alone names no wait.
 */
final class HangWatch implements AutoCloseable {

    private final ScheduledExecutorService timer;
    private volatile String phase = "starting";

    private HangWatch(ScheduledExecutorService timer) {
        this.timer = timer;
    }

    /** Dumps after {@code after} unless closed first; {@code node} gives the node of the moment (may give null). */
    static HangWatch start(String test, Duration after, Supplier<NodeProcess> node) {
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "hang-watch");
            t.setDaemon(true);
            return t;
        });
        HangWatch watch = new HangWatch(timer);
        timer.schedule(() -> watch.dump(test, after, node.get()), after.toMillis(), TimeUnit.MILLISECONDS);
        return watch;
    }

    /** What the test is doing now. */
    void phase(String now) {
        phase = now;
    }

    /**
     * The phase, and where the test's thread was when {@code assertTimeoutPreemptively} gave up (the frames JUnit
     * attaches to its timeout), on one line: for a failure message.
     */
    String where(Throwable failure) {
        StringBuilder line = new StringBuilder("while ").append(phase);
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t.getClass().getSimpleName().equals("ExecutionTimeoutException")) {
                line.append(" (at");
                int ours = 0;
                StackTraceElement[] frames = t.getStackTrace();
                for (int i = 0; i < frames.length && i < 12 && ours < 2; i++) {
                    String cls = frames[i].getClassName();
                    ours += cls.startsWith("io.sluice.e2e.") ? 1 : 0;
                    line.append(i == 0 ? " " : " < ").append(cls.substring(cls.lastIndexOf('.') + 1)).append('.')
                            .append(frames[i].getMethodName()).append(':').append(frames[i].getLineNumber());
                }
                line.append(')');
            }
        }
        return line.toString();
    }

    private void dump(String test, Duration after, NodeProcess node) {
        System.out.println(test + " still running after " + after.toSeconds() + " s, while " + phase + "; its threads:");
        for (Map.Entry<Thread, StackTraceElement[]> t : Thread.getAllStackTraces().entrySet()) {
            System.out.println("\"" + t.getKey().getName() + "\" " + t.getKey().getState());
            for (StackTraceElement frame : t.getValue()) {
                System.out.println("    at " + frame);
            }
        }
        if (node != null && node.isAlive()) {
            System.out.println("the node's threads (pid " + node.pid() + "):");
            try {
                Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                        Long.toString(node.pid()), "Thread.print").redirectErrorStream(true).start();
                String out = new String(jcmd.getInputStream().readAllBytes());
                jcmd.waitFor(30, TimeUnit.SECONDS);
                System.out.println(out);
            } catch (Exception e) {
                System.out.println("(jcmd failed: " + e + ")");
            }
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
