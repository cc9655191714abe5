package io.sluice.samples.load;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Turns mode results into table rows (adding the ratios) and formats them as an aligned text table. */
final class ResultTable {

    private static final String[] HEADERS = {"mode", "values", "entries", "seconds", "entries/s", "vs fastest",
            "vs raw", "MB/s", "entries/CPU-s", "verified"};

    private ResultTable() {
    }

    /** The rows, in the results' order, with entries/s relative to the fastest mode and to raw. */
    static List<ResultRow> rows(List<ModeResult> results) {
        double fastest = 0;
        Double raw = null;
        for (ModeResult r : results) {
            if (r.verified()) {
                fastest = Math.max(fastest, r.entriesPerSecond());
            }
            if (r.mode().equals(LoadMode.RAW.cliName()) && r.verified()) {
                raw = r.entriesPerSecond();
            }
        }
        List<ResultRow> rows = new ArrayList<>(results.size());
        for (ModeResult r : results) {
            double rate = r.entriesPerSecond();
            rows.add(new ResultRow(r.mode(), r.values(), r.entries(), r.seconds(), rate,
                    fastest > 0 ? rate / fastest : 0, raw == null || raw == 0 ? null : rate / raw,
                    r.megabytesPerSecond(), r.entriesPerCpuSecond(), r.verified(), r.expectedSize(), r.actualSize(), r.sampled(),
                    r.mismatched(), r.problem()));
        }
        return rows;
    }

    /** The rows as an aligned table, then one line per row that did not verify. */
    static String format(List<ResultRow> rows) {
        List<String[]> cells = new ArrayList<>();
        cells.add(HEADERS);
        for (ResultRow row : rows) {
            if (row.actualSize() < 0) {
                // The mode failed before it finished: its timing means nothing.
                cells.add(new String[]{row.mode(), row.values(), String.format(Locale.ROOT, "%,d", row.entries()),
                        "-", "-", "-", "-", "-", "-", "NO"});
                continue;
            }
            cells.add(new String[]{
                    row.mode(),
                    row.values(),
                    String.format(Locale.ROOT, "%,d", row.entries()),
                    String.format(Locale.ROOT, "%.2f", row.seconds()),
                    String.format(Locale.ROOT, "%,.0f", row.entriesPerSecond()),
                    String.format(Locale.ROOT, "%.2fx", row.vsFastest()),
                    row.vsRaw() == null ? "-" : String.format(Locale.ROOT, "%.2fx", row.vsRaw()),
                    String.format(Locale.ROOT, "%.1f", row.megabytesPerSecond()),
                    row.entriesPerCpuSecond() > 0 ? String.format(Locale.ROOT, "%,.0f", row.entriesPerCpuSecond()) : "-",
                    row.verified() ? "yes" : "NO"});
        }
        int[] widths = new int[HEADERS.length];
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
        for (ResultRow row : rows) {
            if (!row.verified()) {
                table.append(row.mode()).append('/').append(row.values()).append(": ").append(row.problem())
                        .append(System.lineSeparator());
            }
        }
        return table.toString();
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
