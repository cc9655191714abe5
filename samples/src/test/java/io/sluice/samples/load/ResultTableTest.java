package io.sluice.samples.load;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class ResultTableTest {

    private static ModeResult result(String mode, String values, long entries, double seconds, String problem) {
        return new ModeResult(mode, values, entries, seconds, entries * 100, entries, problem == null ? entries : 0,
                1000, problem == null ? 0 : 1000, problem);
    }

    /** Each result as the one run of its mode. */
    private static List<ModeRuns> runs(ModeResult... results) {
        return java.util.Arrays.stream(results).map(ModeRuns::of).toList();
    }

    @Test
    void repeatedRunsShowTheMedianAndTheRangeOfBothRatesAndHowManyRunsEachIsOf() {
        ModeResult fast = result("streamer-isolated", "binary", 1_000_000, 0.4, null).withProgress(ProgressTimeline.NONE, 0.5);
        ModeResult middle = result("streamer-isolated", "binary", 1_000_000, 0.5, null).withProgress(ProgressTimeline.NONE, 1.0);
        ModeResult slow = result("streamer-isolated", "binary", 1_000_000, 1.0, null).withProgress(ProgressTimeline.NONE, 0.8);
        List<ResultRow> rows = ResultTable.rows(List.of(new ModeRuns(List.of(slow, fast, middle)),
                new ModeRuns(List.of(result("put", "binary", 1_000_000, 2.0, null), result("put", "binary", 1_000_000, 4.0, null)))));
        ResultRow isolated = rows.get(0);
        assertThat(isolated.runs()).isEqualTo(3);
        assertThat(isolated.entriesPerSecond()).isEqualTo(2_000_000);
        assertThat(isolated.entriesPerSecondMin()).isEqualTo(1_000_000);
        assertThat(isolated.entriesPerSecondMax()).isEqualTo(2_500_000);
        assertThat(isolated.seconds()).isEqualTo(0.5);
        // Each column's own median: the CPU figures are not those of the median-time run.
        assertThat(isolated.entriesPerCpuSecond()).isEqualTo(1_250_000);
        assertThat(isolated.entriesPerCpuSecondMin()).isEqualTo(1_000_000);
        assertThat(isolated.entriesPerCpuSecondMax()).isEqualTo(2_000_000);
        // An even count: the mean of the two middle runs.
        assertThat(rows.get(1).entriesPerSecond()).isEqualTo(375_000);
        assertThat(rows.get(1).vsFastest()).isCloseTo(0.1875, within(1e-9));
        String table = ResultTable.format(rows);
        assertThat(table.lines().findFirst().orElseThrow()).contains(" runs ").contains("entries/s min-max")
                .contains("entries/CPU-s min-max");
        assertThat(table).containsPattern("streamer-isolated +binary +1,000,000 +3 +0\\.50 +2,000,000 +1,000,000-2,500,000 +1\\.00x")
                .containsPattern("1,250,000 +1,000,000-2,000,000 +yes")
                .contains("medians over the runs column's runs");
    }

    @Test
    void aRunThatDidNotVerifyDecidesItsModesRowWhateverTheOtherRunsDid() {
        ModeRuns runs = new ModeRuns(List.of(result("put", "binary", 100, 1, null), result("put", "binary", 100, 2, "LOST 1 entries"),
                result("put", "binary", 100, 1, null)));
        ResultRow row = ResultTable.rows(List.of(runs)).get(0);
        assertThat(row.verified()).isFalse();
        assertThat(row.problem()).isEqualTo("LOST 1 entries");
        assertThat(row.seconds()).isEqualTo(2);
        assertThat(row.runs()).isEqualTo(3);
    }

    @Test
    void ratiosAreRelativeToTheFastestVerifiedModeAndToRaw() {
        List<ResultRow> rows = ResultTable.rows(runs(
                result("raw", "fields", 1_000_000, 0.25, null),
                result("streamer-isolated", "binary", 1_000_000, 0.5, null),
                result("put", "binary", 1_000_000, 4.0, null),
                result("putAll", "binary", 1_000_000, 0.1, "LOST 5 entries")));
        assertThat(rows.get(0).vsFastest()).isEqualTo(1.0);
        assertThat(rows.get(1).vsFastest()).isCloseTo(0.5, within(1e-9));
        assertThat(rows.get(1).vsRaw()).isCloseTo(0.5, within(1e-9));
        assertThat(rows.get(2).vsRaw()).isCloseTo(0.0625, within(1e-9));
        assertThat(rows.get(1).entriesPerSecond()).isEqualTo(2_000_000);
        assertThat(rows.get(1).megabytesPerSecond()).isEqualTo(200.0);
        // A load that lost entries is never "the fastest".
        assertThat(rows.get(3).vsFastest()).isCloseTo(2.5, within(1e-9));
    }

    @Test
    void entriesPerCpuSecondComeFromTheProcessCpuTimeOfTheLoadAndShowADashWhenUnmeasured() {
        ModeResult measured = result("streamer-isolated", "binary", 3_000_000, 1.5, null)
                .withProgress(ProgressTimeline.NONE, 2.5);
        List<ResultRow> rows = ResultTable.rows(runs(measured, result("put", "binary", 10, 1, null)));
        assertThat(rows.get(0).entriesPerCpuSecond()).isCloseTo(1_200_000, within(1e-6));
        assertThat(rows.get(1).entriesPerCpuSecond()).isZero();
        String table = ResultTable.format(rows);
        assertThat(table).containsPattern("streamer-isolated .* 1,200,000 +yes");
        assertThat(table).containsPattern("put .* - +yes");
    }

    @Test
    void withoutRawTheRawColumnIsEmpty() {
        List<ResultRow> rows = ResultTable.rows(runs(result("put", "pojo", 10, 1, null)));
        assertThat(rows.get(0).vsRaw()).isNull();
        assertThat(ResultTable.format(rows)).containsPattern("1\\.00x +-  ");
    }

    @Test
    void formatsAnAlignedTableAndExplainsEveryUnverifiedRow() {
        String table = ResultTable.format(ResultTable.rows(runs(
                result("raw", "fields", 2_000_000, 0.5, null),
                result("streamer-isolated", "binary", 2_000_000, 1.0, "LOST 3 entries: the store holds 1,999,997"))));
        String[] lines = table.split(System.lineSeparator());
        assertThat(lines[0]).startsWith("mode               values  ").contains("entries/s").endsWith("verified");
        assertThat(lines[1]).matches("[- ]+");
        assertThat(lines[2]).startsWith("raw                fields  2,000,000").contains("4,000,000").contains("1.00x")
                .endsWith("yes");
        assertThat(lines[3]).startsWith("streamer-isolated  binary  2,000,000").contains("2,000,000").contains("0.50x")
                .endsWith("NO");
        assertThat(lines[4]).isEqualTo("streamer-isolated/binary: LOST 3 entries: the store holds 1,999,997");
        assertThat(lines[2].indexOf("entries")).isEqualTo(-1);
        // Every row is as long as the header's columns: numbers are right-aligned under them.
        assertThat(lines[2].indexOf("4,000,000") + "4,000,000".length())
                .isEqualTo(lines[0].indexOf("entries/s") + "entries/s".length());
    }

    @Test
    void aModeThatFailedShowsNoTimings() {
        ModeResult failed = ModeResult.failed("put", "pojo", 100, 0.3, 100, new IllegalStateException("boom"));
        String table = ResultTable.format(ResultTable.rows(runs(failed)));
        assertThat(table).containsPattern("put +pojo +100 +- +- +- +- +- +- +NO")
                .contains("put/pojo: failed: IllegalStateException: boom");
    }
}
