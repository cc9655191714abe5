package io.sluice.samples.load;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

@Timeout(30)
class ProgressReporterTest {

    @Test
    void lineShowsEntriesRateAndElapsedTime() {
        assertThat(ProgressReporter.line("put/binary", 1_000_000, 2_000_000, 2.0))
                .isEqualTo("put/binary                   1,000,000 / 2,000,000 entries  500,000 entries/s  2.0 s");
    }

    @Test
    void terminalLineFitsEightyColumnsEvenForTheLongestLabel() {
        String line = ProgressReporter.terminalLine("streamer-individual/binary", 1_000_000, 2_000_000, 1.5);
        assertThat(line).hasSize(79)
                .startsWith("[======>     ] streamer-individual/binary 1,000,000 entries 666,667/s 1.5s");
        assertThat(ProgressReporter.terminalLine("x".repeat(100), 1, 2, 1)).hasSize(79);
    }

    @Test
    void barFillsWithProgress() {
        assertThat(ProgressReporter.bar(0, 100)).isEqualTo("[>" + " ".repeat(29) + "]");
        assertThat(ProgressReporter.bar(50, 100)).isEqualTo("[" + "=".repeat(15) + ">" + " ".repeat(14) + "]");
        assertThat(ProgressReporter.bar(100, 100)).isEqualTo("[" + "=".repeat(30) + "]");
    }

    @Test
    void plainStylePrintsWholeLinesWithoutControlCharacters() {
        StringWriter text = new StringWriter();
        ProgressReporter reporter = new ProgressReporter(new PrintWriter(text), ProgressReporter.Style.PLAIN, 10);
        AtomicLong done = new AtomicLong();
        ProgressReporter.Report report = reporter.start("raw/fields", 100, done::get);
        done.set(40);
        await().atMost(Duration.ofSeconds(10)).until(() -> text.toString().contains("40 / 100 entries"));
        done.set(100);
        report.close();
        String output = text.toString();
        assertThat(output).doesNotContain("\r").doesNotContain("\u001b");
        assertThat(output.lines()).allMatch(line -> line.startsWith("raw/fields "));
        assertThat(output.lines().reduce((a, b) -> b).orElseThrow()).contains("100 / 100 entries");
    }

    @Test
    void terminalStyleRedrawsOneLineInPlaceAndEndsIt() {
        StringWriter text = new StringWriter();
        ProgressReporter reporter = new ProgressReporter(new PrintWriter(text), ProgressReporter.Style.TERMINAL, 10);
        AtomicLong done = new AtomicLong(30);
        ProgressReporter.Report report = reporter.start("put/pojo", 100, done::get);
        await().atMost(Duration.ofSeconds(10)).until(() -> text.toString().contains("put/pojo 30 entries"));
        done.set(100);
        report.close();
        String output = text.toString();
        assertThat(output).startsWith("\r[").endsWith(System.lineSeparator());
        // One line on screen: every redraw starts with a carriage return, only the last one ends the line.
        assertThat(output.indexOf('\n')).isEqualTo(output.length() - 1);
        assertThat(output.split("\r", -1).length - 1).isGreaterThanOrEqualTo(2);
        assertThat(output).contains("\r[" + "=".repeat(12) + "] put/pojo 100 entries ");
        // Every redraw is as wide as an 80-column terminal allows, so it neither wraps nor leaves old text.
        String redraws = output.substring(0, output.length() - System.lineSeparator().length());
        for (String redraw : redraws.split("\r")) {
            if (!redraw.isEmpty()) {
                assertThat(redraw).hasSize(79);
            }
        }
    }

    @Test
    void noneStylePrintsNothing() {
        StringWriter text = new StringWriter();
        ProgressReporter reporter = new ProgressReporter(new PrintWriter(text), ProgressReporter.Style.NONE, 10);
        reporter.start("x", 1, () -> 1).close();
        assertThat(text.toString()).isEmpty();
    }

    @Test
    void samplesAreRecordedOncePerSampleIntervalEvenWhenNothingIsPrinted() {
        StringWriter text = new StringWriter();
        ProgressReporter reporter = new ProgressReporter(new PrintWriter(text), ProgressReporter.Style.NONE, 2000, 20);
        AtomicLong reads = new AtomicLong();
        long start = System.nanoTime();
        ProgressReporter.Report report = reporter.start("put/binary", 1000, () -> 10 * reads.incrementAndGet());
        await().atMost(Duration.ofSeconds(10)).until(() -> reads.get() >= 10);
        report.close();
        double elapsedMillis = (System.nanoTime() - start) / 1e6;
        report.close();

        ProgressTimeline samples = report.timeline();
        assertThat(text.toString()).isEmpty();
        // One sample per read of the counter, the closing read replacing the newest sample if it came just after it.
        assertThat(samples.size()).isBetween((int) reads.get() - 1, (int) reads.get());
        // Memory follows time, not load size: at most one sample per interval, and the last one.
        assertThat(samples.size()).isLessThanOrEqualTo((int) (elapsedMillis / 20) + 1);
        assertThat(samples.entries(samples.size() - 1)).isEqualTo(10 * reads.get());
        for (int i = 1; i < samples.size(); i++) {
            assertThat(samples.seconds(i)).isGreaterThan(samples.seconds(i - 1));
            assertThat(samples.entries(i)).isGreaterThan(samples.entries(i - 1));
        }
    }

    @Test
    void printingEveryFewSamplesKeepsTheReportInterval() {
        StringWriter text = new StringWriter();
        ProgressReporter reporter = new ProgressReporter(new PrintWriter(text), ProgressReporter.Style.PLAIN, 100, 10);
        AtomicLong done = new AtomicLong();
        ProgressReporter.Report report = reporter.start("raw/fields", 100, done::get);
        await().atMost(Duration.ofSeconds(10)).until(() -> text.toString().lines().count() >= 2);
        done.set(100);
        report.close();
        // About ten samples per printed line (the line printed on close comes on top).
        long lines = text.toString().lines().count();
        assertThat(report.timeline().size()).isGreaterThanOrEqualTo((int) (lines - 1) * 10 - 1);
    }

    @Test
    void aReporterWithoutSampleIntervalRecordsNothing() {
        ProgressReporter reporter = new ProgressReporter(new PrintWriter(new StringWriter()),
                ProgressReporter.Style.PLAIN, 10);
        ProgressReporter.Report report = reporter.start("x", 1, () -> 1);
        report.close();
        assertThat(report.timeline()).isSameAs(ProgressTimeline.NONE);
    }

    @Test
    void progressOffMeansNoneWhateverTheTerminal() {
        assertThat(ProgressReporter.Style.detect(true)).isEqualTo(ProgressReporter.Style.NONE);
        // Surefire's forked JVM has no terminal.
        assertThat(ProgressReporter.Style.detect(false)).isEqualTo(ProgressReporter.Style.PLAIN);
    }
}
