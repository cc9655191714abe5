package io.sluice.samples.load;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;

/**
 * Runs each mode of a {@link LoadSettings} in a JVM of its own ({@link ChildJvm}), as JMH forks
 * each benchmark: in one JVM the mode that ran first paid for the heap's first touch and the JIT's
 * work on paths every mode shares, and came out 20-30% slower whichever it was (issue 30). With
 * {@code repeat} the runs are interleaved (A B C A B C ...). Each child warms up and times its one
 * mode as an in-process run does ({@link LoadRun}), prints its progress, which is passed on as it
 * comes, and reports its figures in a result line ({@link ForkProtocol}).
 */
final class ForkedRun {

    /** Lines of a failed child's standard error shown with the failure. */
    static final int STDERR_TAIL = 20;

    private final LoadSettings settings;
    private final String connect;
    private final ChildJvm jvm;
    private final ProgressReporter.Style style;
    private final boolean samples;
    private final PrintWriter out;
    private final PrintWriter err;

    /**
     * @param connect the remote node the modes load, or {@code null} for an embedded node in each child
     * @param style   how the children show their progress
     * @param samples whether the children record progress samples (for {@code --plot})
     * @param out     where the children's progress goes
     * @param err     where what a successful child wrote to its standard error goes, once it ended
     */
    ForkedRun(LoadSettings settings, String connect, ChildJvm jvm, ProgressReporter.Style style, boolean samples,
              PrintWriter out, PrintWriter err) {
        this.settings = settings;
        this.connect = connect;
        this.jvm = jvm;
        this.style = style;
        this.samples = samples;
        this.out = out;
        this.err = err;
    }

    /** A child JVM failed: it exited with a status other than 0, or printed no result line. */
    static final class ForkFailedException extends RuntimeException {
        private final int exitCode;

        ForkFailedException(String message, int exitCode) {
            super(message);
            this.exitCode = exitCode;
        }

        /** The child's exit status (2: it refused its options). */
        int exitCode() {
            return exitCode;
        }
    }

    /**
     * Runs every job {@code repeat} times, interleaved.
     *
     * @return every run of each job, in the jobs' order
     * @throws ForkFailedException if a child fails, with its exit status and the tail of its standard error
     */
    List<ModeRuns> run() {
        List<ModeJob> jobs = ModeJob.of(settings);
        List<List<ModeResult>> runs = new ArrayList<>();
        for (int i = 0; i < jobs.size(); i++) {
            runs.add(new ArrayList<>());
        }
        List<int[]> order = ModeJob.interleaved(jobs.size(), settings.repeat());
        for (int i = 0; i < order.size(); i++) {
            ModeJob job = jobs.get(order.get(i)[0]);
            int run = order.get(i)[1];
            String what = settings.repeat() == 1 ? job.label()
                    : String.format(Locale.ROOT, "%s, run %d of %d", job.label(), run + 1, settings.repeat());
            runs.get(order.get(i)[0]).addAll(runChild(childArgs(job), String.format(Locale.ROOT,
                    "[%d/%d] %s", i + 1, order.size(), what)));
        }
        return runs.stream().map(ModeRuns::new).toList();
    }

    /** The options of the child that runs one job once (the options' own names: one definition). */
    List<String> childArgs(ModeJob job) {
        List<String> args = new ArrayList<>(List.of(LoadGenerator.FORK_CHILD,
                "--entries", Long.toString(settings.entries()),
                "--threads", Integer.toString(settings.threads()),
                "--modes", job.mode().cliName(),
                "--values", job.kind() == null ? ValueKind.BINARY.cliName() : job.kind().cliName(),
                "--value-size", Integer.toString(settings.valueSize()),
                "--collision-ratio", Double.toString(settings.collisionRatio()),
                "--buffer-size", Integer.toString(settings.bufferSize()),
                "--flush-interval", Long.toString(settings.flushIntervalMs()),
                "--parallel-ops", Integer.toString(settings.parallelOps()),
                "--partitions", Integer.toString(settings.partitions()),
                "--warmup", Long.toString(settings.warmupEntries()),
                "--repeat", "1",
                LoadGenerator.FORK_PROGRESS, style.name()));
        if (settings.pageSize() != null) {
            args.addAll(List.of("--page-size", settings.pageSize().toString()));
        }
        if (connect != null) {
            args.addAll(List.of("--connect", connect));
        }
        if (samples) {
            args.add(LoadGenerator.FORK_SAMPLES);
        }
        return args;
    }

