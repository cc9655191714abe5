package io.sluice.samples.load;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import io.sluice.server.internal.NodeProcess;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * {@code sluice-load}: loads StockOrder entries into an embedded Sluice node in several modes side
 * by side, each into a fresh store, and prints a table of entries/s with every load verified.
 *
 * <p>Each mode runs in a JVM of its own ({@link ForkedRun}) unless {@code --no-fork}.
 *
 * <p>Exit codes: 0 when every mode loaded and verified, 1 when a mode lost entries, read back wrong
 * values or failed, 2 for invalid options, 3 when a mode's JVM failed (its standard error's end is shown).
 */
@Command(name = "sluice-load", mixinStandardHelpOptions = true, sortOptions = false,
        version = "sluice-load 0.1.0",
        description = {"Loads StockOrder entries (Long key, 11-field order value) into an embedded Sluice node,",
                "in each mode into a fresh cache, verifies every load and prints entries/s per mode."})
public final class LoadGenerator implements Callable<Integer> {

    /** Exit code of a run in which a mode lost entries, read back wrong values, or failed. */
    public static final int EXIT_NOT_VERIFIED = 1;
    /** Exit code of a run in which a mode's JVM exited with an error or reported no result. */
    public static final int EXIT_FORK_FAILED = 3;
    /** Hidden options of a forked mode's JVM: run the one mode and report it ({@link ForkProtocol}). */
    static final String FORK_CHILD = "--fork-child";
    static final String FORK_PROGRESS = "--fork-progress";
    static final String FORK_SAMPLES = "--fork-samples";
    /** Largest --entries. */
    static final long MAX_ENTRIES = 1_000_000_000L;
    /** Largest --value-size: 16 MiB. */
    static final int MAX_VALUE_SIZE = 16 << 20;

    @Spec
    private CommandSpec spec;

    @Option(names = "--entries", defaultValue = "2000000", paramLabel = "N",
            description = "Entries each mode loads (default: ${DEFAULT-VALUE}).")
    long entries;

    @Option(names = "--threads", paramLabel = "N",
            description = "Producer threads (default: the available processors).")
    Integer threads;

    @Option(names = "--modes", split = ",", defaultValue = "all", paramLabel = "MODE",
            description = "Modes to run, comma-separated, or 'all' (default): raw, put, putAll, "
                    + "streamer-isolated, streamer-individual, streamer-batched.")
    List<String> modes;

    @Option(names = "--values", defaultValue = "binary", paramLabel = "KIND",
            description = "How values are made: binary (a reused builder per thread), pojo (StockOrder records), "
                    + "or both (default: ${DEFAULT-VALUE}).")
    String values;

    @Option(names = "--value-size", defaultValue = "0", paramLabel = "BYTES",
            description = "Pad each value with a 'pad' field to this encoded size; 0 = natural size (default).")
    int valueSize;

    @Option(names = "--collision-ratio", defaultValue = "0", paramLabel = "R",
            description = "Share of entries that repeat an earlier key, 0 to 1 (default: ${DEFAULT-VALUE}).")
    double collisionRatio;

    @Option(names = "--buffer-size", defaultValue = "512", paramLabel = "N",
            description = "Streamer entries per partition buffer (perPartitionBufferSize), and the putAll batch "
                    + "size (default: ${DEFAULT-VALUE}).")
    int bufferSize;

    @Option(names = "--flush-interval", defaultValue = "1000", paramLabel = "MS",
            description = "Streamer auto-flush interval in ms, 0 = off (default: ${DEFAULT-VALUE}).")
    long flushIntervalMs;

    @Option(names = "--parallel-ops", defaultValue = "8", paramLabel = "N",
            description = "Streamer requests in flight per node (default: ${DEFAULT-VALUE}).")
    int parallelOps;

    @Option(names = "--page-size", paramLabel = "BYTES",
            description = "Node page size: a power of two from 1024 to 16384 (default: the node's, 4096).")
    Integer pageSize;

    @Option(names = "--partitions", defaultValue = "1024", paramLabel = "N",
            description = "Partitions of each cache (default: ${DEFAULT-VALUE}).")
    int partitions;

