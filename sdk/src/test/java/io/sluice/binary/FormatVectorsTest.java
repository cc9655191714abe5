package io.sluice.binary;

import io.sluice.binary.internal.BinaryContext;
import io.sluice.binary.internal.GrowableBuffer;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** The test vectors in docs/binary-format.md are what the encoder writes, and decode back. */
class FormatVectorsTest {

    private static final Path DOC = Path.of("../docs/binary-format.md");

    private final BinaryContext binary = new BinaryContext();

    private Map<String, Object> values() {
        BinaryObject point = binary.builder("Point").setField("x", 1).setField("y", -2L).setField("label", "a").build();
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("null", null);
        v.put("true", true);
        v.put("byte-minus-1", (byte) -1);
        v.put("short-300", (short) 300);
        v.put("char-euro", '\u20ac');
        v.put("int-1", 1);
        v.put("int-minus-1", -1);
        v.put("long-1", 1L);
        v.put("long-minus-2", -2L);
        v.put("float-1.5", 1.5f);
        v.put("double-minus-2", -2.0);
        v.put("double-162.93", 162.93);
        v.put("string-SBER", "SBER");
        v.put("string-nul", "a\u0000b");
        v.put("string-unicode", "\u00e9\u20ac\ud83d\ude00");
        v.put("bytes", new byte[]{1, 2, 3});
        v.put("uuid", UUID.fromString("123e4567-e89b-12d3-a456-426614174000"));
        v.put("instant", Instant.parse("2026-11-22T01:00:00.5Z"));
        v.put("local-date", LocalDate.of(2026, 11, 22));
        v.put("local-date-time", LocalDateTime.of(2026, 11, 22, 1, 2, 3));
        v.put("big-decimal", new BigDecimal("-12.50"));
        v.put("big-integer", new BigInteger("256"));
        v.put("int-array", new int[]{1, -1});
        v.put("double-array", new double[]{0.5});
        v.put("object-array", new Object[]{null, 'x'});
        v.put("list", List.of(1L, "a"));
        v.put("set", Set.of(7));
        v.put("map", Map.of("k", true));
        v.put("object-empty", binary.builder("Empty").build());
        v.put("object-point", point);
        v.put("object-nested", binary.builder("Wrap").setField("p", point).build());
        v.put("object-wide", binary.builder("Wide").setField("text", "x".repeat(250)).setField("n", 7).build());
        return v;
    }

    private static Map<String, String> documentedVectors() throws IOException {
        String doc = Files.readString(DOC);
        int start = doc.indexOf("<!-- vectors:start -->");
        int end = doc.indexOf("<!-- vectors:end -->");
        assertThat(start).as("vectors section in %s", DOC.toAbsolutePath()).isPositive();
        Map<String, String> vectors = new LinkedHashMap<>();
        for (String line : doc.substring(start, end).split("\n")) {
            if (!line.startsWith("| `")) {
                continue;
            }
            String[] cells = line.split("\\|");
            String id = cells[1].trim().replace("`", "");
            String hex = expandRuns(cells[cells.length - 1].trim().replace("`", "")).replace(" ", "");
            vectors.put(id, hex);
        }
        return vectors;
    }

    /** {@code 78*250} in a vector stands for 250 bytes of 0x78. */
    private static String expandRuns(String hex) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("([0-9a-f]{2})\\*(\\d+)").matcher(hex);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, (m.group(1) + " ").repeat(Integer.parseInt(m.group(2))).trim());
        }
        return m.appendTail(out).toString();
    }

    @Test
    void everyDocumentedVectorIsWhatTheEncoderWritesAndDecodesBack() throws IOException {
        Map<String, String> documented = documentedVectors();
        Map<String, Object> values = values();
        assertThat(documented.keySet()).containsExactlyElementsOf(values.keySet());
        for (Map.Entry<String, Object> e : values.entrySet()) {
            GrowableBuffer out = new GrowableBuffer(16);
            binary.encode(e.getValue(), out);
            assertThat(HexFormat.of().formatHex(out.toByteArray())).as("vector %s", e.getKey())
                    .isEqualTo(documented.get(e.getKey()));
            byte[] bytes = HexFormat.of().parseHex(documented.get(e.getKey()));
            Object decoded = binary.decode(bytes, 0, bytes.length, true);
            assertThat(decoded).as("decoded vector %s", e.getKey()).usingRecursiveComparison()
                    .isEqualTo(e.getValue());
        }
    }

    @Test
    void documentedIdsAreTheRegisteredOnes() {
        binary.builder("Point").setField("x", 1).build();
        assertThat(binary.type("Point").typeId()).isEqualTo(0xbca71842);
    }
}
