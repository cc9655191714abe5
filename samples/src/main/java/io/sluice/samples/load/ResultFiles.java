package io.sluice.samples.load;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Writes the result table as CSV ({@code --csv}) and JSON ({@code --json}). */
final class ResultFiles {

    static final String CSV_HEADER = "mode,values,entries,seconds,entries_per_second,vs_fastest,vs_raw,"
            + "mb_per_second,entries_per_cpu_second,verified,expected_size,actual_size,sampled,mismatched,problem,"
            + "runs,entries_per_second_min,entries_per_second_max,entries_per_cpu_second_min,entries_per_cpu_second_max";

    private ResultFiles() {
    }

    /** One header line, then one line per row; fields with commas or quotes are quoted. */
    static void writeCsv(Path file, List<ResultRow> rows) throws IOException {
        StringBuilder csv = new StringBuilder(CSV_HEADER).append('\n');
        for (ResultRow r : rows) {
            csv.append(String.join(",", quote(r.mode()), quote(r.values()), Long.toString(r.entries()),
                    number(r.seconds()), number(r.entriesPerSecond()), number(r.vsFastest()),
                    r.vsRaw() == null ? "" : number(r.vsRaw()), number(r.megabytesPerSecond()), number(r.entriesPerCpuSecond()),
                    Boolean.toString(r.verified()), Long.toString(r.expectedSize()), Long.toString(r.actualSize()),
                    Integer.toString(r.sampled()), Integer.toString(r.mismatched()),
                    r.problem() == null ? "" : quote(r.problem()), Integer.toString(r.runs()),
                    number(r.entriesPerSecondMin()), number(r.entriesPerSecondMax()),
                    number(r.entriesPerCpuSecondMin()), number(r.entriesPerCpuSecondMax()))).append('\n');
        }
        Files.writeString(file, csv, StandardCharsets.UTF_8);
    }

    /** An object with the run's settings, the machine, and the rows under {@code results}. */
    static void writeJson(Path file, LoadSettings settings, List<ResultRow> rows) throws IOException {
        Map<String, Object> machine = new LinkedHashMap<>();
        machine.put("availableProcessors", Runtime.getRuntime().availableProcessors());
        machine.put("maxHeapBytes", Runtime.getRuntime().maxMemory());
        machine.put("javaVersion", System.getProperty("java.version"));
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("settings", settings);
        document.put("machine", machine);
        document.put("results", rows);
        new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT, SerializationFeature.WRITE_ENUMS_USING_TO_STRING).writeValue(file.toFile(), document);
    }

    private static String number(double value) {
        return String.format(Locale.ROOT, "%.4f", value);
    }

    private static String quote(String field) {
        if (field.indexOf(',') < 0 && field.indexOf('"') < 0 && field.indexOf('\n') < 0) {
            return field;
        }
        return '"' + field.replace("\"", "\"\"") + '"';
    }
}
