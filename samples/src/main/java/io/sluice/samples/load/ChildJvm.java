package io.sluice.samples.load;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The JVM a forked mode runs in, as JMH forks a benchmark: the same {@code java} binary and flags
 * as this JVM, the same class path (the running jar), and a heap of a fixed size, touched before
 * {@code main} starts ({@code -Xms} = {@code -Xmx}, {@code -XX:+AlwaysPreTouch}), so that no timed
 * load pays for growing or first touching the heap.
 *
 * @param java      the {@code java} binary
 * @param flags     this JVM's flags passed on (heap size, pre-touch and debugger flags left out)
 * @param heap      the heap's size, as {@code -Xmx} takes it (e.g. {@code 2g})
 * @param classPath the class path
 */
record ChildJvm(String java, List<String> flags, String heap, String classPath) {

    /**
     * The heap of a forked mode when this JVM was started without {@code -Xmx}. The store is off-heap:
     * the heap holds the streamer's buffers and the values in flight (a 256 MiB heap loads 2,000,000
     * entries), and pre-touching it costs each fork about 0.5 s of system time per GiB (0.48 s for 1g,
     * 0.83 s for 2g on the 2-core machine), so 1 GiB leaves the young generation room without making
     * the README's run wait.
     */
    static final String DEFAULT_HEAP = "1g";

    ChildJvm {
        flags = List.copyOf(flags);
    }

    /** The JVM that runs this one's forked modes, with {@code heap} if given, else this JVM's -Xmx or {@link #DEFAULT_HEAP}. */
    static ChildJvm likeThisOne(String heap) {
        List<String> arguments = ManagementFactory.getRuntimeMXBean().getInputArguments();
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        return new ChildJvm(java, inherited(arguments), heap != null ? heap : heapOf(arguments),
                System.getProperty("java.class.path"));
    }

    /**
     * This JVM's flags that a child keeps: all but those that set the heap's size or pre-touch (the
     * child's own replace them) and a debugger agent (its port is taken by this JVM).
     */
    static List<String> inherited(List<String> arguments) {
        List<String> kept = new ArrayList<>();
        for (String a : arguments) {
            if (a.startsWith("-Xms") || a.startsWith("-Xmx") || a.startsWith("-XX:InitialHeapSize=")
                    || a.startsWith("-XX:MaxHeapSize=") || a.endsWith("AlwaysPreTouch")
                    || a.startsWith("-agentlib:jdwp") || a.startsWith("-Xrunjdwp")) {
                continue;
            }
            kept.add(a);
        }
        return kept;
    }

    /** The size of the last {@code -Xmx} among {@code arguments}, else {@link #DEFAULT_HEAP}. */
    static String heapOf(List<String> arguments) {
        String heap = DEFAULT_HEAP;
        for (String a : arguments) {
            if (a.startsWith("-Xmx")) {
                heap = a.substring(4);
            }
        }
        return heap;
    }

    /** Whether {@code heap} is a size -Xmx takes: digits and an optional k, m, g or t. */
    static boolean isHeapSize(String heap) {
        return heap.toLowerCase(Locale.ROOT).matches("[1-9][0-9]*[kmgt]?");
    }

    /** The command that runs {@link LoadGenerator} in this JVM with {@code args}. */
    List<String> command(List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(java);
        command.addAll(flags);
        command.add("-Xms" + heap);
        command.add("-Xmx" + heap);
        command.add("-XX:+AlwaysPreTouch");
        command.add("-cp");
        command.add(classPath);
        command.add(LoadGenerator.class.getName());
        command.addAll(args);
        return command;
    }

    /** How the header describes it. */
    String describe() {
        return "-Xms" + heap + " -Xmx" + heap + " -XX:+AlwaysPreTouch";
    }
}
