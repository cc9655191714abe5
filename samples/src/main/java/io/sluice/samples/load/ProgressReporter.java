package io.sluice.samples.load;

import java.io.Console;
import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Shows a running load's progress from a reporter thread: on a terminal a bar redrawn in place
 * with {@code \r} a few times per second; otherwise (a pipe, a file, CI) a plain line every few
 * seconds, with no control characters.
 */
final class ProgressReporter {

    /** How progress is shown. */
    enum Style {
        /** A bar redrawn in place. */
        TERMINAL,
        /** A plain line now and then. */
        PLAIN,
        /** Nothing. */
        NONE;

        /** TERMINAL when standard output is a terminal, else PLAIN; NONE when progress is off. */
        static Style detect(boolean progressOff) {
            if (progressOff) {
                return NONE;
            }
            return isTerminal() ? TERMINAL : PLAIN;
        }
    }

    private static final int BAR_WIDTH = 30;
    private static final int TERMINAL_BAR_WIDTH = 12;
    private static final int TERMINAL_WIDTH = 79;

    /** Time between two progress samples recorded for {@code --plot}. */
    static final long SAMPLE_MILLIS = 100;

    private final PrintWriter out;
    private final Style style;
    private final long intervalMillis;
    private final long sampleMillis;

    /**
     * A reporter that records no samples.
     *
     * @param intervalMillis time between two reports; the style's usual interval is {@link #interval(Style)}
     */
    ProgressReporter(PrintWriter out, Style style, long intervalMillis) {
        this(out, style, intervalMillis, 0);
    }

    /**
     * @param intervalMillis time between two reports; the style's usual interval is {@link #interval(Style)}
     * @param sampleMillis   time between two samples recorded in each report's {@link Report#timeline()}
     *                       (whatever the style, {@link Style#NONE} included), e.g. {@link #SAMPLE_MILLIS};
     *                       0 = record none
     */
    ProgressReporter(PrintWriter out, Style style, long intervalMillis, long sampleMillis) {
        if (intervalMillis < 1 || sampleMillis < 0) {
            throw new IllegalArgumentException("interval " + intervalMillis + " ms, sample interval "
                    + sampleMillis + " ms: the interval must be positive and the sample interval not negative");
        }
        this.out = out;
        this.style = style;
        this.intervalMillis = intervalMillis;
        this.sampleMillis = sampleMillis;
    }

    /** 200 ms on a terminal, 2 s otherwise. */
    static long interval(Style style) {
        return style == Style.TERMINAL ? 200 : 2000;
    }

    /**
     * Starts reporting a load. One thread wakes every sample interval (or report interval, if
     * shorter or not recording), records a sample and prints when a report is due.
     *
     * @param label what is loading, e.g. {@code streamer-isolated/binary}
     * @param total entries it will write
     * @param done  entries written so far
     * @return stops reporting (and prints and records the last state) when closed
     */
    Report start(String label, long total, LongSupplier done) {
        boolean printing = style != Style.NONE;
        boolean recording = sampleMillis > 0;
        if (!printing && !recording) {
            return () -> { };
        }
        long tickMillis = recording ? Math.min(sampleMillis, intervalMillis) : intervalMillis;
        long ticksPerReport = Math.max(1, Math.round((double) intervalMillis / tickMillis));
        ProgressTimeline timeline = recording
                ? new ProgressTimeline(TimeUnit.MILLISECONDS.toNanos(tickMillis)) : ProgressTimeline.NONE;
        long startNanos = System.nanoTime();
        Thread reporter = new Thread(() -> {
            try {
                // Each sleep is measured from the start, so that samples do not drift apart.
                for (long tick = 1; !Thread.currentThread().isInterrupted(); tick++) {
                    long due = startNanos + TimeUnit.MILLISECONDS.toNanos(tick * tickMillis);
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    }
                    long elapsed = System.nanoTime() - startNanos;
                    long entries = done.getAsLong();
                    timeline.sample(elapsed, entries);
                    if (printing && tick % ticksPerReport == 0) {
                        print(label, entries, total, elapsed / 1e9, false);
                    }
                }
            } catch (InterruptedException stop) {
                // Closed: the last state is recorded and printed by the closer.
            }
        }, "sluice-load-progress");
        reporter.setDaemon(true);
        reporter.start();
        return new Report() {
            private boolean closed;

            @Override
            public void close() {
                if (closed) {
                    return;
                }
                closed = true;
                reporter.interrupt();
                try {
                    reporter.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                long elapsed = System.nanoTime() - startNanos;
                long entries = done.getAsLong();
                timeline.last(elapsed, entries);
                if (printing) {
                    print(label, entries, total, elapsed / 1e9, true);
                }
            }

            @Override
            public ProgressTimeline timeline() {
                return timeline;
            }
        };
    }

    private synchronized void print(String label, long done, long total, double seconds, boolean last) {
        if (style == Style.TERMINAL) {
            out.print('\r' + terminalLine(label, done, total, seconds));
            if (last) {
                out.println();
            }
        } else {
            out.println(line(label, done, total, seconds));
        }
        out.flush();
    }

    /**
     * The line redrawn on a terminal: a bar, the label, entries, entries/s and seconds, padded to
     * {@value #TERMINAL_WIDTH} characters so that it overwrites a longer previous line and never
     * wraps on an 80-column terminal (a wrapped line cannot be redrawn with a carriage return).
     */
    static String terminalLine(String label, long done, long total, double seconds) {
        double rate = seconds > 0 ? done / seconds : 0;
        String text = bar(done, total, TERMINAL_BAR_WIDTH) + ' ' + label
                + String.format(Locale.ROOT, " %,d entries %,.0f/s %.1fs", done, rate, seconds);
        if (text.length() > TERMINAL_WIDTH) {
            return text.substring(0, TERMINAL_WIDTH);
        }
        return text + " ".repeat(TERMINAL_WIDTH - text.length());
    }

    /** A progress bar of {@value #BAR_WIDTH} cells, e.g. {@code [=======>      ]}. */
    static String bar(long done, long total) {
        return bar(done, total, BAR_WIDTH);
    }

    private static String bar(long done, long total, int width) {
        int filled = total <= 0 ? width : (int) Math.min(width, done * width / total);
        StringBuilder bar = new StringBuilder(width + 2).append('[');
        for (int i = 0; i < width; i++) {
            bar.append(i < filled ? '=' : i == filled ? '>' : ' ');
        }
        return bar.append(']').toString();
    }

    /** One progress line: label, entries done of total, entries/s, elapsed seconds. */
    static String line(String label, long done, long total, double seconds) {
        double rate = seconds > 0 ? done / seconds : 0;
        return String.format(Locale.ROOT, "%-28s %,d / %,d entries  %,.0f entries/s  %.1f s",
                label, done, total, rate, seconds);
    }

    /**
     * Whether standard output is a terminal. {@code System.console()} is null when it is not; on
     * JDK 22 and newer it may be non-null anyway, and {@code Console.isTerminal()} tells.
     */
    static boolean isTerminal() {
        Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            Method isTerminal = Console.class.getMethod("isTerminal");
            return (Boolean) isTerminal.invoke(console);
        } catch (NoSuchMethodException beforeJdk22) {
            return true;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }

    /** Stops a report. */
    interface Report extends AutoCloseable {
        /** Stops reporting; the second and later calls do nothing. */
        @Override
        void close();

        /**
         * The samples recorded (complete once closed), or {@link ProgressTimeline#NONE} if the
         * reporter records none.
         */
        default ProgressTimeline timeline() {
            return ProgressTimeline.NONE;
        }
    }
}