    @Option(names = "--warmup", defaultValue = "1000000", paramLabel = "N",
            description = "Entries per warm-up round: before each mode is timed, rounds of N entries go into "
                    + "throw-away stores until a round's rate is within 10%% of the previous one's (at most 6), "
                    + "so that every mode runs in the JVM's steady state; at most --entries; 0 = none "
                    + "(default: ${DEFAULT-VALUE}).")
    long warmup;

    @Option(names = "--repeat", defaultValue = "1", paramLabel = "N",
            description = "Time each mode N times, each into a fresh store (each in a JVM of its own, modes "
                    + "interleaved: A B C A B C ...), and show the median and the range (default: ${DEFAULT-VALUE}).")
    int repeat;

    @Option(names = "--no-fork",
            description = "Run every mode in this JVM, one after the other (for debugging: the modes that run "
                    + "later benefit from the earlier ones' warm JIT and heap).")
    boolean noFork;

    @Option(names = "--fork-heap", paramLabel = "SIZE",
            description = "Heap of each mode's JVM, fixed (-Xms = -Xmx) and pre-touched (default: this JVM's -Xmx, "
                    + "else " + ChildJvm.DEFAULT_HEAP + ").")
    String forkHeap;

    @Option(names = FORK_CHILD, hidden = true)
    boolean forkChild;

    @Option(names = FORK_PROGRESS, hidden = true)
    ProgressReporter.Style forkProgress;

    @Option(names = FORK_SAMPLES, hidden = true)
    boolean forkSamples;

    @Option(names = "--connect", paramLabel = "HOST:PORT[,HOST:PORT...]",
            description = "Load a remote node (sluice-node.jar) instead of an embedded one; several addresses: the"
                    + " members of a cluster (any one bootstraps, the client routes by the cluster's map).")
    String connect;

    @Option(names = "--start-node",
            description = "Start a node process from --node-jar and run every node mode twice, embedded and remote,"
                    + " side by side (client and node share this machine).")
    boolean startNode;

    @Option(names = "--node-jar", paramLabel = "FILE",
            description = "The node's jar for --start-node (default: receivers/target/sluice-node.jar).")
    Path nodeJar;

    @Option(names = "--csv", paramLabel = "FILE", description = "Also write the result table as CSV.")
    Path csv;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the result table as JSON.")
    Path json;

    @Option(names = "--plot", paramLabel = "FILE",
            description = "Also draw the run's charts: entries/s per mode (every run), and entries/s over time per "
                    + "run (progress sampled every " + ProgressReporter.SAMPLE_MILLIS + " ms, --no-progress or not); "
                    + "PNG for a file named .png, else SVG.")
    Path plot;

    @Option(names = "--no-progress", description = "Print no progress while loading, only the table.")
    boolean noProgress;

    private final NodeLauncher nodes;
    private LoadRunHook hook = run -> { };

    /** A generator that loads embedded nodes. */
    public LoadGenerator() {
        this(new EmbeddedNodeLauncher());
    }

    LoadGenerator(NodeLauncher nodes) {
        this.nodes = nodes;
    }

    /** The launcher of the node modes: the remote node of --connect, else the one given (embedded). */
    private NodeLauncher launcher() {
        return connect != null ? new RemoteNodeLauncher(connect) : nodes;
    }

    /** Runs {@code sluice-load} and exits with its exit code. */
    public static void main(String[] args) {
        System.exit(commandLine(new LoadGenerator()).execute(args));
    }

    /** The picocli command line of a generator. */
    static CommandLine commandLine(LoadGenerator generator) {
        return new CommandLine(generator).setCaseInsensitiveEnumValuesAllowed(true);
    }

    /** Test hook: adjusts the run before it starts. */
    void hook(LoadRunHook hook) {
        this.hook = hook;
    }

    /** Adjusts a {@link LoadRun} before it starts (tests). */
    interface LoadRunHook {
        void apply(LoadRun run);
    }

