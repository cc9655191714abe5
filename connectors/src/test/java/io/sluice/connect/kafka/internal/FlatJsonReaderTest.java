package io.sluice.connect.kafka.internal;

import io.sluice.binary.BinaryObject;
import io.sluice.binary.BinaryTypeMismatchException;
import io.sluice.binary.internal.AsciiStringBuilder;
import io.sluice.binary.internal.BinaryContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bytes (and ASCII text) read by {@link FlatJsonReader} become the binary object Jackson's path makes of the same
 * JSON (compared with a {@link JsonValues} that always parses with Jackson), byte for byte; records outside its
 * subset go to Jackson and come out the same way, values or errors.
 */
@Timeout(60)
class FlatJsonReaderTest {

    private final BinaryContext binary = new BinaryContext();
    private final JsonValues json = new JsonValues(new BinaryValues(binary));
    private final JsonValues jackson = new JsonValues(new BinaryValues(binary), false);

    @Test
    void randomFlatRecordsBecomeWhatJacksonMakesOfThem() {
        long seed = System.nanoTime();
        Random r = new Random(seed);
        FlatJsonReader reader = new FlatJsonReader();
        for (int n = 0; n < 10_000; n++) {
            String text = flatRecord(r);
            byte[] utf8 = text.getBytes(StandardCharsets.US_ASCII);
            assertThat(reads(reader, utf8)).as("seed %d: %s", seed, text).isTrue();
            assertSame(text, "T" + (n % 7), "seed " + seed);
        }
    }

    @Test
    void recordsOutsideTheFlatSubsetGoToJacksonAndComeOutTheSame() {
        List<String> outside = List.of(
                "{\"a\":\"tab\\tand \\\"quote\\\" and \\u00e9\"}", "{\"é\":1}", "{\"a\":\"Grüße\"}",
                "{\"a\":[1,2]}", "{\"a\":{\"b\":1}}", "{\"a\":1234567890123456789}", "{\"a\":-9223372036854775808}",
                "{\"a\":123456789012345678901234567890}", "{\"a\":0.1234567890123456789}",
                "{\"a\":1234567890.123456789}", "{\"a\":01}",
                "{\"a\":1.}", "{\"a\":.5}", "{\"a\":1e}", "{\"a\":1e99999}", "{\"a\":tru}", "{\"a\":1,}", "{,}",
                "{\"a\" 1}", "{\"a\":1} x", "{\"a\":1}{}", "[1]", "\"text\"", "", "   ", "{\"a\":\"\u0001\"}",
                "{\"a\":1\u000b}", "{\"a\":NaN}", "{\"a\":+1}", "{'a':1}", "{\"a\":1 /* c */}", "{\"a\"", "{");
        FlatJsonReader reader = new FlatJsonReader();
        for (String text : outside) {
            assertThat(reads(reader, text.getBytes(StandardCharsets.UTF_8))).as(text).isFalse();
            assertSame(text, "Outside", text);
        }
    }

    @Test
    void aNameLikeThePreviousRecordsNameAtItsPlaceIsReadAsItself() {
        // the reader tries the previous record's name at each position first: a longer, shorter or differing name
        // there, or the same bytes not closed by a quote, must still be read as what it is
        List<String> records = List.of("{\"price\":1,\"qty\":2}", "{\"prices\":1,\"qty\":2}",
                "{\"pric\":1,\"qty\":2}", "{\"price\":1,\"qtx\":2}", "{\"price\":1,\"qty\":2,\"x\":3}",
                "{\"price\":1}", "{\"price\":1,\"qty\\n\":2}", "{\"price\":1,\"qty", "{\"price\":1,\"qty\":2}",
                "{\"qty\":2,\"price\":1}", "{\"price\":1,\"qty\":2}");
        FlatJsonReader reader = new FlatJsonReader();
        for (String text : records) {
            assertSame(text, "Names", text);
        }
        for (String text : records) {
            boolean scanned = reads(reader, text.getBytes(StandardCharsets.UTF_8));
            assertThat(scanned).as(text).isEqualTo(!text.contains("\\") && text.endsWith("}"));
        }
    }

