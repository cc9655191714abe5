package io.sluice.samples.load;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Turns each mode's runs into a table row (medians, ranges and ratios) and formats the rows as an
 * aligned text table. With more than one run per mode the table gains a {@code runs} column and
 * the range (min-max) of both rates.
 */
final class ResultTable {

    private static final String[] HEADERS = {"mode", "values", "entries", "seconds", "entries/s", "vs fastest",
            "vs raw", "MB/s", "entries/CPU-s", "verified"};
    private static final String[] REPEATED_HEADERS = {"mode", "values", "entries", "runs", "seconds", "entries/s",
            "entries/s min-max", "vs fastest", "vs raw", "MB/s", "entries/CPU-s", "entries/CPU-s min-max", "verified"};

    private ResultTable() {
    }

    /**
     * The rows, in the modes' order. A verified mode's figures are the medians over its runs; a mode
     * with a run that did not verify shows that run. Ratios are of medians, relative to the fastest
     * verified mode and to raw.
     */
    static List<ResultRow> rows(List<ModeRuns> modes) {
        double fastest = 0;
        Double raw = null;
        for (ModeRuns m : modes) {
            if (m.verified()) {
                double rate = m.entriesPerSecond().median();
                fastest = Math.max(fastest, rate);
                if (m.mode().equals(LoadMode.RAW.cliName())) {
                    raw = rate;
                }
            }
        }
        List<ResultRow> rows = new ArrayList<>(modes.size());
        for (ModeRuns m : modes) {
            ModeResult r = m.shown();
            Spread rate = m.verified() ? m.entriesPerSecond() : Spread.of(r.entriesPerSecond());
            Spread cpu = m.verified() ? m.entriesPerCpuSecond() : Spread.of(r.entriesPerCpuSecond());
            double seconds = m.verified() ? m.seconds().median() : r.seconds();
            double megabytes = m.verified() ? m.megabytesPerSecond().median() : r.megabytesPerSecond();
            rows.add(new ResultRow(r.mode(), r.values(), r.entries(), seconds, rate.median(),
                    fastest > 0 ? rate.median() / fastest : 0, raw == null || raw == 0 ? null : rate.median() / raw,
                    megabytes, cpu.median(), m.verified(), r.expectedSize(), r.actualSize(), r.sampled(),
                    r.mismatched(), r.problem(), m.runs().size(), rate.min(), rate.max(), cpu.min(), cpu.max()));
        }
        return rows;
    }

    /** The rows as an aligned table, then one line per row that did not verify. */
    static String format(List<ResultRow> rows) {
        boolean repeated = rows.stream().anyMatch(r -> r.runs() > 1);
        String[] headers = repeated ? REPEATED_HEADERS : HEADERS;
        List<String[]> cells = new ArrayList<>();
        cells.add(headers);
        for (ResultRow row : rows) {
            List<String> line = new ArrayList<>(headers.length);
            line.add(row.mode());
            line.add(row.values());
            line.add(String.format(Locale.ROOT, "%,d", row.entries()));
            if (repeated) {
                line.add(Integer.toString(row.runs()));
            }
            boolean timed = row.actualSize() >= 0;
            // A mode that failed before it finished: its timing means nothing.
            line.add(timed ? String.format(Locale.ROOT, "%.2f", row.seconds()) : "-");
            line.add(timed ? rate(row.entriesPerSecond()) : "-");
            if (repeated) {
                line.add(timed ? range(row.entriesPerSecondMin(), row.entriesPerSecondMax()) : "-");
            }
            line.add(timed ? String.format(Locale.ROOT, "%.2fx", row.vsFastest()) : "-");
            line.add(!timed || row.vsRaw() == null ? "-" : String.format(Locale.ROOT, "%.2fx", row.vsRaw()));
            line.add(timed ? String.format(Locale.ROOT, "%.1f", row.megabytesPerSecond()) : "-");
            line.add(timed && row.entriesPerCpuSecond() > 0 ? rate(row.entriesPerCpuSecond()) : "-");
            if (repeated) {
                line.add(timed && row.entriesPerCpuSecond() > 0
                        ? range(row.entriesPerCpuSecondMin(), row.entriesPerCpuSecondMax()) : "-");
            }
            line.add(row.verified() ? "yes" : "NO");
            cells.add(line.toArray(String[]::new));
        }
        int[] widths = new int[headers.length];
        for (String[] line : cells) {
            for (int c = 0; c < line.length; c++) {
                widths[c] = Math.max(widths[c], line[c].length());
            }
        }
        StringBuilder table = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            appendLine(table, cells.get(i), widths);
            if (i == 0) {
                String[] rule = new String[widths.length];
                for (int c = 0; c < widths.length; c++) {
                    rule[c] = "-".repeat(widths[c]);
                }
                appendLine(table, rule, widths);
            }
        }
        if (repeated) {
            table.append("seconds, entries/s, MB/s and entries/CPU-s are medians over the runs column's runs; "
                    + "min-max is their range").append(System.lineSeparator());
        }
        for (ResultRow row : rows) {
            if (!row.verified()) {
                table.append(row.mode()).append('/').append(row.values()).append(": ").append(row.problem())
                        .append(System.lineSeparator());
            }
        }
        return table.toString();
    }

    private static String rate(double perSecond) {
        return String.format(Locale.ROOT, "%,.0f", perSecond);
    }

    private static String range(double min, double max) {
        return rate(min) + "-" + rate(max);
    }

    /** Text columns left-aligned, numbers right-aligned. */
    private static void appendLine(StringBuilder table, String[] line, int[] widths) {
        StringBuilder text = new StringBuilder();
        for (int c = 0; c < line.length; c++) {
            if (c > 0) {
                text.append("  ");
            }
            boolean left = c < 2 || c == line.length - 1;
            String pad = " ".repeat(widths[c] - line[c].length());
            text.append(left ? line[c] + pad : pad + line[c]);
        }
        table.append(text.toString().stripTrailing()).append(System.lineSeparator());
    }
}