    private List<ModeResult> runChild(List<String> args, String what) {
        Process child;
        try {
            child = new ProcessBuilder(jvm.command(args)).start();
        } catch (IOException e) {
            throw new ForkFailedException("cannot start a JVM for " + what + ": " + e.getMessage(), -1);
        }
        // A parent stopped (Ctrl-C, SIGTERM) stops its running child instead of leaving it loading.
        Thread stopChild = new Thread(child::destroyForcibly, "sluice-load-stop-child");
        Runtime.getRuntime().addShutdownHook(stopChild);
        try {
            return awaitChild(child, what);
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(stopChild);
            } catch (IllegalStateException shuttingDown) {
                // The hook runs anyway.
            }
        }
    }

    private List<ModeResult> awaitChild(Process child, String what) {
        try {
            child.getOutputStream().close();
        } catch (IOException e) {
            // The child reads nothing from us: a pipe that will not close changes nothing.
        }
        if (style != ProgressReporter.Style.NONE) {
            out.printf(Locale.ROOT, "%s: in a JVM of its own (pid %d), warming up%n", what, child.pid());
            out.flush();
        }
        StderrTail stderr = new StderrTail();
        Thread errors = new Thread(() -> stderr.read(child), "sluice-load-child-stderr");
        errors.setDaemon(true);
        errors.start();
        List<ModeResult> results;
        String unreadable = null;
        try (BufferedReader stdout = new BufferedReader(
                new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            results = ForkProtocol.relay(stdout, out);
        } catch (IOException | IllegalArgumentException e) {
            results = List.of();
            unreadable = e.getMessage();
            child.destroy();
        }
        int exit;
        try {
            exit = child.waitFor();
            errors.join();
        } catch (InterruptedException e) {
            child.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new ForkFailedException("interrupted while waiting for the JVM of " + what, -1);
        }
        if (exit != 0 || results.isEmpty() || unreadable != null) {
            // An unreadable result first: the child was stopped for it, so its status says nothing.
            String why = unreadable != null ? "printed an unreadable result: " + unreadable
                    : exit != 0 ? "exited with status " + exit : "printed no result line";
            List<String> tail = stderr.lines();
            throw new ForkFailedException(String.format(Locale.ROOT, "the JVM of %s (pid %d) %s; %s", what,
                    child.pid(), why, tail.isEmpty() ? "its standard error was empty"
                            : "the end of its standard error:" + stderr.dropped() + System.lineSeparator()
                            + String.join(System.lineSeparator(), tail)), unreadable == null && exit != 0 ? exit : -1);
        }
        List<String> warnings = stderr.lines();
        if (!warnings.isEmpty()) {
            // A child that reported its figures may still have warned (e.g. a slow store, memory).
            err.println("the JVM of " + what + " wrote to its standard error:" + stderr.dropped());
            warnings.forEach(err::println);
            err.flush();
        }
        return results;
    }

    /** The last {@value #STDERR_TAIL} lines of a child's standard error, read to its end by one thread. */
    private static final class StderrTail {
        private final Deque<String> tail = new ArrayDeque<>();
        private long dropped;

        void read(Process child) {
            try (BufferedReader lines = new BufferedReader(
                    new InputStreamReader(child.getErrorStream(), StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    synchronized (this) {
                        tail.addLast(line);
                        if (tail.size() > STDERR_TAIL) {
                            tail.removeFirst();
                            dropped++;
                        }
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        synchronized List<String> lines() {
            return List.copyOf(tail);
        }

        /** Says how many earlier lines were left out, if any. */
        synchronized String dropped() {
            return dropped == 0 ? "" : " (" + dropped + " earlier lines left out)";
        }
    }
}