    @Override
    public Integer call() throws IOException {
        LoadSettings settings = validate();
        PrintWriter out = spec.commandLine().getOut();
        if (forkChild) {
            try {
                return runAsChild(settings, out);
            } catch (ValuePadding.ValueSizeException e) {
                // The parent shows the end of this JVM's standard error: the message, not the usage under it.
                spec.commandLine().getErr().println(e.getMessage());
                spec.commandLine().getErr().flush();
                return CommandLine.ExitCode.USAGE;
            }
        }
        ProgressReporter.Style style = ProgressReporter.Style.detect(noProgress);
        ChildJvm jvm = noFork ? null : ChildJvm.likeThisOne(forkHeap);
        String header = header(settings, jvm);
        out.println(header);
        if (settings.modes().stream().anyMatch(LoadMode::needsNode)
                && io.sluice.pagestore.internal.page.ChunkAllocator.regionsUseDirectMemory()) {
            String memory = DirectMemory.warning(LoadRun.regionBytes(settings, settings.keyPlan()), DirectMemory.limit());
            if (memory != null) {
                out.println(memory);
            }
        }
        out.flush();
        List<ModeRuns> results;
        List<String> ratios = List.of();
        try {
            if (startNode) {
                results = new ArrayList<>(runLoads(settings, null, jvm, out, style));
                List<ModeRuns> remote = runOnNodeProcess(settings, jvm, out, style);
                ratios = SideBySide.ratios(results, remote);
                results.addAll(remote);
            } else {
                results = runLoads(settings, connect, jvm, out, style);
            }
        } catch (ValuePadding.ValueSizeException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        } catch (ForkedRun.ForkFailedException e) {
            out.flush();
            spec.commandLine().getErr().println("sluice-load: " + e.getMessage());
            spec.commandLine().getErr().flush();
            return e.exitCode() == CommandLine.ExitCode.USAGE ? CommandLine.ExitCode.USAGE : EXIT_FORK_FAILED;
        }
        List<ResultRow> rows = ResultTable.rows(results);
        out.println();
        out.print(ResultTable.format(rows));
        for (String ratio : ratios) {
            out.println(ratio);
        }
        if (csv != null) {
            ResultFiles.writeCsv(csv, rows);
        }
        if (json != null) {
            ResultFiles.writeJson(json, settings, rows);
        }
        if (plot != null) {
            LoadPlot.write(plot, header, results);
            out.println("plot written to " + plot);
        }
        long failed = rows.stream().filter(r -> !r.verified()).count();
        if (failed > 0) {
            out.printf(Locale.ROOT, "%d of %d loads did not verify: see above%n", failed, rows.size());
        }
        out.flush();
        return failed > 0 ? EXIT_NOT_VERIFIED : 0;
    }

    /** A forked mode's JVM: runs its one mode in-process and reports every run in a result line. */
    private int runAsChild(LoadSettings settings, PrintWriter out) {
        ProgressReporter.Style style = forkProgress != null ? forkProgress : ProgressReporter.Style.NONE;
        ProgressReporter progress = new ProgressReporter(out, style, ProgressReporter.interval(style),
                forkSamples ? ProgressReporter.SAMPLE_MILLIS : 0);
        LoadRun run = new LoadRun(settings, launcher(), progress);
        hook.apply(run);
        for (ModeRuns mode : run.run()) {
            for (ModeResult result : mode.runs()) {
                out.println(ForkProtocol.line(result));
            }
        }
        out.flush();
        return 0;
    }

    /**
     * Runs the modes: each in a JVM of its own when {@code jvm} is given, else in this one.
     *
     * @param connect the remote node to load, or {@code null} for embedded nodes
     */
    private List<ModeRuns> runLoads(LoadSettings settings, String connect, ChildJvm jvm, PrintWriter out,
                                    ProgressReporter.Style style) {
        if (jvm != null) {
            return new ForkedRun(settings, connect, jvm, style, plot != null, out, spec.commandLine().getErr()).run();
        }
        // --plot samples the progress whether it is shown or not.
        ProgressReporter progress = new ProgressReporter(out, style, ProgressReporter.interval(style),
                plot != null ? ProgressReporter.SAMPLE_MILLIS : 0);
        LoadRun run = new LoadRun(settings, connect != null ? new RemoteNodeLauncher(connect) : nodes, progress);
        hook.apply(run);
        return run.run();
    }

