package io.sluice.samples.load;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Reader;
import java.util.ArrayList;
import java.util.List;

/**
 * How a forked mode's JVM hands its figures to the parent: one line on its standard output,
 * {@value #PREFIX} followed by a JSON object, per timed run. Everything else the child prints
 * (its progress) is the parent's to show as it comes.
 *
 * <pre>
 * sluice-load-result {"mode":"put","values":"binary","entries":5000,"seconds":0.41,"encodedBytes":540000,
 *   "expectedSize":5000,"actualSize":5000,"sampled":1000,"mismatched":0,"problem":null,"cpuSeconds":0.77,
 *   "progressNanos":[100000000, ...],"progressEntries":[1024, ...]}
 * </pre>
 */
final class ForkProtocol {

    /** What a result line starts with. */
    static final String PREFIX = "sluice-load-result ";

    private static final ObjectMapper JSON = new ObjectMapper();

    private ForkProtocol() {
    }

    /** The result line of a run (no line separator). */
    static String line(ModeResult r) {
        ObjectNode o = JSON.createObjectNode();
        o.put("mode", r.mode()).put("values", r.values()).put("entries", r.entries()).put("seconds", r.seconds())
                .put("encodedBytes", r.encodedBytes()).put("expectedSize", r.expectedSize())
                .put("actualSize", r.actualSize()).put("sampled", r.sampled()).put("mismatched", r.mismatched())
                .put("problem", r.problem()).put("cpuSeconds", r.cpuSeconds());
        ArrayNode nanos = o.putArray("progressNanos");
        ArrayNode entries = o.putArray("progressEntries");
        for (int i = 0; i < r.progress().size(); i++) {
            nanos.add(r.progress().nanos(i));
            entries.add(r.progress().entries(i));
        }
        try {
            return PREFIX + JSON.writeValueAsString(o);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the result of " + r.mode(), e);
        }
    }

    /**
     * The run a result line stands for.
     *
     * @throws IllegalArgumentException if the line does not start with {@value #PREFIX}, is not
     *                                  JSON, or lacks a field (the message names it)
     */
    static ModeResult parse(String line) {
        if (!line.startsWith(PREFIX)) {
            throw new IllegalArgumentException("not a result line (no '" + PREFIX.trim() + "'): " + line);
        }
        JsonNode o;
        try {
            o = JSON.readTree(line.substring(PREFIX.length()));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("result line is not JSON: " + e.getOriginalMessage());
        }
        if (o == null || !o.isObject()) {
            throw new IllegalArgumentException("result line holds no JSON object: " + line);
        }
        JsonNode nanos = field(o, "progressNanos");
        JsonNode entries = field(o, "progressEntries");
        long[] n = new long[nanos.size()];
        long[] e = new long[entries.size()];
        for (int i = 0; i < n.length; i++) {
            n[i] = nanos.get(i).asLong();
        }
        for (int i = 0; i < e.length; i++) {
            e[i] = entries.get(i).asLong();
        }
        JsonNode problem = field(o, "problem");
        return new ModeResult(field(o, "mode").asText(), field(o, "values").asText(), field(o, "entries").asLong(),
                field(o, "seconds").asDouble(), field(o, "encodedBytes").asLong(), field(o, "expectedSize").asLong(),
                field(o, "actualSize").asLong(), field(o, "sampled").asInt(), field(o, "mismatched").asInt(),
                problem.isNull() ? null : problem.asText(), ProgressTimeline.of(n, e), field(o, "cpuSeconds").asDouble());
    }

    private static JsonNode field(JsonNode o, String name) {
        JsonNode value = o.get(name);
        if (value == null) {
            throw new IllegalArgumentException("result line has no '" + name + "': " + o);
        }
        return value;
    }

    /**
     * Reads a child's standard output to its end: passes every line that is not a result line to
     * {@code out} as it comes (a line redrawn with {@code \r} included: each piece is passed on
     * with its {@code \r}), and returns the runs of the result lines.
     *
     * @throws IllegalArgumentException if a result line cannot be parsed
     */
    static List<ModeResult> relay(Reader in, PrintWriter out) throws IOException {
        List<ModeResult> results = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        boolean afterResult = false;
        for (int c = in.read(); ; c = in.read()) {
            if (c == '\n' && afterResult && line.length() == 0) {
                // The \n of a result line's \r\n (Windows).
                afterResult = false;
                continue;
            }
            afterResult = false;
            if (c == '\n' || c == '\r' || c < 0) {
                if (line.indexOf(PREFIX) == 0) {
                    results.add(parse(line.toString()));
                    afterResult = c == '\r';
                } else if (line.length() > 0 || c >= 0) {
                    out.print(line);
                    if (c >= 0) {
                        out.print((char) c);
                    }
                    out.flush();
                }
                line.setLength(0);
                if (c < 0) {
                    return results;
                }
            } else {
                line.append((char) c);
            }
        }
    }
}
