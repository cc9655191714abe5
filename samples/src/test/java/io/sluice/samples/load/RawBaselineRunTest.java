package io.sluice.samples.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The raw baseline runs without a node, so the whole tool (table, files, output) is tested here too. */
@Timeout(60)
class RawBaselineRunTest {

    private static final NodeLauncher NO_NODE = (pageSize, regionMaxBytes) -> {
        throw new AssertionError("the raw baseline needs no node");
    };

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return LoadGenerator.commandLine(new LoadGenerator(NO_NODE))
                .setOut(new PrintWriter(out, true))
                .setErr(new PrintWriter(err, true))
                .execute(args);
    }

    @Test
    void rawRunVerifiesAndWritesCsvAndJson(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("r.csv");
        Path json = dir.resolve("r.json");
        int exit = run("--no-fork", "--modes", "raw", "--entries", "5000", "--threads", "2", "--collision-ratio", "0.2",
                "--csv", csv.toString(), "--json", json.toString());
        assertThat(exit).as(out + "\n" + err).isZero();
        String output = out.toString();
        assertThat(output).contains("sluice-load: 5,000 entries per mode, 2 producer threads, modes raw")
                .doesNotContain("\r").doesNotContain("\u001b");
        assertThat(output).containsPattern("raw +fields +5,000 .*1\\.00x +1\\.00x .* yes");

        List<String> lines = Files.readAllLines(csv);
        assertThat(lines).hasSize(2);
        assertThat(lines.get(0)).isEqualTo(ResultFiles.CSV_HEADER);
        String[] cells = lines.get(1).split(",", -1);
        assertThat(cells).hasSize(ResultFiles.CSV_HEADER.split(",").length);
        assertThat(cells[0]).isEqualTo("raw");
        assertThat(cells[2]).isEqualTo("5000");
        // 5,000 raw entries take less CPU than the clock's resolution: only the column's form is checked here
        assertThat(Double.parseDouble(cells[8])).as("entries per CPU-second").isNotNegative();
        assertThat(cells[9]).isEqualTo("true");
        assertThat(cells[10]).isEqualTo("4000");
        assertThat(cells[11]).isEqualTo("4000");

        JsonNode document = new ObjectMapper().readTree(json.toFile());
        assertThat(document.path("settings").path("entries").asLong()).isEqualTo(5000);
        assertThat(document.path("settings").path("modes").get(0).asText()).isEqualTo("raw");
        JsonNode row = document.path("results").get(0);
        assertThat(row.path("mode").asText()).isEqualTo("raw");
        assertThat(row.path("verified").asBoolean()).isTrue();
        assertThat(row.path("expectedSize").asLong()).isEqualTo(4000);
        assertThat(row.path("sampled").asInt()).isEqualTo(1000);
        assertThat(row.path("entriesPerSecond").asDouble()).isPositive();
    }

    @Test
    void paddedRawRecordsAreReadBackWithTheirPadding() {
        int exit = run("--no-fork", "--modes", "raw", "--entries", "3000", "--value-size", "512", "--no-progress");
        assertThat(exit).as(out + "\n" + err).isZero();
        assertThat(out.toString()).contains("value size 512 B").containsPattern("raw +fields +3,000 .* yes");
    }

    @Test
    void withoutForksRepeatTimesEachModeIntoFreshStoresAndReportsOneVerifiedRow() {
        int exit = run("--no-fork", "--modes", "raw", "--entries", "3000", "--repeat", "3");
        assertThat(exit).as(out + "\n" + err).isZero();
        assertThat(out.toString()).contains("median of 3 timed runs")
                .contains("raw/fields #1 ").contains("raw/fields #2 ").contains("raw/fields #3 ")
                .doesNotContain("raw/fields #4");
        assertThat(out.toString().lines().filter(line -> line.matches("raw +fields +3,000 .* yes"))).hasSize(1);
    }

    @Test
    void valueSizeBelowTheRecordIsAnOptionError() {
        assertThat(run("--no-fork", "--modes", "raw", "--entries", "10", "--value-size", "20")).isEqualTo(2);
        assertThat(err.toString()).contains("--value-size is 20 bytes; the raw record takes");
    }

    @Test
    void anOptionErrorFoundInAForkedModesJvmIsReportedWithItsStandardErrorAndExitsTwo() {
        assertThat(run("--fork-heap", "64m", "--modes", "raw", "--entries", "10", "--value-size", "20")).isEqualTo(2);
        assertThat(err.toString()).containsPattern("the JVM of \\[1/1\\] raw/fields \\(pid \\d+\\) exited with status 2")
                .contains("the end of its standard error:")
                .contains("--value-size is 20 bytes; the raw record takes");
    }

    @Test
    void aModeThatCannotStartItsNodeIsReportedAndFailsTheRun() {
        int exit = run("--no-fork", "--modes", "put", "--entries", "10", "--no-progress");
        assertThat(exit).isEqualTo(LoadGenerator.EXIT_NOT_VERIFIED);
        assertThat(out.toString()).contains("put/binary: failed: AssertionError: the raw baseline needs no node")
                .contains("1 of 1 loads did not verify");
    }

}