    /** Starts a node process, runs the node modes against it, stops it; its rows are marked remote. */
    private List<ModeRuns> runOnNodeProcess(LoadSettings settings, ChildJvm jvm, PrintWriter out,
                                            ProgressReporter.Style style)
            throws IOException {
        Path jar = nodeJar != null ? nodeJar : Path.of("receivers", "target", "sluice-node.jar");
        long region = 2 * LoadRun.regionBytes(settings, settings.keyPlan()) * (settings.modes().size() + 1);
        String config = String.format(Locale.ROOT, "{\"dataRegionMaxSize\": %d}", region);
        out.println("starting a node process from " + jar + " ...");
        out.flush();
        NodeProcess node = NodeProcess.start(jar, List.of(), config,
                List.of("-Xmx1g", "-XX:MaxDirectMemorySize=" + region), Files.createTempDirectory("sluice-load-node"));
        try {
            out.println("node process listening on " + node.address() + "; loading it remotely");
            out.flush();
            List<LoadMode> nodeModes = settings.modes().stream().filter(LoadMode::needsNode).toList();
            LoadSettings remote = settings.withModes(nodeModes);
            return SideBySide.remote(runLoads(remote, node.address(), jvm, out, style));
        } finally {
            node.stop();
        }
    }

    private String header(LoadSettings s, ChildJvm jvm) {
        String where = jvm != null
                ? "each mode in a JVM of its own (" + jvm.describe() + ")"
                        + (s.repeat() > 1 ? ", modes interleaved" : "")
                : String.format(Locale.ROOT, "every mode in this JVM (--no-fork, max heap %,d MiB)",
                        Runtime.getRuntime().maxMemory() >> 20);
        return String.format(Locale.ROOT,
                "sluice-load: %,d entries per mode, %d producer threads, modes %s, values %s, value size %s, "
                        + "collision ratio %s, warm-up %,d entries, %s, %s; %d processors",
                s.entries(), s.threads(), s.modes().stream().map(LoadMode::cliName).collect(Collectors.joining(",")),
                s.values().stream().map(ValueKind::cliName).collect(Collectors.joining(",")),
                s.valueSize() == 0 ? "natural" : s.valueSize() + " B", s.collisionRatio(), s.warmupEntries(),
                s.repeat() == 1 ? "timed once" : "median of " + s.repeat() + " timed runs", where,
                Runtime.getRuntime().availableProcessors());
    }