    @Test
    void recordsRepeatingThePreviousLayoutOrNearlyReadAsJacksonReadsThem() {
        // the reader tries the previous record's bytes between values (separator, name, colon) at each position
        // first: the same layout, a changed name or spacing, a record cut short or broken after a changed name
        // must all still be read as what they are
        long seed = System.nanoTime();
        Random r = new Random(seed);
        String[][] layouts = new String[3][];
        for (int l = 0; l < layouts.length; l++) {
            layouts[l] = gaps(r);
        }
        for (int n = 0; n < 20_000; n++) {
            String[] gaps = layouts[r.nextInt(10) == 0 ? r.nextInt(layouts.length) : 0].clone();
            if (gaps.length > 0 && r.nextInt(5) == 0) { // one gap changed: another name, or other spacing
                int i = r.nextInt(gaps.length);
                gaps[i] = r.nextBoolean() ? gaps(r)[0].replace("{", i == 0 ? "{" : ",") : gaps[i].replace(":", " :");
            }
            StringBuilder b = new StringBuilder();
            for (String gap : gaps) {
                b.append(gap).append(value(r));
            }
            String text = b.append(gaps.length == 0 ? "{}" : "}").toString();
            switch (r.nextInt(20)) {
                case 0 -> text = text.substring(0, r.nextInt(text.length())); // cut short
                case 1 -> text = text.replaceFirst(":", " "); // a name without its colon
                case 2 -> text = text.replaceFirst("\"([^\"]*)\":", "\"$1x\" ;"); // a changed name, then broken
                default -> { }
            }
            assertSame(text, "L" + (n % 3), "seed " + seed);
        }
        // a changed name whose field then fails must not leave the old name with the old bytes, nor the reverse
        for (String text : List.of("{\"a\":1,\"b\":2}", "{\"a\":1,\"c\" 2}", "{\"a\":1,\"b\":2}",
                "{\"a\":1,\"c\":2}", "{\"a\":1,\"b\" 2}", "{\"a\":1,\"c\":2}", "{\"a\":1,\"b\":2}")) {
            assertSame(text, "Changed", text);
        }
    }

    /** The bytes before each value of a flat record: the first opens the object, the others start with a comma. */
    private static String[] gaps(Random r) {
        String[] gaps = new String[r.nextInt(12) + 1];
        for (int i = 0; i < gaps.length; i++) {
            gaps[i] = space(r) + (i == 0 ? "{" : ",") + space(r) + '"' + NAMES[r.nextInt(NAMES.length)]
                    + (i % 5 == 4 ? "" + i : "") + '"' + space(r) + ':' + space(r);
        }
        return gaps;
    }

    @Test
    void edgeNumbersAndSpacingReadAsJacksonReadsThem() {
        List<String> edges = List.of("{}", " { } ", "{\"a\":-0}", "{\"a\":-0.0}", "{\"a\":0.0}", "{\"a\":1E22}",
                "{\"a\":1e23}", "{\"a\":9007199254740993.0}", "{\"a\":4.9E-324}", "{\"a\":1.7976931348623157E308}",
                "{\"a\":123456789012345678}", "{\"a\":-123456789012345678}", "{\"a\":1e-22}", "{\"a\":1.5E+3}",
                "{\"a\":0.06999999999999999}", "{\"a\":0.000000000000000000001234}", "{\"a\":-0.00012345678901234567}",
                "{\"a\":2.2250738585072014E-308}", "{\"a\":1e9999}",
                "\t{\r\n\"a\" :\n1 ,\"b\":null,\"a\":\"again\"}\n", "{\"x\":true,\"y\":false,\"z\":null}");
        FlatJsonReader reader = new FlatJsonReader();
        for (String text : edges) {
            assertThat(reads(reader, text.getBytes(StandardCharsets.UTF_8))).as(text).isTrue();
            assertSame(text, "Edge" + Math.abs(text.hashCode()), text);
        }
    }