    /**
     * Checks every option and makes the run's settings.
     *
     * @throws ParameterException naming the option, its value and the limit
     */
    LoadSettings validate() {
        if (connect != null) {
            checkConnect(connect);
        }
        if (entries < 1 || entries > MAX_ENTRIES) {
            throw invalid("--entries is %,d; it must be between 1 and %,d", entries, MAX_ENTRIES);
        }
        int producerThreads = threads != null ? threads : Math.max(1, Runtime.getRuntime().availableProcessors());
        if (producerThreads < 1 || producerThreads > 1024) {
            throw invalid("--threads is %d; it must be between 1 and 1024", producerThreads);
        }
        if (!(collisionRatio >= 0 && collisionRatio <= 1)) {
            throw invalid("--collision-ratio is %s; it must be between 0 and 1", collisionRatio);
        }
        if (valueSize != 0 && (valueSize < 16 || valueSize > MAX_VALUE_SIZE)) {
            throw invalid("--value-size is %d bytes; it must be 0 (natural size) or between 16 and %d",
                    valueSize, MAX_VALUE_SIZE);
        }
        if (bufferSize < 1 || bufferSize > 1_000_000) {
            throw invalid("--buffer-size is %d; it must be between 1 and 1000000 entries", bufferSize);
        }
        if (flushIntervalMs < 0) {
            throw invalid("--flush-interval is %d ms; it must be 0 (off) or positive", flushIntervalMs);
        }
        if (parallelOps < 1 || parallelOps > 1024) {
            throw invalid("--parallel-ops is %d; it must be between 1 and 1024", parallelOps);
        }
        if (pageSize != null && (pageSize < 1024 || pageSize > 16384 || Integer.bitCount(pageSize) != 1)) {
            throw invalid("--page-size is %d; it must be a power of two from 1024 to 16384", pageSize);
        }
        if (partitions < 1 || partitions > 65_536) {
            throw invalid("--partitions is %d; it must be between 1 and 65536", partitions);
        }
        if (warmup < 0 || warmup > MAX_ENTRIES) {
            throw invalid("--warmup is %,d; it must be between 0 and %,d", warmup, MAX_ENTRIES);
        }
        if (repeat < 1 || repeat > 100) {
            throw invalid("--repeat is %d; it must be between 1 and 100", repeat);
        }
        checkParentExists("--csv", csv);
        checkParentExists("--json", json);
        checkParentExists("--plot", plot);
        if (plot != null && plot.getFileName() != null
                && plot.getFileName().toString().toLowerCase(Locale.ROOT).matches(".*\\.(jpe?g|gif|pdf)")) {
            throw invalid("--plot is %s; sluice-load draws SVG or PNG: name the file .svg or .png", plot);
        }
        if (forkHeap != null && !ChildJvm.isHeapSize(forkHeap)) {
            throw invalid("--fork-heap is '%s'; it must be a size as -Xmx takes it, e.g. 2g or 1536m", forkHeap);
        }
        if (forkHeap != null && noFork) {
            throw invalid("--fork-heap and --no-fork exclude each other: without forks, give this JVM -Xms/-Xmx");
        }
        return new LoadSettings(entries, producerThreads, parseModes(), parseValues(), valueSize, collisionRatio,
                bufferSize, flushIntervalMs, parallelOps, pageSize, partitions,
                // A warm-up longer than the run itself would only cost time.
                Math.min(warmup, entries), repeat);
    }

    private List<LoadMode> parseModes() {
        Set<LoadMode> parsed = new LinkedHashSet<>();
        for (String name : modes) {
            if (name.isBlank()) {
                continue;
            }
            if (name.trim().equalsIgnoreCase("all")) {
                parsed.addAll(List.of(LoadMode.values()));
                continue;
            }
            try {
                parsed.add(LoadMode.fromCliName(name));
            } catch (IllegalArgumentException e) {
                throw invalid("--modes has %s", e.getMessage());
            }
        }
        if (parsed.isEmpty()) {
            throw invalid("--modes is empty; name at least one of: all, %s", LoadMode.cliNames());
        }
        return new ArrayList<>(parsed);
    }

    private List<ValueKind> parseValues() {
        return switch (values.trim().toLowerCase(Locale.ROOT)) {
            case "binary" -> List.of(ValueKind.BINARY);
            case "pojo" -> List.of(ValueKind.POJO);
            case "both" -> List.of(ValueKind.POJO, ValueKind.BINARY);
            default -> throw invalid("--values is '%s'; it must be binary, pojo or both", values);
        };
    }

    private void checkConnect(String addresses) {
        if (startNode) {
            throw invalid("--connect and --start-node exclude each other: --start-node starts its own node");
        }
        for (String address : addresses.split(",", -1)) {
            checkAddress(address.trim());
        }
    }

    private void checkAddress(String address) {
        int colon = address.lastIndexOf(':');
        int port = -1;
        if (colon > 0) {
            try {
                port = Integer.parseInt(address.substring(colon + 1));
            } catch (NumberFormatException e) {
                port = -1;
            }
        }
        if (port < 1 || port > 65_535) {
            throw invalid("--connect is '%s'; it must be HOST:PORT with a port from 1 to 65535", address);
        }
    }

    private void checkParentExists(String option, Path file) {
        if (file == null) {
            return;
        }
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null && !Files.isDirectory(parent)) {
            throw invalid("%s is %s; its directory %s does not exist", option, file, parent);
        }
    }

    private ParameterException invalid(String format, Object... args) {
        return new ParameterException(spec.commandLine(), String.format(Locale.ROOT, format, args));
    }
}