    /**
     * Whether the reader reads the bytes itself (a builder of a context of its own: no earlier record's field types).
     * A record setting one name twice with two types throws from the builder, as on Jackson's path
     * ({@link #assertSame} compares that): the reader got to its values, so it reads the record.
     */
    private static boolean reads(FlatJsonReader reader, byte[] utf8) {
        BinaryContext own = new BinaryContext();
        try {
            return reader.read(utf8, utf8.length, (AsciiStringBuilder) own.builder("Reads")) != null;
        } catch (BinaryTypeMismatchException e) {
            return true;
        }
    }

    /** Both paths give equal bytes, or both throw the same kind of exception. */
    private void assertSame(String text, String type, String what) {
        Object viaJackson;
        try {
            viaJackson = jackson.fromJson(text, type).toBytes();
        } catch (RuntimeException e) {
            viaJackson = e.getClass();
        }
        Object viaBytes;
        try {
            BinaryObject o = json.fromJson(text.getBytes(StandardCharsets.UTF_8), type);
            viaBytes = o.toBytes();
        } catch (RuntimeException e) {
            viaBytes = e.getClass();
        }
        Object viaText;
        try {
            viaText = json.fromJson(text, type).toBytes();
        } catch (RuntimeException e) {
            viaText = e.getClass();
        }
        assertThat(viaBytes).as("%s: %s", what, text).isEqualTo(viaJackson);
        assertThat(viaText).as("as text, %s: %s", what, text).isEqualTo(viaJackson);
    }

    private static final String[] NAMES = {"secCode", "price", "quantity", "buySell", "account", "a", "b", "n_1",
        "with space", "x/y"};

    /** A flat object of random ASCII names and values, some repeated, nulls and odd spacing included. */
    private static String flatRecord(Random r) {
        StringBuilder b = new StringBuilder(space(r)).append('{');
        int fields = r.nextInt(12);
        for (int i = 0; i < fields; i++) {
            if (i > 0) {
                b.append(space(r)).append(',');
            }
            b.append(space(r)).append('"').append(NAMES[r.nextInt(NAMES.length)]).append(i % 5 == 4 ? "" + i : "")
                    .append('"').append(space(r)).append(':').append(space(r)).append(value(r));
        }
        return b.append(space(r)).append('}').append(space(r)).toString();
    }

    private static String value(Random r) {
        switch (r.nextInt(9)) {
            case 0: {
                StringBuilder s = new StringBuilder("\"");
                for (int k = r.nextInt(30); k > 0; k--) {
                    char c = (char) (0x20 + r.nextInt(0x60));
                    s.append(c == '"' || c == '\\' ? 'q' : c);
                }
                return s.append('"').toString();
            }
            case 1: return Long.toString(r.nextLong() % 1_000_000_000_000_000_000L);
            case 2: return Integer.toString(r.nextInt(2000) - 1000);
            case 3: return Double.toString(r.nextDouble() * Math.pow(10, r.nextInt(40) - 20) * (r.nextBoolean() ? 1 : -1));
            case 4: return String.format(Locale.ROOT, "%." + r.nextInt(8) + "f", r.nextDouble() * 10_000);
            case 5: return Double.toString(Double.longBitsToDouble(r.nextLong() & 0x7FEFFFFFFFFFFFFFL));
            case 6: return r.nextBoolean() ? "true" : "false";
            case 7: return "null";
            default: return (r.nextInt(100) + 1) + (r.nextBoolean() ? "e" : "E") + (r.nextBoolean() ? "-" : "+")
                    + r.nextInt(30);
        }
    }

    private static String space(Random r) {
        return r.nextInt(4) == 0 ? " \n\t\r".substring(r.nextInt(4)) : "";
    }
}
